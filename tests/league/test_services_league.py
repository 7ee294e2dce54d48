"""Leagues, house rules frozen per season, applications, self-arranged fixtures, rollover."""

from __future__ import annotations

import random

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from league import services
from league.models import League, ScheduleRun, Season, SeasonEntry
from matches.models import Match
from rules.models import Challenge, Clan
from teams import services as team_services
from teams.models import Ninja, Team
from tests.factories import LeagueFactory, UserFactory, make_team, recruit
from tests.league.helpers import add_team, generate, make_season, play, play_round

pytestmark = pytest.mark.usefixtures("catalog")


def test_league_create_makes_the_creator_master_and_a_unique_slug():
    user = UserFactory()
    league = services.league_create(master=user, name="  Moon Court ", description="Night games", points_win=2)
    assert (league.name, league.slug, league.master, league.points_win) == ("Moon Court", "moon-court", user, 2)
    with pytest.raises(ValidationError):
        services.league_create(master=user, name="moon court")
    other = services.league_create(master=user, name="Moon Court!")
    assert other.slug == "moon-court-2"
    assert services.league_create(master=user, name="New").slug == "new-2"  # "new" is a page
    with pytest.raises(ValidationError):
        services.league_create(master=user, name="X", tie_breakers="points_for,luck")


def test_house_rules_are_frozen_per_season():
    league = LeagueFactory(points_win=3, revenue_win=10, tie_breakers="points_difference")
    first = services.season_create(league=league, format=Season.Format.ROUND_ROBIN)
    assert (first.points_win, first.revenue_win, first.tie_breakers) == (3, 10, "points_difference")
    services.league_update(
        league=league, points_win=2, revenue_win=12, tie_breakers="head_to_head,wins", results_need_confirmation=False
    )
    first.refresh_from_db()
    assert (first.points_win, first.revenue_win, first.tie_breakers, first.results_need_confirmation) == (
        3,
        10,
        "points_difference",
        True,
    )
    second = services.season_rollover(season=first)
    assert (second.points_win, second.revenue_win, second.tie_breaker_list, second.results_need_confirmation) == (
        2,
        12,
        ["head_to_head", "wins"],
        False,
    )
    first.refresh_from_db()
    assert first.points_win == 3 and first.status == Season.Status.FINISHED
    assert second.number == 2 and second.name == "Season 2"


def test_one_current_season_per_league():
    season = make_season(0)
    with pytest.raises(ValidationError, match="Finish the current season"):
        services.season_create(league=season.league, format=Season.Format.SWISS, swiss_rounds=3)
    with pytest.raises(IntegrityError), transaction.atomic():
        Season.objects.create(league=season.league, number=9, name="rogue")


def test_season_formats_are_validated():
    league = LeagueFactory()
    with pytest.raises(ValidationError, match="swiss"):
        services.season_create(league=league, format=Season.Format.SWISS)
    with pytest.raises(ValidationError, match="two teams"):
        services.season_create(league=league, format=Season.Format.ROUND_ROBIN, playoff_teams=1)


def test_applications_accept_into_the_open_season_or_refuse():
    season = make_season(0)
    owner = UserFactory()
    team = make_team("tora", owner=owner)
    services.team_apply(team=team, league=season.league)
    team.refresh_from_db()
    assert (team.league, team.entry_status) == (season.league, Team.EntryStatus.PENDING)
    with pytest.raises(ValidationError, match="already applied"):
        services.team_apply(team=team, league=season.league)
    entry = services.application_accept(team=team)
    assert entry.season == season and entry.team == team
    team.refresh_from_db()
    assert team.entry_status == Team.EntryStatus.ACCEPTED
    with pytest.raises(ValidationError, match="no pending"):
        services.application_accept(team=team)
    with pytest.raises(ValidationError, match="already plays"):
        services.team_apply(team=team, league=LeagueFactory())

    other = make_team("ika", league=season.league)
    services.application_refuse(team=other)
    other.refresh_from_db()
    assert other.entry_status == Team.EntryStatus.REFUSED
    assert not SeasonEntry.objects.filter(team=other).exists()
    services.team_apply(team=other, league=season.league)  # may try again
    assert Team.objects.get(pk=other.pk).entry_status == Team.EntryStatus.PENDING


