"""Fixtures for the notification tests: a league, two players' teams and a fixture between them."""

from __future__ import annotations

import pytest

from matches import services as match_services
from rules.models import Challenge
from tests.factories import LeagueFactory, UserFactory, make_legal_team
from tests.support import run_tasks_eagerly

#: Mails are sent by tasks: in-process here, also where REDIS_URL is set (CI), unless a test stops the broker.
celery_eager = pytest.fixture(autouse=True)(run_tasks_eagerly)


@pytest.fixture(autouse=True)
def locmem_email(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://league.example"


@pytest.fixture
def league(catalog):
    return LeagueFactory(master=UserFactory(username="master"))


@pytest.fixture
def alice(league):
    return UserFactory(username="alice")


@pytest.fixture
def bob(league):
    return UserFactory(username="bob")


@pytest.fixture
def two_teams(league, alice, bob):
    home = make_legal_team("tora", owner=alice, name="Tigers", league=league)
    away = make_legal_team("ika", owner=bob, name="Squids", league=league)
    return home, away


@pytest.fixture
def match(two_teams, league):
    home, away = two_teams
    return match_services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)
