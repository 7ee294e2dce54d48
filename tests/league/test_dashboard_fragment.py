"""The dashboard's body is a fragment of its player's (issue 29, parts 2 and 3): a second read takes
it from the cache, a write to what it shows (a result in one of the player's fixtures, a new team
of theirs, another day) makes it stale at once, and a write in another league leaves it warm."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from matches.models import Match
from rules.models import Clan
from teams import services as team_services
from tests.factories import PASSWORD
from tests.league.helpers import generate, make_season, play, regular

#: Transactional: versions move when a transaction that wrote commits (common/invalidation.py).
pytestmark = [
    pytest.mark.usefixtures("catalog", "fragment_cache"),
    pytest.mark.django_db(transaction=True),
]


def read(client) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("home"))
    assert response.status_code == 200
    # the layout's sign-out form carries a CSRF token masked afresh on every response
    return len(queries), re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", response.content.decode())


@pytest.fixture
def two_leagues():
    here, there = make_season(4), make_season(4)
    generate(here, "round_robin")
    generate(there, "round_robin")
    owner = here.entries.select_related("team__owner").order_by("team_id").first().team.owner
    client = Client()
    client.login(username=owner.username, password=PASSWORD)
    client.get(reverse("league:list"))  # the session's first read, elsewhere
    return here, there, owner, client


def test_a_second_read_takes_the_body_from_the_cache(two_leagues):
    _, _, _, client = two_leagues
    cold, html = read(client)
    warm, again = read(client)
    assert again == html and warm < cold - 3  # the lists' queries are not run again


def test_a_result_in_the_players_fixture_makes_it_stale_and_another_leagues_does_not(two_leagues):
    here, there, owner, client = two_leagues
    _, before = read(client)
    warm, _ = read(client)
    play(regular(there).order_by("round_number", "pk").first(), 3, 0)  # another league's result
    queries, after = read(client)
    assert after == before and queries == warm
    mine = regular(here).filter(sides__team__owner=owner).order_by("round_number", "pk").first()
    play(mine, 2, 1, status=Match.Status.SUBMITTED)  # the opponent's entry, waiting for the player
    Match.objects.filter(pk=mine.pk).update(submitted_by=mine.sides.exclude(team__owner=owner).get().team.owner)
    Match.objects.get(pk=mine.pk).save(update_fields=["submitted_by"])  # a model write: its sides' versions move
    queries, after = read(client)
    assert queries > warm and "Confirm or reject" in after and after != before


def test_a_new_team_of_the_players_is_a_new_entry(two_leagues):
    _, _, owner, client = two_leagues
    read(client)
    team_services.team_create(owner=owner, name="Night Herons", clan=Clan.objects.order_by("pk").first())
    _, html = read(client)
    assert "Night Herons" in html


def test_another_day_is_a_new_entry(two_leagues, monkeypatch):
    _, _, _, client = two_leagues
    read(client)
    warm, _ = read(client)
    tomorrow = timezone.localdate() + dt.timedelta(days=1)
    monkeypatch.setattr(timezone, "localdate", lambda *a, **k: tomorrow)
    queries, _ = read(client)
    assert queries > warm