def test_a_team_accepted_after_the_round_robin_is_drawn_waits_for_next_season():
    season = make_season(4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    late = make_team("kitsune", league=season.league)
    assert services.application_accept(team=late) is None
    assert not SeasonEntry.objects.filter(team=late).exists()
    for r in range(1, 4):
        play_round(season, r)
    nxt = services.season_rollover(season=season)
    assert nxt.entries.filter(team=late).exists()


def test_same_name_in_a_league_is_refused():
    season = make_season(0)
    add_team(season.league, name="Shadows")
    stranger = make_team("ika", name="shadows")
    with pytest.raises(ValidationError, match="already in"):
        services.team_apply(team=stranger, league=season.league)


def test_rollover_archives_the_final_table_and_carries_accepted_teams_over():
    season = make_season(4, with_ninja=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    play_round(season, 1, score=lambda h, a: (h % 5, a % 3))
    play_round(season, 2)
    # round 3 left unplayed; one team retires
    teams = [e.team for e in season.entries.select_related("team")]
    Team.objects.filter(pk=teams[3].pk).update(status=Team.Status.RETIRED)
    from league.selectors import league_table

    expected = [row.as_dict() for row in league_table(season)]
    new = services.season_rollover(season=season, name="Autumn", format=Season.Format.SWISS, swiss_rounds=3)
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED and season.finished_at
    assert season.final_table["rows"] == expected
    assert season.final_table["champion"]["team_id"] == expected[0]["team_id"]
    assert [r["position"] for r in season.final_table["rows"]] == [1, 2, 3, 4]
    assert set(Match.objects.filter(season=season, round_number=3).values_list("status", flat=True)) == {"voided"}
    assert Match.objects.filter(season=season, status="confirmed").count() == 4
    assert (new.name, new.format, new.swiss_rounds, new.status) == ("Autumn", "swiss", 3, "open")
    carried = list(new.entries.order_by("seed").values_list("team_id", flat=True))
    assert carried == [r["team_id"] for r in expected if r["team_id"] != teams[3].pk]
    # finishing again changes nothing
    assert services.season_finish(season=season).final_table == season.final_table


def test_rollover_waits_for_results_awaiting_confirmation():
    season = make_season(2)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    play(Match.objects.get(season=season), 1, 0, status=Match.Status.SUBMITTED)
    with pytest.raises(ValidationError, match="confirmation"):
        services.season_rollover(season=season)
    assert Season.objects.get(pk=season.pk).status != Season.Status.FINISHED


def test_downtime_absences_carry_over_into_the_next_season():
    season = make_season(2, with_ninja=True)
    team = season.entries.first().team
    ninja = team.ninjas.get()
    Ninja.objects.filter(pk=ninja.pk).update(misses_games=2, starts_in_healing_house=True)
    new = services.season_rollover(season=season)
    ninja.refresh_from_db()
    assert (ninja.misses_games, ninja.starts_in_healing_house) == (2, True)
    assert new.entries.filter(team=team).exists()


def test_playoff_champion_is_archived():
    season = make_season(2, format=Season.Format.SELF_ARRANGED, playoff_teams=2)
    a, b = [e.team for e in season.entries.select_related("team").order_by("id")]
    play(services.fixture_arrange(season=season, home=a, away=b), 3, 0)
    generate(season, ScheduleRun.Kind.PLAYOFF)
    final = Match.objects.get(season=season, stage="playoff-1")
    play(final, 0, 1)  # b wins the final
    services.on_match_confirmed(final)
    services.season_finish(season=season)
    season.refresh_from_db()
    assert season.final_table["champion"] == {"team_id": b.pk, "team": b.name, "by": "playoffs"}
    assert season.final_table["rows"][0]["team_id"] == a.pk


# --- self-arranged fixtures and challenge choice ----------------------------------------------------


def test_self_arranged_fixture_between_two_entered_teams():
    season = make_season(3, format=Season.Format.SELF_ARRANGED, several_teams_per_owner=True)  # a twin below
    a, b, _c = [e.team for e in season.entries.select_related("team").order_by("id")]
    match = services.fixture_arrange(season=season, home=a, away=b, rng=random.Random(3))
    assert match.round_number is None and match.stage == "" and match.pairing_reason == "arranged by the players"
    assert list(match.sides.values_list("slot", "team_id")) == [(1, a.pk), (2, b.pk)]
    assert match.challenge_roll is not None
    season.refresh_from_db()
    assert season.status == Season.Status.RUNNING
    outsider = make_team("ika")
    with pytest.raises(ValidationError, match="Not in this season"):
        services.fixture_arrange(season=season, home=a, away=outsider)
    twin = add_team(season.league, owner=a.owner)
    with pytest.raises(ValidationError, match="same player"):
        services.fixture_arrange(season=season, home=a, away=twin)
    rr = make_season(2)
    x, y = [e.team for e in rr.entries.select_related("team")]
    with pytest.raises(ValidationError, match="scheduled by the master"):
        services.fixture_arrange(season=rr, home=x, away=y)


def test_challenge_is_set_only_before_kick_off():
    season = make_season(2, format=Season.Format.SELF_ARRANGED)
    a, b = [e.team for e in season.entries.select_related("team")]
    match = services.fixture_arrange(season=season, home=a, away=b)
    search = Challenge.objects.get(name="Search")
    services.fixture_set_challenge(match=match, challenge=search)
    assert Match.objects.get(pk=match.pk).challenge == search
    play(match, 1, 0)
    with pytest.raises(ValidationError):
        services.fixture_set_challenge(match=match, challenge=search)


def test_team_created_into_a_league_is_pending_and_acceptance_enters_it():
    season = make_season(0)
    team = team_services.team_create(
        owner=UserFactory(), name="Late Moon", clan=Clan.objects.get(slug="ika"), league=season.league
    )
    assert team.entry_status == Team.EntryStatus.PENDING
    services.application_accept(team=team)
    assert season.entries.filter(team=team).exists()
    recruit(team, "ika-kaiken")
    assert League.objects.get(pk=season.league_id).teams.count() == 1
