"""Shared fixtures.

Tests that need a real service (PostgreSQL, Redis, a Celery worker) use the fixtures below. They
skip on a bare machine, but when REQUIRE_SERVICES=1 or CI=true (as .ci/run sets) a missing service
is a failure, never a skip.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.db import connection

pytest_plugins = ("tests.budget",)


def services_required() -> bool:
    return os.environ.get("REQUIRE_SERVICES") == "1" or os.environ.get("CI", "").lower() == "true"


def need(condition: bool, what: str) -> None:
    if condition:
        return
    if services_required():
        pytest.fail(f"{what} is required in CI but is not available")
    pytest.skip(f"{what} not configured (set it, or run .ci/run)")


def pytest_report_header(config):
    """Say in the run's header which services the suite runs against (visible in CI's log)."""
    db = settings.DATABASES["default"]
    engine = db["ENGINE"].rsplit(".", 1)[-1]
    where = (
        f"{db.get('HOST') or 'local'}:{db.get('PORT') or ''}/{db.get('NAME')}"
        if engine == "postgresql"
        else str(db["NAME"])
    )
    broker = settings.REDIS_URL or "none (Celery eager, in-process)"
    required = "required (fail if missing)" if services_required() else "optional (skip if missing)"
    return [f"moonlight: database={engine} {where}; broker={broker}; real-service tests {required}"]


@pytest.fixture
def postgres(db):
    """Requires the default database to be PostgreSQL."""
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    return connection


@pytest.fixture
def postgres_tx(transactional_db):
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    return connection


@pytest.fixture
def redis_url() -> str:
    need(bool(settings.REDIS_URL), "Redis (REDIS_URL)")
    return settings.REDIS_URL


@pytest.fixture
def celery_worker_live(transactional_db, redis_url):
    """A real Celery worker thread consuming from Redis, for tests that go through the broker."""
    from celery.contrib.testing.worker import start_worker

    from league.celery import app

    app.conf.task_always_eager = False
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30) as worker:
        yield worker


@pytest.fixture
def catalog(db):
    """The rules catalog, reloaded if a transactional test flushed it."""
    from rules.catalog import ensure_catalog

    ensure_catalog()


@pytest.fixture(autouse=True)
def _axes_off_unless_asked(request, settings):
    """django-axes needs a request to authenticate; the test client's login() has none. Tests that
    check rate limiting mark themselves `axes` and keep it on."""
    if "axes" not in request.keywords:
        settings.AXES_ENABLED = False


_SERVICE_FIXTURES = {
    "postgres": "PostgreSQL",
    "postgres_tx": "PostgreSQL",
    "celery_worker_live": "real Celery worker",
    "redis_url": "Redis",
}
_service_items: dict[str, set[str]] = {}
_service_passed: dict[str, set[str]] = {}


def pytest_collection_modifyitems(config, items):
    from tests.budget import slow_first
    from tests.worlds import order

    slow_first(items)
    order(items)
    for item in items:
        labels = [label for fixture, label in _SERVICE_FIXTURES.items() if fixture in getattr(item, "fixturenames", ())]
        if labels:
            # Under xdist the workers collect and the controller reports: the labels travel with
            # each test's reports (user_properties), and the controller counts them from there.
            item.user_properties.append(("moonlight_services", tuple(sorted(set(labels)))))


def pytest_runtest_setup(item):
    from tests.worlds import check_item

    check_item(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    from tests.worlds import finish_unused

    try:
        return (yield)
    finally:
        finish_unused(item, nextitem)


def pytest_runtest_logreport(report):
    labels = next((value for name, value in report.user_properties if name == "moonlight_services"), ())
    for label in labels:
        _service_items.setdefault(label, set()).add(report.nodeid)
        if report.when == "call" and report.passed:
            _service_passed.setdefault(label, set()).add(report.nodeid)


def pytest_terminal_summary(terminalreporter):
    if not _service_items:
        return
    parts = [
        f"{label}: {len(_service_passed.get(label, ()))}/{len(ids)} passed"
        for label, ids in sorted(_service_items.items())
    ]
    terminalreporter.write_line("moonlight real-service tests — " + "; ".join(parts))


@pytest.fixture(autouse=True)
def _small_balance_study(settings):
    """A balance study started from the site plays one challenge at two gaps (ten games at one game a cell)."""
    settings.BALANCE_STUDY_PLAN = {"challenges": ("brawl",), "gaps": (0, 10)}


@pytest.fixture(autouse=True)
def _page_cache_off_unless_asked(request, settings):
    """Cached anonymous pages and fragments would leak between tests (and a test's writes, rolled
    back, never move a version); tests of the caches mark themselves."""
    if "page_cache" not in request.keywords:
        settings.PAGE_CACHE_SECONDS = 0
        settings.FRAGMENT_CACHE_SECONDS = 0


@pytest.fixture(autouse=True)
def _api_throttles_off_unless_asked(request, settings):
    """The API's throttles count per address across tests (the cache lives on); tests of the
    throttles mark themselves `throttle` and keep the configured rates."""
    if "throttle" not in request.keywords:
        settings.API_THROTTLE_RATES = {"anon": "100000/min", "user": "100000/min", "write": "100000/min"}


@pytest.fixture
def fresh_locmem_cache(settings):
    """A memory cache of the test's own, empty before and after (for the page and fragment caches)."""
    import contextlib

    from django.core.cache import cache

    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cache-tests"}
    }
    cache.clear()
    yield cache
    with contextlib.suppress(Exception):
        cache.clear()


@pytest.fixture
def fragment_cache(settings, fresh_locmem_cache):
    """The fragment cache on (common/fragments.py), over a memory cache of the test's own."""
    settings.FRAGMENT_CACHE_SECONDS = 300
    return fresh_locmem_cache
