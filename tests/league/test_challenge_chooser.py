"""The player the random challenge generator names (issue 27, finding 5): "Player 1 chooses" or
"Player 2 chooses" puts the choice of the challenge in that player's hands. The chooser is told
(the dashboard lists it, a notification says it once), the match page names them, and once the
match is decided (played, confirmed, forfeited, voided) nobody is offered the choice and the
choice's page says why, whoever asks."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from league import dashboard, services
from matches import services as match_services
from matches.models import Match
from notifications.models import Notification
from rules.engine.league import random_challenge
from rules.models import Challenge
from tests.league.helpers import make_season
from tests.support import set_result

pytestmark = pytest.mark.usefixtures("catalog")

SLOTS = {"player1": 0, "player2": 1}


def seed_for(chooser: str) -> int:
    """A seed whose roll of the random challenge generator says ``chooser`` chooses."""
    return next(s for s in range(500) if random_challenge(rng=random.Random(s)).chooser == chooser)


def arranged(chooser: str):
    """A self-arranged fixture (through the service the players use, so its hooks run) whose dice
    named ``chooser``; returns the match, the chooser's team and the other team."""
    season = make_season(2, format="self_arranged")
    home, away = [e.team for e in season.entries.select_related("team__owner").order_by("id")]
    match = services.fixture_arrange(season=season, home=home, away=away, rng=random.Random(seed_for(chooser)))
    assert match.challenge is None and match.challenge_chooser == chooser
    teams = [home, away]
    mine = teams[SLOTS[chooser]]
    return match, mine, teams[1 - SLOTS[chooser]]


def get(client, user, url) -> tuple[int, str, int]:
    client.force_login(user)
    client.get(url)  # warm (session)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return response.status_code, response.content.decode(), len(queries.captured_queries)


@pytest.mark.parametrize("chooser", ["player1", "player2"])
def test_the_chooser_s_dashboard_lists_the_choice_and_the_other_player_s_does_not(client, chooser):
    match, mine, other = arranged(chooser)
    choice = reverse("league:fixture_challenge", args=[match.pk])

    dash = dashboard.player_dashboard(mine.owner)
    assert [item.match.pk for item in dash.to_choose] == [match.pk] and dash.waiting == 1
    status, html, chooser_queries = get(client, mine.owner, reverse("home"))
    assert status == 200 and choice in html and "Choose the challenge" in html
    assert "1 thing waits for you" in html
    # the fixture is still among the chooser's next fixtures
    assert reverse("matches:presheet", args=[match.pk]) in html

    assert not dashboard.player_dashboard(other.owner).to_choose
    status, html, other_queries = get(client, other.owner, reverse("home"))
    assert status == 200 and choice not in html and "Nothing waits for you" in html
    # the same queries for both, within the page's bound (tests/league/test_dashboard.py)
    assert chooser_queries == other_queries <= 10


@pytest.mark.parametrize("chooser", ["player1", "player2"])
def test_the_chooser_is_notified_once_and_only_the_chooser(chooser):
    match, mine, other = arranged(chooser)
    told = Notification.objects.filter(text__icontains="choose the challenge")
    assert list(told.values_list("user_id", "url")) == [
        (mine.owner_id, reverse("league:fixture_challenge", args=[match.pk]))
    ]
    assert f"{mine.name} v {other.name}" in told.get().text or f"{other.name} v {mine.name}" in told.get().text


@pytest.mark.parametrize("chooser", ["player1", "player2"])
def test_the_match_page_names_the_chooser_and_links_to_the_choice_only_for_who_may_choose(client, chooser):
    match, mine, other = arranged(chooser)
    page = reverse("matches:detail", args=[match.pk])
    choice = reverse("league:fixture_challenge", args=[match.pk])
    named = escape(f"{mine.name} ({mine.owner.username}) chooses the challenge")
    counts = {}
    for who, user, linked in (
        ("chooser", mine.owner, True),
        ("master", match.league.master, True),
        ("other", other.owner, False),
    ):
        status, html, counts[who] = get(client, user, page)
        assert status == 200 and named in html
        assert (choice in html) is linked, who
    # Naming the chooser reads nothing more: the sides' teams and owners are loaded for the rights
    # already (the session, the user, the unread count, the match, its sides; the master's
    # simulation panel one more).
    assert counts["chooser"] == counts["other"] == 5 and counts["master"] == 6, counts


def decide(match: Match, mine, state: str) -> Match:
    """Bring the fixture to ``state`` through the services (a result written straight in for a
    played one: tests.support.set_result)."""
    master = match.league.master
    if state == "forfeited":
        return services.fixture_forfeit(match=match, forfeiting=[mine.pk], reason="No-show", actor=master)
    if state == "voided":
        forfeit = services.fixture_forfeit(match=match, forfeiting=[mine.pk], reason="Wrong", actor=master)
        return match_services.match_void(match=forfeit, actor=master, reason="Recorded by mistake")
    status = Match.Status.CONFIRMED if state == "confirmed" else Match.Status.SUBMITTED
    return set_result(match, 1, 0, status=status)


@pytest.mark.parametrize("state", ["forfeited", "confirmed", "submitted", "voided"])
def test_a_decided_match_offers_no_choice_and_the_choice_says_the_match_is_decided(client, state):
    match, mine, other = arranged("player2")
    decide(match, mine, state)
    page = reverse("matches:detail", args=[match.pk])
    choice = reverse("league:fixture_challenge", args=[match.pk])
    champion = Challenge.objects.get(name="Champion")
    for user in (mine.owner, other.owner, match.league.master):
        status, html, _ = get(client, user, page)
        assert status == 200 and choice not in html and "chooses the challenge" not in html
        status, html, _ = get(client, user, choice)
        assert status == 403 and "The match is decided" in html, (user, html)
        assert "Only the player the dice named" not in html
        response = client.post(choice, {"challenge": champion.pk})
        assert response.status_code == 403 and "The match is decided" in response.content.decode()
    assert Match.objects.get(pk=match.pk).challenge is None
    assert not dashboard.player_dashboard(mine.owner).to_choose
