"""The league table: SQL aggregation in a fixed number of queries, and every tie-breaker."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league import services
from league.models import ScheduleRun, Season
from league.selectors import league_table
from matches.models import Match
from teams.models import Advancement
from teams.services import team_ratings_refresh
from tests.league.helpers import add_team, generate, make_season, play, play_round

pytestmark = pytest.mark.usefixtures("catalog")


def game(season, home, away, home_points, away_points, **match_fields) -> Match:
    match = services.fixture_create(season=season, round_number=None, home=home, away=away, rng=random.Random(0))
    if match_fields:
        Match.objects.filter(pk=match.pk).update(**match_fields)
        match.refresh_from_db()
    return play(match, home_points, away_points, status=match_fields.get("status", Match.Status.CONFIRMED))


def teams_of(season):
    return [e.team for e in season.entries.select_related("team").order_by("id")]


def by_name(table):
    return {row.team.name: row for row in table}


def test_table_counts_played_won_drawn_lost_points_for_against_and_rating():
    season = make_season(3, format=Season.Format.SELF_ARRANGED, with_ninja=True)
    a, b, c = teams_of(season)
    game(season, a, b, 4, 1)  # a wins
    game(season, b, c, 2, 2)  # draw
    game(season, c, a, 3, 0)  # c wins
    rows = by_name(league_table(season))
    ra, rb, rc = rows[a.name], rows[b.name], rows[c.name]
    assert (ra.played, ra.won, ra.drawn, ra.lost, ra.points, ra.points_for, ra.points_against) == (2, 1, 0, 1, 3, 4, 4)
    assert (rb.played, rb.won, rb.drawn, rb.lost, rb.points, rb.points_for, rb.points_against) == (2, 0, 1, 1, 1, 3, 6)
    assert (rc.played, rc.won, rc.drawn, rc.lost, rc.points, rc.points_for, rc.points_against) == (2, 1, 1, 0, 4, 5, 2)
    assert rc.points_difference == 3 and rb.points_difference == -3
    assert ra.rating == 1  # one kaiken: 10 koban -> 1
    assert [r.team.name for r in league_table(season)] == [c.name, a.name, b.name]
    assert [r.position for r in league_table(season)] == [1, 2, 3]


def test_friendlies_unconfirmed_voided_playoff_and_other_season_games_do_not_count():
    season = make_season(2, format=Season.Format.SELF_ARRANGED)
    a, b = teams_of(season)
    game(season, a, b, 3, 1)
    game(season, a, b, 5, 0, friendly=True)
    game(season, a, b, 5, 0, status=Match.Status.SUBMITTED)
    game(season, a, b, 5, 0, status=Match.Status.VOIDED)
    game(season, a, b, 5, 0, stage="playoff-1")
    services.fixture_create(season=season, round_number=None, home=a, away=b, rng=random.Random(0))  # scheduled
    rows = by_name(league_table(season))
    assert (rows[a.name].played, rows[a.name].points, rows[a.name].points_for, rows[a.name].points_against) == (
        1,
        3,
        3,
        1,
    )
    assert (rows[b.name].played, rows[b.name].points) == (1, 0)


def test_points_follow_the_seasons_frozen_rules():
    season = make_season(2, format=Season.Format.SELF_ARRANGED, points_win=2, points_draw=1, points_loss=1)
    a, b = teams_of(season)
    game(season, a, b, 3, 1)
    game(season, a, b, 1, 1)
    rows = by_name(league_table(season))
    assert rows[a.name].points == 2 + 1 and rows[b.name].points == 1 + 1


def table_queries(n: int) -> int:
    season = make_season(n, format=Season.Format.ROUND_ROBIN, with_ninja=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    rounds = n - 1
    # every game a 1-1 draw: every team level on points, difference and points scored, whatever the
    # database ids, so the head-to-head query (it runs only for tied groups) runs at both sizes
    for r in range(1, rounds + 1):
        play_round(season, r, score=lambda h, a: (1, 1))
    # a friendly and a pending result, to be filtered out
    t1, t2 = teams_of(season)[:2]
    game(season, t1, t2, 2, 1, friendly=True)
    season = Season.objects.get(pk=season.pk)
    with CaptureQueriesContext(connection) as ctx:
        table = league_table(season)
    assert len(table) == n
    assert sum(r.played for r in table) == n * (n - 1)
    return len(ctx.captured_queries)


@pytest.mark.slow(reason="builds and plays two leagues, of 4 and of 40 teams")
def test_league_table_query_count_is_the_same_for_4_and_40_teams():
    small = table_queries(4)
    large = table_queries(40)
    assert small == large <= 5


def test_query_count_without_head_to_head_is_also_fixed():
    season = make_season(4, format=Season.Format.SELF_ARRANGED, with_ninja=True, tie_breakers="points_for")
    with CaptureQueriesContext(connection) as ctx:
        league_table(season)
    assert len(ctx.captured_queries) <= 4


# --- tie-breakers, each with a hand-made tie -----------------------------------------------------


def tied_pair(tie_breakers: str):
    season = make_season(0, format=Season.Format.SELF_ARRANGED, tie_breakers=tie_breakers)
    a = add_team(season.league, name="Alpha")
    b = add_team(season.league, name="Bravo")
    c = add_team(season.league, name="Charlie")
    return season, a, b, c


def order(season) -> list[str]:
    return [r.team.name for r in league_table(season)]


def test_tie_broken_by_points_difference():
    season, a, b, c = tied_pair("points_difference,points_for")
    game(season, a, c, 2, 1)  # Alpha +1, 3 pts
    game(season, b, c, 5, 1)  # Bravo +4, 3 pts
    assert order(season)[:2] == ["Bravo", "Alpha"]


def test_tie_broken_by_points_for():
    season, a, b, c = tied_pair("points_for")
    game(season, a, c, 2, 1)  # Alpha scores 2 (diff +1)
    game(season, b, c, 6, 5)  # Bravo scores 6 (diff +1)
    assert order(season)[:2] == ["Bravo", "Alpha"]
    # and points_difference alone would leave them level: alphabetical
    season.tie_breakers = "points_difference"
    assert order(season)[:2] == ["Alpha", "Bravo"]


def test_tie_broken_by_head_to_head_between_the_tied_teams_only():
    season, a, b, c = tied_pair("head_to_head,points_difference")
    game(season, b, a, 1, 0)  # Bravo beat Alpha
    game(season, a, c, 9, 0)  # Alpha thrashes Charlie: far better difference
    game(season, c, b, 1, 0)  # Charlie beat Bravo
    # Alpha 3, Bravo 3, Charlie 3: all level; head-to-head among the three is also level (3 each)
    # so the points difference decides: Alpha +8, Bravo 0, Charlie -8
    assert order(season) == ["Alpha", "Bravo", "Charlie"]
    # two-way tie: Bravo and Alpha on 3 points, Bravo won their game despite a worse difference
    season2, a2, b2, c2 = tied_pair("head_to_head,points_difference")
    game(season2, b2, a2, 1, 0)
    game(season2, a2, c2, 9, 0)
    assert order(season2)[:2] == ["Bravo", "Alpha"]
    season2.tie_breakers = "points_difference,head_to_head"
    assert order(season2)[:2] == ["Alpha", "Bravo"]


def test_tie_broken_by_wins():
    season, a, b, c = tied_pair("wins")
    # Alpha: 3 draws = 3 points; Bravo: 1 win = 3 points
    game(season, a, c, 1, 1)
    game(season, a, c, 1, 1)
    game(season, a, c, 1, 1)
    game(season, b, c, 1, 0)
    assert order(season)[:2] == ["Bravo", "Alpha"]


def test_tie_broken_by_lower_team_rating():
    season, a, b, c = tied_pair("team_rating_low")
    from tests.factories import recruit

    recruit(a, f"{a.clan.slug}-kaiken")
    ninja = recruit(b, f"{b.clan.slug}-kaiken")
    Advancement.objects.create(ninja=ninja, kind=Advancement.Kind.ATTACK)  # Bravo rates 2, Alpha 1
    team_ratings_refresh(team_ids=[b.pk])  # written around the services: the stored rating in step
    game(season, a, c, 2, 0)
    game(season, b, c, 2, 0)
    rows = by_name(league_table(season))
    assert (rows["Alpha"].rating, rows["Bravo"].rating) == (1, 2)
    assert order(season)[:2] == ["Alpha", "Bravo"]


def test_teams_level_on_everything_are_listed_alphabetically():
    season, _a, _b, _c = tied_pair("points_difference,points_for,head_to_head,wins,team_rating_low")
    assert order(season) == ["Alpha", "Bravo", "Charlie"]


def test_swiss_standings_use_the_table():
    season = make_season(4, format=Season.Format.SWISS, swiss_rounds=2)
    generate(season, ScheduleRun.Kind.SWISS)
    play_round(season, 1)
    table = league_table(season)
    assert [r.points for r in table] == [3, 3, 0, 0]
