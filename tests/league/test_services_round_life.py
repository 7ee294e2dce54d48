"""Issue 13 part 2, services: round dates, overdue fixtures, rescheduling, editing a pairing
(swaps, the schedule's rules re-checked), forfeits and walkovers, replays of voided fixtures."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.core.exceptions import ValidationError

from league import readmodel, scheduling, selectors, services
from league.models import BracketSlot, Bye, Round, ScheduleRun, Season, SeasonEntry
from league.selectors import league_table
from matches import services as match_services
from matches.models import Match
from teams.models import Team, TreasuryEntry, XpEvent
from tests.factories import LeagueFactory
from tests.league.helpers import add_team, generate, home_away, make_season, play, play_round

pytestmark = pytest.mark.usefixtures("catalog")

TODAY = dt.date(2026, 3, 10)


def teams_of(season):
    return [e.team for e in season.entries.select_related("team").order_by("id")]


def round_fixtures(season, number):
    return list(Match.objects.filter(season=season, stage="", round_number=number).order_by("id"))


def pairs(season, number):
    return {frozenset(home_away(m)) for m in round_fixtures(season, number) if m.status != Match.Status.VOIDED}


# --- dates and overdue -----------------------------------------------------------------------------


def test_round_robin_dates_are_set_when_the_schedule_is_made_one_interval_apart():
    season = make_season(4)
    run = services.schedule_request(
        season=season,
        kind=ScheduleRun.Kind.ROUND_ROBIN,
        seed=1,
        starts_on=dt.date(2026, 3, 1),
        deadline=dt.date(2026, 3, 7),
        interval_days=14,
    )
    services.schedule_generate(run_id=run.pk)
    rounds = {r.round_number: (r.starts_on, r.deadline) for r in Round.objects.filter(season=season)}
    assert rounds == {
        1: (dt.date(2026, 3, 1), dt.date(2026, 3, 7)),
        2: (dt.date(2026, 3, 15), dt.date(2026, 3, 21)),
        3: (dt.date(2026, 3, 29), dt.date(2026, 4, 4)),
    }


def test_a_schedule_without_dates_makes_no_round_rows_and_bad_dates_are_refused():
    season = make_season(4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    assert not Round.objects.filter(season=season).exists()
    with pytest.raises(ValidationError, match="deadline cannot come before"):
        services.schedule_request(
            season=season,
            kind=ScheduleRun.Kind.ROUND_ROBIN,
            starts_on=dt.date(2026, 3, 8),
            deadline=dt.date(2026, 3, 1),
        )


def test_fixtures_inherit_the_rounds_dates_unless_they_have_their_own_and_overdue_is_flagged():
    season = make_season(4, format=Season.Format.RANDOM_WEEKLY)
    generate(season, ScheduleRun.Kind.RANDOM_WEEKLY)
    services.round_set_dates(
        season=season, stage="", round_number=1, starts_on=dt.date(2026, 3, 1), deadline=dt.date(2026, 3, 7)
    )
    first, second = round_fixtures(season, 1)
    services.fixture_reschedule(match=second, date=dt.date(2026, 3, 12), deadline=dt.date(2026, 3, 14), place="Dojo")
    groups = selectors.season_rounds(season, today=TODAY)
    (group,) = groups
    by_pk = {m.pk: m for m in group.matches}
    assert (group.starts_on, group.deadline, group.overdue) == (dt.date(2026, 3, 1), dt.date(2026, 3, 7), 1)
    assert (by_pk[first.pk].starts_on, by_pk[first.pk].due, by_pk[first.pk].overdue) == (
        dt.date(2026, 3, 1),
        dt.date(2026, 3, 7),
        True,
    )
    assert (by_pk[second.pk].starts_on, by_pk[second.pk].due, by_pk[second.pk].overdue) == (
        dt.date(2026, 3, 12),
        dt.date(2026, 3, 14),
        False,
    )
    play(first, 2, 1)  # played: never overdue
    (group,) = selectors.season_rounds(season, today=TODAY)
    assert group.overdue == 0


def test_round_dates_can_be_changed_and_cleared_but_only_for_a_drawn_round():
    season = make_season(4, format=Season.Format.RANDOM_WEEKLY)
    with pytest.raises(ValidationError, match="has not been drawn"):
        services.round_set_dates(season=season, stage="", round_number=1, starts_on=TODAY)
    generate(season, ScheduleRun.Kind.RANDOM_WEEKLY)
    services.round_set_dates(season=season, stage="", round_number=1, deadline=TODAY)
    services.round_set_dates(season=season, stage="", round_number=1)
    assert Round.objects.get(season=season).deadline is None
    with pytest.raises(ValidationError):
        services.round_set_dates(season=season, stage="", round_number=1, starts_on=TODAY, deadline=dt.date(2026, 1, 1))


def test_rescheduling_marks_the_fixture_and_is_refused_once_kicked_off():
    season = make_season(2, format=Season.Format.SELF_ARRANGED, with_ninja=True)
    a, b = teams_of(season)
    match = services.fixture_arrange(season=season, home=a, away=b)
    moved = services.fixture_reschedule(match=match, date=TODAY, place="  The  Tea House ")
    assert (moved.date, moved.place) == (TODAY, "The  Tea House") and moved.rescheduled_at is not None
    Match.objects.filter(pk=match.pk).update(kicked_off_at=moved.rescheduled_at)
    with pytest.raises(ValidationError, match="not yet kicked off"):
        services.fixture_reschedule(match=match, date=TODAY)


# --- editing a pairing ------------------------------------------------------------------------------


def test_pairing_violations_is_a_pure_check():
    v = scheduling.pairing_violations(
        [(1, 2), (3, 1), (4, 5)],
        owners={1: "x", 2: "y", 3: "z", 4: "w", 5: "w"},
        meetings={frozenset((1, 3)): 1},
        max_meetings=1,
        scores={1: 3, 2: 3, 3: 0, 4: 0, 5: 0},
        everyone=[1, 2, 3, 4, 5, 6, 7],
        byes=[7],
    )
    assert [(x.rule, x.teams) for x in v] == [
        ("plays_twice", (1,)),
        ("rematch", (3, 1)),
        ("score_groups", (3, 1)),
        ("same_owner", (4, 5)),
        ("unpaired", (6,)),
    ]
    assert scheduling.pairing_violations([(1, 2)], owners={}, meetings={frozenset((1, 2)): 5}, max_meetings=None) == []


def test_taking_a_team_from_another_fixture_swaps_them():
    season = make_season(4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    m1, m2 = round_fixtures(season, 1)
    a, b = home_away(m1)
    c, d = home_away(m2)
    teams = Team.objects.in_bulk([a, b, c, d])
    plan = services.pairing_plan(match=m1, home=teams[a], away=teams[c])
    assert len(plan.changes) == 2 and plan.changes[0].startswith("Round 1: ")
    # a v c and b v d meet again later in the round robin: a rematch for each
    assert len(plan.violations) == 2 and all("rematch" in v for v in plan.violations)
    with pytest.raises(ValidationError, match="rematch"):
        services.fixture_edit_pairing(match=m1, home=teams[a], away=teams[c])
    assert pairs(season, 1) == {frozenset((a, b)), frozenset((c, d))}  # nothing changed
    services.fixture_edit_pairing(match=m1, home=teams[a], away=teams[c], accept_violations=True)
    assert home_away(m1) == (a, c) and home_away(m2) == (b, d)
    m1.refresh_from_db()
    assert m1.pairing_reason == "pairing edited by the master"


def test_swapping_home_and_away_breaks_no_rule():
    season = make_season(4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    m1 = round_fixtures(season, 1)[0]
    a, b = home_away(m1)
    teams = Team.objects.in_bulk([a, b])
    plan = services.fixture_edit_pairing(match=m1, home=teams[b], away=teams[a])
    assert plan.violations == [] and home_away(m1) == (b, a)


def test_a_team_taken_from_the_bye_hands_the_bye_on():
    season = make_season(3, format=Season.Format.RANDOM_WEEKLY)
    generate(season, ScheduleRun.Kind.RANDOM_WEEKLY)
    (match,) = round_fixtures(season, 1)
    a, b = home_away(match)
    bye = Bye.objects.get(season=season)
    teams = Team.objects.in_bulk([a, b, bye.team_id])
    plan = services.fixture_edit_pairing(match=match, home=teams[a], away=teams[bye.team_id])
    assert plan.violations == []
    assert any("bye passes" in c for c in plan.changes)
    assert home_away(match) == (a, bye.team_id)
    assert Bye.objects.get(season=season).team_id == b


def test_a_swiss_edit_across_score_groups_and_a_same_player_game_are_violations():
    season = make_season(4, format=Season.Format.SWISS, swiss_rounds=3)
    generate(season, ScheduleRun.Kind.SWISS)
    play_round(season, 1)
    generate(season, ScheduleRun.Kind.SWISS)
    m1, m2 = round_fixtures(season, 2)  # winners v winners, losers v losers
    a, _b = home_away(m1)
    c, _d = home_away(m2)
    teams = Team.objects.in_bulk([a, c])
    Team.objects.filter(pk=c).update(owner=teams[a].owner)
    teams = Team.objects.in_bulk([a, c])
    plan = services.pairing_plan(match=m1, home=teams[a], away=teams[c])
    text = " ".join(plan.violations)
    assert "different scores" in text and "same player" in text


def test_pairing_edits_are_refused_for_played_kicked_off_and_playoff_fixtures():
    season = make_season(4, playoff_teams=2)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    m1, m2 = round_fixtures(season, 1)
    a, b = home_away(m1)
    c, _d = home_away(m2)
    teams = Team.objects.in_bulk([a, b, c])
    play(m2, 1, 0)
    with pytest.raises(ValidationError, match="already played"):
        services.pairing_plan(match=m1, home=teams[a], away=teams[c])
    with pytest.raises(ValidationError, match="not yet kicked off"):
        services.pairing_plan(match=m2, home=teams[a], away=teams[c])
    with pytest.raises(ValidationError, match="pairing already"):
        services.pairing_plan(match=m1, home=teams[a], away=teams[b])
    outsider = add_team(LeagueFactory())
    with pytest.raises(ValidationError, match="Not in this season"):
        services.pairing_plan(match=m1, home=teams[a], away=outsider)


# --- forfeits ---------------------------------------------------------------------------------------


def forfeit_season(**rules):
    season = make_season(3, format=Season.Format.SELF_ARRANGED, with_ninja=True, **rules)
    a, b, c = teams_of(season)
    match = services.fixture_arrange(season=season, home=a, away=b)
    return season, match, a, b, c


def test_a_walkover_scores_a_win_and_the_win_revenue_by_default_and_no_sequence():
    season, match, a, b, _c = forfeit_season()
    before = {t.pk: t.treasury for t in (a, b)}
    master = season.league.master
    done = services.fixture_forfeit(match=match, forfeiting=[b.pk], reason="No-show", actor=master)
    assert done.status == Match.Status.FORFEITED and done.forfeit_reason == "No-show"
    assert done.confirmed_by == master and done.sequence_applied_at is None
    sides = {s.team_id: s for s in done.sides.all()}
    assert (sides[a.pk].outcome, sides[a.pk].koban_earned, sides[b.pk].outcome) == ("win", 10, "loss")
    a.refresh_from_db(), b.refresh_from_db()
    assert (a.treasury - before[a.pk], b.treasury - before[b.pk]) == (10, 0)
    entry = TreasuryEntry.objects.get(match=done)
    assert entry.reason == TreasuryEntry.Reason.REVENUE and "forfeited" in entry.note
    assert not XpEvent.objects.filter(match=done).exists()
    assert not done.downtime_results.exists() and not done.upkeep_decisions.exists()
    rows = {r.team.pk: r for r in league_table(season)}
    assert (rows[a.pk].points, rows[a.pk].won, rows[a.pk].played) == (3, 1, 1)
    assert (rows[b.pk].points, rows[b.pk].lost) == (0, 1)


def test_forfeit_points_and_revenue_follow_the_house_rules():
    season, match, a, b, _c = forfeit_season(points_forfeit_win=2, points_forfeit_loss=1, revenue_forfeit_win=4)
    services.fixture_forfeit(match=match, forfeiting=[a.pk], reason="Forfeit")
    rows = {r.team.pk: r for r in league_table(season)}
    assert (rows[b.pk].points, rows[a.pk].points) == (2, 1)
    b.refresh_from_db()
    assert TreasuryEntry.objects.get(match=match).amount == 4
    # head-to-head counts the forfeit's points too
    assert selectors.head_to_head(season) == {(b.pk, a.pk): 2, (a.pk, b.pk): 1}


def test_a_double_forfeit_is_two_losses_and_no_koban():
    _season, match, a, b, _c = forfeit_season()
    services.fixture_forfeit(match=match, forfeiting=[a.pk, b.pk], reason="Neither came")
    assert {s.outcome for s in match.sides.all()} == {"loss"}
    assert not TreasuryEntry.objects.filter(match=match).exists()


def test_a_forfeit_is_refused_for_a_submitted_played_or_outside_fixture_and_needs_a_reason():
    _season, match, a, _b, c = forfeit_season()
    with pytest.raises(ValidationError, match="Say why"):
        services.fixture_forfeit(match=match, forfeiting=[a.pk], reason="  ")
    with pytest.raises(ValidationError, match="Choose a side"):
        services.fixture_forfeit(match=match, forfeiting=[c.pk], reason="x")
    Match.objects.filter(pk=match.pk).update(status=Match.Status.SUBMITTED)
    with pytest.raises(ValidationError, match="waits for confirmation"):
        services.fixture_forfeit(match=match, forfeiting=[a.pk], reason="x")
    Match.objects.filter(pk=match.pk).update(status=Match.Status.CONFIRMED)
    with pytest.raises(ValidationError, match="not yet played"):
        services.fixture_forfeit(match=match, forfeiting=[a.pk], reason="x")


def test_a_playoff_forfeit_sends_the_winner_through():
    season = make_season(2, playoff_teams=2)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    play_round(season, 1)
    generate(season, ScheduleRun.Kind.PLAYOFF)
    slot = BracketSlot.objects.get(season=season)
    with pytest.raises(ValidationError, match="needs a winner"):
        services.fixture_forfeit(match=slot.match, forfeiting=[slot.home_id, slot.away_id], reason="x")
    services.fixture_forfeit(match=slot.match, forfeiting=[slot.home_id], reason="Injured team")
    services.playoffs_advance(season=season)
    slot.refresh_from_db()
    assert slot.winner_id == slot.away_id


def test_a_forfeit_can_be_voided_giving_the_koban_back_then_replayed():
    season, match, a, b, _c = forfeit_season()
    master = season.league.master
    services.fixture_forfeit(match=match, forfeiting=[b.pk], reason="No-show", actor=master)
    a.refresh_from_db()
    treasury = a.treasury
    assert match_services.void_refusal(Match.objects.get(pk=match.pk)) is None
    match_services.match_void(match=match, actor=master, reason="Wrong team marked")
    a.refresh_from_db()
    assert a.treasury == treasury - 10
    replay = services.fixture_replay(match=match, actor=master)
    assert replay.replay_of_id == match.pk and home_away(replay) == (a.pk, b.pk)
    assert replay.status == Match.Status.SCHEDULED and replay.round_number is None


# --- replays ---------------------------------------------------------------------------------------


def test_a_voided_fixture_is_replayed_once_in_its_round_with_its_challenge():
    season = make_season(4, with_ninja=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    match = round_fixtures(season, 2)[0]
    Match.objects.filter(pk=match.pk).update(status=Match.Status.VOIDED, void_reason="Played wrongly")
    match.refresh_from_db()
    replay = services.fixture_replay(match=match)
    assert (replay.round_number, replay.stage, replay.challenge_id) == (2, "", match.challenge_id)
    assert home_away(replay) == home_away(match)
    assert "replay of the voided fixture" in replay.pairing_reason
    with pytest.raises(ValidationError, match="replayed already"):
        services.fixture_replay(match=match)
    with pytest.raises(ValidationError, match="Only a voided fixture"):
        services.fixture_replay(match=replay)


def test_a_replayed_playoff_game_takes_its_place_in_the_bracket():
    season = make_season(2, playoff_teams=2)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    play_round(season, 1)
    generate(season, ScheduleRun.Kind.PLAYOFF)
    slot = BracketSlot.objects.get(season=season)
    Match.objects.filter(pk=slot.match_id).update(status=Match.Status.VOIDED)
    replay = services.fixture_replay(match=slot.match)
    slot.refresh_from_db()
    assert slot.match_id == replay.pk and replay.stage == "playoff-1"
    assert services.playoffs_advance(season=season) == []  # nothing more to replay


def test_no_replay_once_the_season_is_over():
    season, match, _a, _b, _c = forfeit_season()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.VOIDED)
    services.season_finish(season=season)
    with pytest.raises(ValidationError, match="season is over"):
        services.fixture_replay(match=Match.objects.get(pk=match.pk))


def test_the_automatic_playoff_replay_records_what_it_replays():
    season = make_season(2, playoff_teams=2)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    play_round(season, 1)
    generate(season, ScheduleRun.Kind.PLAYOFF)
    slot = BracketSlot.objects.get(season=season)
    voided = slot.match_id
    Match.objects.filter(pk=voided).update(status=Match.Status.VOIDED)
    (made,) = services.playoffs_advance(season=season, rng=random.Random(1))
    assert made.replay_of_id == voided


# --- the read model (league/readmodel.py) follows forfeits and byes ---------------------------------


def stored(season):
    return {e.team_id: {f: getattr(e, f) for f in SeasonEntry.STANDING_FIELDS} for e in season.entries.all()}


def test_a_forfeit_and_its_void_keep_the_stored_table_in_step():
    season, match, a, b, _c = forfeit_season(points_forfeit_win=2)
    master = season.league.master
    services.fixture_forfeit(match=match, forfeiting=[b.pk], reason="No-show", actor=master)
    assert stored(season) == readmodel.fresh_standings(season)
    assert stored(season)[a.pk]["points"] == 2 and stored(season)[a.pk]["won"] == 1
    match_services.match_void(match=match, actor=master, reason="Mistake")
    assert stored(season) == readmodel.fresh_standings(season)
    assert stored(season)[a.pk]["points"] == 0


def test_swiss_byes_are_stored_and_move_with_a_pairing_edit():
    season = make_season(3, format=Season.Format.SWISS, swiss_rounds=2)
    generate(season, ScheduleRun.Kind.SWISS)
    bye = Bye.objects.get(season=season)
    assert stored(season)[bye.team_id]["points"] == 3 and stored(season)[bye.team_id]["byes"] == 1
    assert stored(season) == readmodel.fresh_standings(season)
    (match,) = round_fixtures(season, 1)
    a, b = home_away(match)
    teams = Team.objects.in_bulk([a, bye.team_id])
    services.fixture_edit_pairing(match=match, home=teams[a], away=teams[bye.team_id], accept_violations=True)
    assert stored(season) == readmodel.fresh_standings(season)
    assert stored(season)[b]["byes"] == 1 and stored(season)[bye.team_id]["byes"] == 0
