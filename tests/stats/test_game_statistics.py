"""The players' games' statistics (issue 17, part 5): Ninjutsu's first-player and colour
advantage and how the Sokes died; Kage Masters' win rate by Kage Master and mean treasure by seat
and table size. Hand-checked on a few recorded results; shown on the league's and the season's
leaderboards pages with nothing All-Stars-only; bounded queries; empty states."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.urls import reverse
from django.utils import timezone

from games import registry as games
from games.kage_masters import statistics as kage_stats
from games.ninjutsu import statistics as game_stats
from games.registry import game_of
from matches.models import Match, MatchTeam
from matches.services import match_create
from tests.simulation.players import players, players_season

pytestmark = pytest.mark.django_db


def ninjutsu(winner, starter, colours=("Red", "Blue"), ending="soke_attacked", card="none"):
    return {
        "game": "ninjutsu",
        "winner": winner,
        "starter": starter,
        "colours": list(colours),
        "ending": ending,
        "card": card,
        "ninjas_left": None,
        "shuriken": None,
        "cards": None,
    }


def kage(*seats):
    """seats: (kage master, coins, rewards, seat) in slot order."""
    return {
        "game": "kage_masters",
        "seats": [
            {"slot": i, "kage_master": m, "coins": c, "rewards": r, "seat": s}
            for i, (m, c, r, s) in enumerate(seats, start=1)
        ],
    }


def record(season, teams, data, **extra):
    """A confirmed match of ``teams`` with ``data`` as its record (straight into the database: the
    statistics read records, whoever confirmed them)."""
    match = match_create(teams=teams, season=season, round_number=1)
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.CONFIRMED, submitted_record=data, confirmed_at=timezone.now(), **extra
    )
    return match


NINJUTSU_GAMES = [
    # winner, starter, colours, ending, card
    (1, 1, ("Red", "Blue"), "soke_attacked", "jump"),
    (2, 1, ("Red", "Blue"), "soke_attacking", "none"),
    (1, 2, ("Blue", "Red"), "out_of_dojo", "smoke"),
    (2, 2, ("Black", "Red"), "soke_attacked", "none"),
    (1, 1, ("Red", "Blue"), "conceded", "none"),
]


def ninjutsu_season():
    season = players_season(2)
    a, b = players(season)
    for winner, starter, colours, ending, card in NINJUTSU_GAMES:
        record(season, [a, b], ninjutsu(winner, starter, colours, ending, card))
    return season


def test_ninjutsu_statistics_hand_checked(django_assert_num_queries):
    season = ninjutsu_season()
    with django_assert_num_queries(1):
        stats = game_of(season.league).statistics(league=season.league, season=season)
    assert stats.stats.games == stats.stats.decided == 5
    # the starter won games 1, 4 and 5 (not 2 nor 3): 3 of 5
    assert stats.stats.starter_wins == 3 and stats.starter_win_rate == 0.6
    colours = {row.label: (row.count, row.total) for row in stats.colours}
    # Red: won games 1, 4 and 5 of 5; Blue: won games 2 and 3 of 4 (game 4 is Black against Red)
    assert colours == {"Red": (3, 5), "Blue": (2, 4), "Black": (0, 1)}
    assert stats.stats.colour_win_rate("Red") == Fraction(3, 5)
    endings = {row.label: row.count for row in stats.endings}
    assert endings == {
        "The Soke was attacked and lost the battle": 2,
        "The Soke attacked and lost the battle (lower roll or a tie)": 1,
        "The Soke's die left the Dojo": 1,
        "The loser conceded": 1,
    }
    assert stats.sokes_died == 4 and stats.opened_by_card == 2
    assert {row.label: row.count for row in stats.cards} == {"Jump": 1, "Smoke": 1}


def test_a_settled_dispute_counts_the_record_it_was_settled_with():
    season = players_season(2)
    a, b = players(season)
    record(
        season,
        [a, b],
        ninjutsu(1, 1),
        counter_record=ninjutsu(2, 1, ending="soke_attacking"),
        settlement=Match.Settlement.SECOND,
    )
    stats = game_stats.ninjutsu_statistics(league=season.league)
    assert stats.stats.starter_wins == 0 and stats.stats.endings == {"soke_attacking": 1}


def kage_season():
    season = players_season(5, game=games.KAGE_MASTERS)
    p = players(season)
    # a table of 3: treasures 10, 12, 12 -> Spy and Assassin share first
    record(season, p[:3], kage(("Firebrand", 8, 2, 1), ("Spy", 9, 3, 2), ("Assassin", 12, 0, 3)))
    # a table of 3: treasures 15, 7, 9 -> Spy first
    record(season, p[2:5], kage(("Spy", 10, 5, 2), ("Trickster", 7, 0, 3), ("Firebrand", 6, 3, 1)))
    # a table of 2 without seats: treasures 4, 6 -> Chain Specialist first
    record(season, p[3:5], kage(("Assassin", 4, 0, None), ("Chain Specialist", 5, 1, None)))
    return season


def test_kage_statistics_hand_checked(django_assert_num_queries):
    season = kage_season()
    with django_assert_num_queries(1):
        stats = game_of(season.league).statistics(league=season.league, season=season)
    assert stats.tables == 3
    masters = {row.label: (row.count, row.total) for row in stats.masters}
    assert masters == {
        "Spy": (2, 2),
        "Assassin": (1, 2),
        "Chain Specialist": (1, 1),
        "Firebrand": (0, 2),
        "Trickster": (0, 1),
    }
    assert stats.masters[0].label in ("Spy", "Chain Specialist") and stats.masters[0].rate == 1.0
    # seat means over the two tables of 3: seat 1 (10, 9), seat 2 (12, 15), seat 3 (12, 7)
    assert stats.seats == [
        (
            3,
            [
                kage_stats.SeatRow(1, 2, 9.5),
                kage_stats.SeatRow(2, 2, 13.5),
                kage_stats.SeatRow(3, 2, 9.5),
            ],
        )
    ]


def test_a_record_that_does_not_read_is_left_out():
    season = players_season(2)
    a, b = players(season)
    record(season, [a, b], {"game": "ninjutsu", "winner": 1})
    record(season, [a, b], ninjutsu(1, 2))
    assert game_stats.ninjutsu_statistics(league=season.league).stats.games == 1


def test_the_ninjutsu_leaderboards_page_shows_its_statistics_and_nothing_all_stars(
    client, django_assert_max_num_queries
):
    season = ninjutsu_season()
    for url in (
        reverse("stats:league_leaderboards", kwargs={"slug": season.league.slug}),
        reverse("stats:season_leaderboards", kwargs={"slug": season.league.slug, "number": season.number}),
    ):
        with django_assert_max_num_queries(8):
            page = client.get(url)
        html = page.content.decode()
        assert page.status_code == 200
        assert 'data-testid="ninjutsu-stats"' in html and "60%" in html
        assert 'data-testid="ninjutsu-colours"' in html and "Black" in html
        assert "The Soke&#x27;s die left the Dojo" in html and "Jump" in html
        assert 'data-testid="board-wins"' in html
        for all_stars in ("board-xp", "board-injuries", "board-koban", "board-all_stars", "board-biggest_upset"):
            assert all_stars not in html
        assert "clan" not in html.lower() and "XP" not in html and "koban" not in html.lower()
        assert "kage-stats" not in html


def test_the_kage_leaderboards_page_shows_its_statistics(client, django_assert_max_num_queries):
    season = kage_season()
    with django_assert_max_num_queries(8):
        page = client.get(reverse("stats:league_leaderboards", kwargs={"slug": season.league.slug}))
    html = page.content.decode()
    assert page.status_code == 200 and 'data-testid="kage-masters"' in html and "Chain Specialist" in html
    assert "Tables of 3" in html and "13.5" in html
    assert "ninjutsu-stats" not in html and "board-xp" not in html and "koban" not in html.lower()


def test_empty_states(client):
    for game, text in (
        (games.NINJUTSU, "No game played yet"),
        (games.KAGE_MASTERS, "No table played yet"),
    ):
        season = players_season(2, game=game)
        html = client.get(reverse("stats:league_leaderboards", kwargs={"slug": season.league.slug})).content.decode()
        assert text in html
        assert game_of(season.league).statistics(league=season.league).empty


def test_the_all_stars_leaderboards_are_unchanged(client):
    from tests.factories import LeagueFactory

    league = LeagueFactory()
    html = client.get(reverse("stats:league_leaderboards", kwargs={"slug": league.slug})).content.decode()
    assert 'data-testid="leaderboards-csv"' in html and 'data-testid="board-xp"' in html
    assert "ninjutsu-stats" not in html and "kage-stats" not in html
    assert MatchTeam.objects.count() == 0
