"""The suite's time budget, reported by the suite itself (as Zulip's test runner does).

Every test has a budget of TEST_BUDGET_SECONDS (2 s unless the environment says otherwise) for its
setup, call and teardown together. A test that needs more is marked ``@pytest.mark.slow(reason=...)``
with why; a marker without a reason stops the run before it starts. At the end of every run:

* the tests over the budget that are not marked slow (on a quiet machine the list is empty);
* the slowest ten tests, with their setup, call and teardown added up;
* each worker's start-up (its first test's set-up, where the session's fixtures are made: the
  test database created or checked), which is no test's own cost.

The slow tests are also run first: with pytest-xdist's scheduling, the long ones start while the
short ones fill in behind them, so a 90-second browser audit does not set the run's tail.
A budget is a report, never a failure: a busy machine cannot fail the suite through it.
"""

from __future__ import annotations

import os

import pytest

BUDGET_SECONDS = float(os.environ.get("TEST_BUDGET_SECONDS", "2"))

_durations: dict[str, float] = {}
_marked_slow: set[str] = set()


def pytest_configure(config):
    config.addinivalue_line("markers", "slow(reason): a test over the time budget, and why it must be (required)")


def pytest_collection_modifyitems(config, items):
    unexplained = []
    for item in items:
        marker = item.get_closest_marker("slow")
        if marker is None:
            continue
        reason = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "")
        if not isinstance(reason, str) or not reason.strip():
            unexplained.append(item.nodeid)
    if unexplained:
        raise pytest.UsageError(
            "a test marked slow must say why: @pytest.mark.slow(reason=...):\n  " + "\n  ".join(unexplained)
        )


def slow_first(items: list) -> None:
    """Slow tests first, the rest in their order (a stable sort). tests/conftest.py calls it before
    tests/worlds.py's ``order``, which must come last."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


#: The set-up of each worker's first test, which also sets up the session (the test database is
#: created or checked, the catalog loaded): the run's start-up, not that test's cost.
_startup: dict[str, float] = {}


def pytest_runtest_logreport(report):
    # Under xdist this runs in the controller, with every worker's reports (``report.node`` is the
    # worker that ran the test).
    node = getattr(report, "node", None)
    worker = getattr(getattr(node, "gateway", None), "id", "main")
    if report.when == "setup" and worker not in _startup:
        _startup[worker] = report.duration
        return
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration
    if "slow" in report.keywords:
        _marked_slow.add(report.nodeid)


def over_budget(durations: dict[str, float], slow: set[str], budget: float) -> list[tuple[str, float]]:
    """The tests over ``budget`` seconds that are not marked slow, slowest first."""
    return sorted(
        ((nodeid, seconds) for nodeid, seconds in durations.items() if seconds > budget and nodeid not in slow),
        key=lambda pair: -pair[1],
    )


def pytest_terminal_summary(terminalreporter):
    if not _durations:
        return
    if os.environ.get("TEST_DURATIONS_FILE"):  # every test's seconds, for docs/testing.md's figures
        import json

        with open(os.environ["TEST_DURATIONS_FILE"], "w") as out:
            json.dump({"slow": sorted(_marked_slow), "seconds": _durations}, out, indent=0, sort_keys=True)
    write = terminalreporter.write_line
    terminalreporter.section("time budget")
    late = over_budget(_durations, _marked_slow, BUDGET_SECONDS)
    if late:
        write(
            f"{len(late)} tests over the {BUDGET_SECONDS:g} s budget and not marked slow (mark them with a reason, or speed them up):"
        )
        for nodeid, seconds in late:
            write(f"  {seconds:7.2f} s  {nodeid}")
    else:
        write(f"every test not marked slow ran within the {BUDGET_SECONDS:g} s budget")
    if _startup:
        write(
            "start-up (each worker's first set-up: the test database and the session's fixtures): "
            + ", ".join(f"{worker} {seconds:.1f} s" for worker, seconds in sorted(_startup.items()))
        )
    write("the slowest ten (setup + call + teardown):")
    for nodeid, seconds in sorted(_durations.items(), key=lambda pair: -pair[1])[:10]:
        flag = "slow" if nodeid in _marked_slow else "    "
        write(f"  {seconds:7.2f} s  {flag}  {nodeid}")
