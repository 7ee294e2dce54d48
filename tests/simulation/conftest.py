"""Fixtures for the simulation tests: a league with a master, legal teams, fixtures."""

from __future__ import annotations

import pytest

# The same league, teams and fixture as the match tests.
from tests.matches.conftest import brawl_match, league, match_world, match_world_built, two_teams  # noqa: F401


@pytest.fixture
def eager():
    """Run dispatched tasks in-process (as the embedded default does), even when REDIS_URL is set."""
    from league.celery import app

    previous = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield app
    app.conf.task_always_eager, app.conf.task_eager_propagates = previous
