"""Issue 13: swiss byes score league points (a house rule, default one win), and the table's
strength-of-schedule tie-breakers (Buchholz, opponents' win percentage) read from the database."""

from __future__ import annotations

import random

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league import selectors, services
from league.models import Bye, ScheduleRun, Season
from league.selectors import league_table
from matches.models import Match
from newsletters import selectors as newsletter_selectors
from newsletters.periods import Period
from teams.models import Team
from tests.factories import LeagueFactory
from tests.league.helpers import generate, home_away, make_season, play, play_round

pytestmark = pytest.mark.usefixtures("catalog")


def teams_of(season):
    return [e.team for e in season.entries.select_related("team").order_by("id")]


def game(season, home, away, home_points, away_points):
    match = services.fixture_create(season=season, round_number=None, home=home, away=away, rng=random.Random(0))
    return play(match, home_points, away_points)


def rows_by_team(season):
    return {row.team.pk: row for row in league_table(season)}


# --- swiss byes --------------------------------------------------------------------------------------


def test_a_swiss_bye_scores_a_win_by_default_and_is_no_game():
    season = make_season(5, format=Season.Format.SWISS, swiss_rounds=3)
    generate(season, ScheduleRun.Kind.SWISS)
    bye = Bye.objects.get(season=season)
    row = rows_by_team(season)[bye.team_id]
    assert (row.points, row.byes, row.played, row.won) == (3, 1, 0, 0)
    assert row.as_dict()["byes"] == 1


def test_the_bye_points_are_a_house_rule_frozen_with_the_season():
    league = LeagueFactory(points_bye=1, points_win=2)
    season = make_season(5, format=Season.Format.SWISS, swiss_rounds=3, league=league)
    assert season.points_bye == 1 and season.bye_points == 1
    services.league_update(league=league, points_bye=0)  # applies from the next season only
    generate(season, ScheduleRun.Kind.SWISS)
    bye = Bye.objects.get(season=season)
    assert rows_by_team(season)[bye.team_id].points == 1


def test_empty_bye_points_follow_the_seasons_win_points():
    season = make_season(5, format=Season.Format.SWISS, swiss_rounds=3, points_win=2)
    generate(season, ScheduleRun.Kind.SWISS)
    assert rows_by_team(season)[Bye.objects.get(season=season).team_id].points == 2


def test_round_robin_byes_score_nothing():
    season = make_season(3, format=Season.Format.ROUND_ROBIN)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    assert Bye.objects.filter(season=season).count() == 3
    assert all(row.points == 0 and row.byes == 0 for row in league_table(season))


def test_the_swiss_pairing_puts_the_bye_team_in_its_score_group():
    """After round 1 of five teams the bye's 3 points put its team in the top score group."""
    season = make_season(5, format=Season.Format.SWISS, swiss_rounds=3)
    generate(season, ScheduleRun.Kind.SWISS)
    bye_team = Bye.objects.get(season=season).team_id
    winners = set()
    for match in Match.objects.filter(season=season, round_number=1):
        home, _away = home_away(match)
        winners.add(home)
    play_round(season, 1)  # the home side wins 3-1
    generate(season, ScheduleRun.Kind.SWISS)
    round2 = Match.objects.filter(season=season, round_number=2).prefetch_related("sides")
    opponent = next(
        s.team_id
        for m in round2
        for s in m.sides.all()
        if bye_team in {x.team_id for x in m.sides.all()}
        if s.team_id != bye_team
    )
    match = next(m for m in round2 if bye_team in {x.team_id for x in m.sides.all()})
    # three teams on 3 points (two winners and the bye): the winners meet, the bye's team (lowest
    # of the group on points difference) is paired down from the top group; scored 0, it would
    # have been in the bottom group instead
    assert opponent not in winners
    assert "pulled down from score group 1" in match.pairing_reason


def test_bye_points_are_bounded():
    league = LeagueFactory()
    with pytest.raises(ValidationError, match=r"(?i)between 0 and 20"):
        services.league_update(league=league, points_bye=21)
    services.league_update(league=league, points_bye=None)
    league.refresh_from_db()
    assert league.points_bye is None


def test_the_newsletter_table_counts_the_byes_up_to_its_round():
    season = make_season(5, format=Season.Format.SWISS, swiss_rounds=3)
    generate(season, ScheduleRun.Kind.SWISS)
    play_round(season, 1)
    generate(season, ScheduleRun.Kind.SWISS)
    period = Period.round(season.number, 1)
    sides = newsletter_selectors.season_sides_through(season, period)
    byes = newsletter_selectors.byes_through(season, period)
    assert sum(byes.values()) == 1  # round 2's bye is after the period
    through = {r.team.pk: r.points for r in newsletter_selectors.table_through(season, sides, byes)}
    live = {r.team.pk: r.points for r in league_table(season)}
    bye2 = Bye.objects.get(season=season, round_number=2).team_id
    assert through == {**live, bye2: live[bye2] - 3}


# --- strength of schedule ------------------------------------------------------------------------------


def strength_season(tie_breakers: str):
    """Ant and Bee both beat one team; Ant's victim (Cat) then drew with Eel, Bee's (Dog) played
    no more. Ant is named last in the alphabet, so only the tie-breaker puts it first."""
    season = make_season(5, format=Season.Format.SELF_ARRANGED, tie_breakers=tie_breakers)
    ant, bee, cat, dog, eel = teams_of(season)
    Team.objects.filter(pk=ant.pk).update(name="Zen Ants", name_key="zen ants")
    Team.objects.filter(pk=bee.pk).update(name="Aqua Bees", name_key="aqua bees")
    game(season, ant, cat, 3, 1)
    game(season, bee, dog, 3, 1)
    game(season, cat, eel, 2, 2)
    return season, (ant, bee, cat, dog)


@pytest.mark.parametrize("tie_breakers", ["buchholz", "opponents_win_percentage"])
def test_strength_of_schedule_separates_teams_level_on_points(tie_breakers):
    season, (ant, bee, cat, _dog) = strength_season(tie_breakers)
    # Ant 3 (beat Cat: 1 point, a draw in 2 games), Bee 3 (beat Dog: 0): Ant first
    order = [r.team.pk for r in league_table(season)]
    assert order[:2] == [ant.pk, bee.pk]
    rows = rows_by_team(season)
    assert rows[ant.pk].opponents == (cat.pk,) and rows[cat.pk].opponents == (ant.pk, rows[cat.pk].opponents[1])


def test_without_the_tie_breaker_the_names_decide():
    season, (ant, bee, _cat, _dog) = strength_season("wins")
    assert [r.team.pk for r in league_table(season)][:2] == [bee.pk, ant.pk]


def test_strength_of_schedule_reads_a_fixed_number_of_queries():
    def queries(n):
        season = make_season(n, format=Season.Format.SELF_ARRANGED, tie_breakers="buchholz,opponents_win_percentage")
        teams = teams_of(season)
        for a, b in zip(teams[::2], teams[1::2], strict=True):
            game(season, a, b, 2, 1)
        with CaptureQueriesContext(connection) as ctx:
            league_table(season)
        return len(ctx.captured_queries)

    assert queries(4) == queries(12)


def test_opponents_met_lists_each_game_once():
    season, (ant, _bee, cat, _dog) = strength_season("buchholz")
    game(season, cat, ant, 1, 1)  # a rematch
    eel = teams_of(season)[4]
    assert selectors.opponents_met(season)[cat.pk] == (ant.pk, eel.pk, ant.pk)
