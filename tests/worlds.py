"""Worlds built once per module and rolled back between tests, as Django's ``setUpTestData`` does.

A *world* is the data a module's tests share (the trust world of tests/trust/world.py, a league
with two teams and a match...). Building it for every test costs most of those tests' time; built
once, each test gets it inside a savepoint:

    world_built, world = shared_world(seed_world)   # in a conftest.py or a test module

* ``world_built`` (module scope) opens a transaction on every database, builds the world in it,
  and rolls it back when the module's tests are done: nothing outlives the module.
* ``world`` (function scope) asks for pytest-django's ``db``, whose per-test transaction is then a
  savepoint inside the module's: whatever a test writes is rolled back before the next one, and
  the next test sees the world as built. It hands the test a deep copy of the world's objects (as
  ``setUpTestData`` does), so a test that changes an instance in memory cannot leak it either.

pytest sets up a module-scoped fixture before any function-scoped one, so the module's
transaction is always the outer one. A test of the same module that does not use the world (one
that counts rows, or commits for real with ``transactional_db``) must not run inside it: ``order``
runs such tests before the world is built, ``finish_unused`` takes a world down as soon as the next
test does not use it (a module may share several), and ``check_item`` stops a test that would run
inside a world all the same. tests/conftest.py calls the three.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
from collections.abc import Callable

import pytest
from django.db import connections, transaction

#: The names of the module-scoped fixtures made here (for check_modules).
BUILT_FIXTURES: set[str] = set()


def _open_transactions() -> list[transaction.Atomic]:
    atomics = []
    for alias in connections:
        atomic = transaction.atomic(using=alias)
        # As TestCase marks its own: a durable block may still open inside (the test's atomic is the
        # innermost at that point, but the world's builder runs directly in this one).
        atomic._from_testcase = True
        atomic.__enter__()
        atomics.append(atomic)
    return atomics


def _roll_back(atomics: list[transaction.Atomic]) -> None:
    for atomic in reversed(atomics):
        transaction.set_rollback(True, using=atomic.using)
        atomic.__exit__(None, None, None)


@contextlib.contextmanager
def _as_in_a_test():
    """What tests/conftest.py's autouse fixtures give a test (which a module-scoped fixture does not
    get): tasks in-process, the caches and django-axes off, the rules catalog loaded."""
    from django.test import override_settings

    from league.celery import app
    from rules.catalog import ensure_catalog

    eager = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    try:
        with override_settings(AXES_ENABLED=False, PAGE_CACHE_SECONDS=0, FRAGMENT_CACHE_SECONDS=0):
            ensure_catalog()
            yield
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = eager


def shared_world(builder: Callable[[], object], *, name: str = "world"):
    """The two fixtures of a world built by ``builder()``: ``<name>_built`` and ``<name>``.

    Assign both to module-level names (pytest finds fixtures by attribute):
    ``world_built, world = shared_world(seed_world)``.
    """
    built_name = f"{name}_built"
    BUILT_FIXTURES.add(built_name)

    @pytest.fixture(scope="module", name=built_name)
    def built(django_db_setup, django_db_blocker):
        with django_db_blocker.unblock():
            atomics = _open_transactions()
            try:
                with _as_in_a_test():
                    value = builder()
            except BaseException:
                _roll_back(atomics)
                raise
        _open.add(built_name)
        try:
            yield value
        finally:
            _open.discard(built_name)
            with django_db_blocker.unblock():
                _roll_back(atomics)

    def per_test(**fixtures):
        return copy.deepcopy(fixtures[built_name])

    # `built_name` must be a static dependency, so that pytest sets it up before `db`; the name is
    # the caller's, so the signature is written out here.
    per_test.__signature__ = inspect.Signature(
        [inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY) for arg in (built_name, "db")]
    )
    fixture = pytest.fixture(name=name)(per_test)
    return built, fixture


def _world_of(item) -> str:
    """The shared world an item uses ('' for none)."""
    names = sorted(set(getattr(item, "fixturenames", ())) & BUILT_FIXTURES)
    return ",".join(names)


def _commits(item) -> bool:
    marker = item.get_closest_marker("django_db")
    names = set(getattr(item, "fixturenames", ()))
    return bool(names & {"transactional_db", "live_server"}) or bool(marker and marker.kwargs.get("transaction"))


def order(items: list) -> None:
    """Within each module, the tests without a shared world first, then the tests of each world
    together; each module's tests keep the places they had in the run (so the slow-first order of
    tests/budget.py holds), and every worker's share of a module (a subsequence of the run's order)
    meets them in this order too.

    A test without the world never runs inside it (it would see its rows, or, committing, break its
    transaction), and a world is built as few times as its module's tests allow: ``finish_unused``
    takes a world down as soon as the next test does not use it.
    """
    committing = [item.nodeid for item in items if _world_of(item) and _commits(item)]
    if committing:
        raise pytest.UsageError(
            "a test that commits (transactional_db, live_server) cannot use a shared world (tests/worlds.py), whose "
            "transaction it would end: give its module a fixture built per test\n  " + "\n  ".join(committing)
        )
    places: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        places.setdefault(item.nodeid.split("::")[0], []).append(index)
    reordered = list(items)
    for indexes in places.values():
        module_items = sorted((items[i] for i in indexes), key=_world_of)  # stable: '' (no world) first
        for index, item in zip(indexes, module_items):
            reordered[index] = item
    items[:] = reordered


_open: set[str] = set()


def finish_unused(item, nextitem) -> None:
    """After a test: take down each open world the next test does not use, now rather than at the
    end of the module (pytest's own teardown keeps a module's fixtures until the module is done)."""
    wanted = set(getattr(nextitem, "fixturenames", ())) if nextitem is not None else set()
    for name in sorted(_open - wanted):
        fixturedefs = item._fixtureinfo.name2fixturedefs.get(name)
        if not fixturedefs:  # not this item's world: pytest tears it down with its module
            continue
        fixturedefs[-1].finish(request=item._request)


def check_item(item) -> None:
    """The safety net behind ``order``: a test must not start while a world it does not use is open."""
    stray = _open - set(getattr(item, "fixturenames", ()))
    if stray:
        raise RuntimeError(
            f"{item.nodeid} would run inside the open shared world {sorted(stray)} (tests/worlds.py): it would see "
            "that world's rows"
        )
