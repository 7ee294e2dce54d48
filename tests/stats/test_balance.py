"""Balance statistics (issue 16, part 3), hand-computed on the small league of
tests/stats/helpers.py (m1, m2 simulated, m3, the final, m5; m6 voided)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league import services
from rules.models import Challenge, Clan
from stats.intervals import Rate
from stats.selectors.balance import BalanceFilter, balance
from tests.league.helpers import add_team
from tests.stats.helpers import settle, small_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def small(catalog):
    return small_league()


def clan(slug):
    return Clan.objects.get(slug=slug).pk


def test_every_figure_of_the_small_league(small):
    stats = balance(BalanceFilter())
    tora, yama, kits = clan("tora"), clan("yamazaru"), clan("kitsune")
    brawl, champion = Challenge.objects.get(name="Brawl").pk, Challenge.objects.get(name="Champion").pk
    assert stats.games == 5
    # Tora beat Yamazaru in m1 and lost the final; beat Kitsune in m3, drew m5.
    assert stats.matrix == {
        (tora, yama): Rate(1, 0, 1),
        (yama, tora): Rate(1, 0, 1),
        (tora, kits): Rate(1, 1, 0),
        (kits, tora): Rate(0, 1, 1),
        (yama, kits): Rate(1, 0, 0),
        (kits, yama): Rate(0, 0, 1),
    }
    assert stats.mirrors == {}
    assert stats.by_clan == {tora: Rate(2, 1, 1), yama: Rate(2, 0, 1), kits: Rate(0, 1, 2)}
    assert stats.by_clan_challenge == {
        (tora, brawl): Rate(2, 0, 1),
        (tora, champion): Rate(0, 1, 0),
        (yama, brawl): Rate(2, 0, 1),
        (kits, brawl): Rate(0, 0, 2),
        (kits, champion): Rate(0, 1, 0),
    }
    # Player 1: A won m1, B won m2, C lost m3, A lost the final, A drew m5.
    assert stats.first_player == Rate(2, 1, 2)
    assert stats.first_player_by_challenge == {brawl: Rate(2, 0, 2), champion: Rate(0, 1, 0)}
    # Higher-rated side: final by 2 lost; m3 by 3 won, m1 by 4 lost; m2 by 6 won; m5 by 12 drew.
    assert stats.gap_bins == [
        ("1–2", Rate(0, 0, 1)),
        ("3–5", Rate(1, 0, 1)),
        ("6–10", Rate(1, 0, 0)),
        ("11–20", Rate(0, 1, 0)),
        ("21+", Rate(0, 0, 0)),
    ]
    assert stats.equal_ratings == 0
    # Lower-rated side: C with a reroll token lost m2; without bonuses A won m1, C lost m3, B won
    # the final, C drew m5.
    assert stats.underdog == [("With underdog bonuses", Rate(0, 0, 1)), ("Without bonuses", Rate(2, 1, 1))]


def test_filters(small):
    simulated = balance(BalanceFilter(kind="simulated"))
    assert simulated.games == 1 and simulated.first_player == Rate(1, 0, 0)
    played = balance(BalanceFilter(kind="played"))
    assert played.games == 4 and played.first_player == Rate(1, 1, 2)
    season2 = balance(BalanceFilter(league=small.league, season=small.season2))
    assert season2.games == 1 and season2.first_player == Rate(0, 1, 0)
    assert balance(BalanceFilter(league=small.league)).games == 5


def test_a_mirror_match_is_counted_apart(small):
    tora = clan("tora")
    other = add_team(small.league, name="Tora Two", clan="tora")
    match = services.fixture_arrange(season=small.season2, home=small.a, away=other)
    settle(match, (2, 0), ratings=(100, 100), koban=(10, 5), minute=9)
    stats = balance(BalanceFilter())
    assert stats.mirrors == {tora: 1} and stats.equal_ratings == 1
    assert stats.by_clan[tora] == Rate(2, 1, 1)  # unchanged: the mirror is left out


def test_page_shows_rates_with_intervals_and_greys_thin_cells(client, small):
    resp = client.get(reverse("stats:balance"), {"league": "small", "kind": "all"})
    html = resp.content.decode()
    assert resp.status_code == 200
    assert "40% <small>(12%–77%, n=5)</small>" in html  # player 1: 2 of 5
    assert 'class="text-muted" title="Fewer than 10 games' in html
    assert html.count("<svg") == 3


def test_bad_filters_are_reported_not_obeyed(client, small):
    resp = client.get(reverse("stats:balance"), {"league": "small", "season": "9", "kind": "nonsense"})
    html = resp.content.decode()
    assert resp.status_code == 200
    assert "Small League has no season 9." in html
    assert "5 games in every league" in html
    resp = client.get(reverse("stats:balance"), {"season": "1"})
    assert "Choose the league of the season." in resp.content.decode()


def test_empty_state(client, catalog):
    assert "No confirmed game yet." in client.get(reverse("stats:balance")).content.decode()
