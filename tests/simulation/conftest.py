"""Fixtures for the simulation tests: a league with a master, legal teams, fixtures."""
from __future__ import annotations

import pytest

from matches import services
from rules.models import Challenge
from tests.factories import LeagueFactory, UserFactory, make_legal_team


@pytest.fixture
def league(catalog):
    return LeagueFactory(master=UserFactory(username="master"))


@pytest.fixture
def two_teams(league):
    home = make_legal_team("tora", owner=UserFactory(username="alice"), name="Tigers", league=league)
    away = make_legal_team("ika", owner=UserFactory(username="bob"), name="Squids", league=league)
    return home, away


@pytest.fixture
def brawl_match(two_teams, league):
    return services.match_create(teams=list(two_teams), challenge=Challenge.objects.get(slug="brawl"), league=league)


@pytest.fixture
def eager():
    """Run dispatched tasks in-process (as the embedded default does), even when REDIS_URL is set."""
    from league.celery import app

    previous = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield app
    app.conf.task_always_eager, app.conf.task_eager_propagates = previous
