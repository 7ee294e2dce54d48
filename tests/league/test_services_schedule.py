"""Schedule generation through league.services, checked in the database (Match rows)."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from django.core.exceptions import ValidationError

from league import services
from league.models import BracketSlot, Bye, ScheduleRun, Season, SeasonEntry
from matches.models import DiceRoll, Match
from rules.models import Challenge
from tests.factories import UserFactory
from tests.league.helpers import add_team, generate, home_away, make_season, pairs_of, play, play_round, regular

pytestmark = pytest.mark.usefixtures("catalog")
RR = ScheduleRun.Kind.ROUND_ROBIN

# FIDE Berger tables (Handbook C.05, Annex 1), seeds "white-black" by round.
BERGER = {
    4: ["1-4 2-3", "4-3 1-2", "2-4 3-1"],
    6: ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"],
}


def seeded_rounds(season: Season) -> dict[int, set[tuple[int, int]]]:
    seed = dict(SeasonEntry.objects.filter(season=season).values_list("team_id", "seed"))
    rounds: dict[int, set[tuple[int, int]]] = {}
    for match in Match.objects.filter(season=season):
        h, a = home_away(match)
        rounds.setdefault(match.round_number, set()).add((seed[h], seed[a]))
    return rounds


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8, 11, 16])
def test_round_robin_creates_every_round_as_match_rows(n):
    season = make_season(n)
    run = generate(season, RR)
    assert run.status == ScheduleRun.Status.DONE
    rounds = n - 1 if n % 2 == 0 else n
    matches = list(regular(season))
    assert len(matches) == n * (n - 1) // 2 == run.total == run.done
    # every pair exactly once
    pairs = Counter(pairs_of(matches))
    team_ids = list(season.entries.values_list("team_id", flat=True))
    assert set(pairs) == {frozenset(p) for p in combinations(team_ids, 2)}
    assert set(pairs.values()) == {1}
    # no team twice in a round; every round has n // 2 games
    by_round: dict[int, list[int]] = {}
    for m in matches:
        assert m.status == Match.Status.SCHEDULED and m.league_id == season.league_id and m.stage == ""
        by_round.setdefault(m.round_number, []).extend(s.team_id for s in m.sides.all())
    assert sorted(by_round) == list(range(1, rounds + 1))
    for teams in by_round.values():
        assert len(teams) == len(set(teams)) == 2 * (n // 2)
    # odd counts: one bye per round, each team exactly once
    byes = list(Bye.objects.filter(season=season).values_list("round_number", "team_id"))
    if n % 2:
        assert sorted(r for r, _ in byes) == list(range(1, rounds + 1))
        assert sorted(t for _, t in byes) == sorted(team_ids)
        for r, t in byes:
            assert t not in by_round[r]
    else:
        assert byes == []
    # home and away balanced (Berger: within one)
    home = Counter(home_away(m)[0] for m in matches)
    counts = [home.get(t, 0) for t in team_ids]
    assert max(counts) - min(counts) <= 1
    season.refresh_from_db()
    assert season.status == Season.Status.RUNNING


@pytest.mark.parametrize("n", sorted(BERGER))
def test_round_robin_rounds_are_the_fide_berger_tables(n):
    season = make_season(n)
    # seed the entries in entry order, as the master (or a rollover) would
    for seed, entry in enumerate(season.entries.order_by("id"), start=1):
        SeasonEntry.objects.filter(pk=entry.pk).update(seed=seed)
    generate(season, RR)
    expected = {
        r: {tuple(int(x) for x in game.split("-")) for game in line.split()}
        for r, line in enumerate(BERGER[n], start=1)
    }
    assert seeded_rounds(season) == expected


def test_double_round_robin_second_cycle_is_reversed():
    season = make_season(6, format=Season.Format.DOUBLE_ROUND_ROBIN)
    generate(season, RR)
    rounds = seeded_rounds(season)
    assert len(rounds) == 10
    for r in range(1, 6):
        assert rounds[r + 5] == {(a, h) for h, a in rounds[r]}
    assert Counter(Counter(pairs_of(regular(season))).values()) == {2: 15}


def test_unseeded_entries_are_drawn_with_the_run_seed_and_keep_their_seeds():
    season = make_season(6)
    run = generate(season, RR, seed=7)
    seeds = sorted(season.entries.values_list("seed", flat=True))
    assert seeds == [1, 2, 3, 4, 5, 6]
    assert run.seed == 7


def test_generating_twice_leaves_one_schedule():
    season = make_season(6)
    run = services.schedule_request(season=season, kind=RR, seed=1)
    again = services.schedule_request(season=season, kind=RR, round_number=0)
    assert again.pk == run.pk
    services.schedule_generate(run_id=run.pk)
    services.schedule_generate(run_id=run.pk)
    assert Match.objects.filter(season=season).count() == 15
    assert ScheduleRun.objects.filter(season=season).count() == 1
    # a new request after the schedule exists finds the same run, never a second schedule
    assert services.schedule_request(season=season, kind=RR).pk == run.pk
    assert Match.objects.filter(season=season).count() == 15


def test_a_run_marked_pending_but_whose_fixtures_exist_is_only_marked_done():
    season = make_season(4)
    run = generate(season, RR)
    ScheduleRun.objects.filter(pk=run.pk).update(status=ScheduleRun.Status.PENDING)
    again = services.schedule_generate(run_id=run.pk)
    assert again.status == ScheduleRun.Status.DONE
    assert Match.objects.filter(season=season).count() == 6


def test_round_robin_needs_two_teams_and_the_right_format():
    season = make_season(1)
    with pytest.raises(ValidationError, match="two teams"):
        services.schedule_request(season=season, kind=RR)
    weekly = make_season(4, format=Season.Format.RANDOM_WEEKLY)
    with pytest.raises(ValidationError):
        services.schedule_request(season=weekly, kind=RR)


def test_each_fixture_rolls_the_random_challenge_generator_reproducibly():
    season = make_season(8)
    generate(season, RR, seed=123)
    matches = list(Match.objects.filter(season=season).order_by("id"))
    names = set(Challenge.objects.values_list("name", flat=True))
    rolls = []
    for m in matches:
        roll = m.challenge_roll
        assert roll["column"] == (1 if roll["first"] in ("Void", "Fire", "Air") else 2)
        if roll["second"] in ("Void", "Spirit"):
            assert m.challenge_id is None
            assert m.challenge_chooser == ("player1" if roll["second"] == "Void" else "player2")
        else:
            assert m.challenge.name in names and m.challenge.name == roll["challenge"]
            assert m.challenge_chooser == ""
        assert list(m.dice_rolls.filter(purpose=DiceRoll.Purpose.CHALLENGE).values_list("faces", flat=True)) == [
            [roll["first"], roll["second"]]
        ]
        rolls.append((roll["first"], roll["second"]))
    # the same seed replays the same draws
    other = make_season(8)
    generate(other, RR, seed=123)
    assert [
        (m.challenge_roll["first"], m.challenge_roll["second"])
        for m in Match.objects.filter(season=other).order_by("id")
    ] == rolls


def test_a_challenge_set_by_the_master_replaces_the_generator():
    season = make_season(4)
    brawl = Challenge.objects.get(name="Brawl")
    generate(season, RR, challenge=brawl)
    assert set(
        Match.objects.filter(season=season).values_list("challenge__name", "challenge_chooser", "challenge_roll")
    ) == {("Brawl", "", None)}
    assert not DiceRoll.objects.filter(match__season=season).exists()


def test_fixture_create_sets_player_slots_and_chooser():
    season = make_season(2)
    home, away = [e.team for e in season.entries.select_related("team")]
    # find a seed whose draw makes a player choose
    for seed in range(200):
        rng = random.Random(seed)
        from rules.engine.league import random_challenge

        if random_challenge(rng=rng).chooser == "player2":
            break
    match = services.fixture_create(season=season, round_number=1, home=home, away=away, rng=random.Random(seed))
    assert home_away(match) == (home.pk, away.pk)
    assert match.challenge is None and match.challenge_chooser == "player2"
    assert match.challenge_roll["second"] == "Spirit"
    with pytest.raises(ValidationError):
        services.fixture_create(season=season, round_number=1, home=home, away=home, rng=random.Random(1))


# --- random weekly -------------------------------------------------------------------------------


def test_random_weekly_meets_everyone_before_a_rematch_and_never_pairs_one_players_teams():
    season = make_season(0, format=Season.Format.RANDOM_WEEKLY, several_teams_per_owner=True)
    twin_owner = UserFactory()
    twins = [add_team(season.league, owner=twin_owner), add_team(season.league, owner=twin_owner)]
    for _ in range(4):
        add_team(season.league)
    allowed = {frozenset(p) for p in combinations(season.entries.values_list("team_id", flat=True), 2)}
    allowed.discard(frozenset(t.pk for t in twins))
    seen: list[frozenset] = []
    for r in range(1, 5):  # 14 allowed pairs, 3 games a week: the first 4 weeks have no rematch
        run = generate(season, ScheduleRun.Kind.RANDOM_WEEKLY, seed=r)
        assert run.round_number == r and run.status == ScheduleRun.Status.DONE
        week = pairs_of(Match.objects.filter(season=season, round_number=r).prefetch_related("sides"))
        assert len(week) == 3
        seen.extend(week)
        play_round(season, r)
    assert len(seen) == len(set(seen)), "a rematch while new opponents were available"
    assert set(seen) <= allowed


def test_random_weekly_waits_for_the_round_to_be_played_and_gives_byes_fairly():
    season = make_season(5, format=Season.Format.RANDOM_WEEKLY)
    generate(season, ScheduleRun.Kind.RANDOM_WEEKLY)
    with pytest.raises(ValidationError, match="played"):
        services.schedule_request(season=season, kind=ScheduleRun.Kind.RANDOM_WEEKLY)
    play_round(season, 1)
    for r in range(2, 6):
        generate(season, ScheduleRun.Kind.RANDOM_WEEKLY, seed=r)
        play_round(season, r)
    byes = Counter(Bye.objects.filter(season=season).values_list("team_id", flat=True))
    assert sorted(byes.values()) == [1, 1, 1, 1, 1]


def test_random_weekly_impossible_pairing_fails_the_run_with_the_reason():
    season = make_season(0, format=Season.Format.RANDOM_WEEKLY, several_teams_per_owner=True)
    owner = UserFactory()
    add_team(season.league, owner=owner)
    add_team(season.league, owner=owner)
    run = generate(season, ScheduleRun.Kind.RANDOM_WEEKLY)
    assert run.status == ScheduleRun.Status.FAILED
    assert "same owner" in run.error
    assert not Match.objects.filter(season=season).exists()
    # asking again retries the same run
    again = services.schedule_request(season=season, kind=ScheduleRun.Kind.RANDOM_WEEKLY, round_number=1)
    assert again.pk == run.pk and again.status == ScheduleRun.Status.PENDING


# --- swiss ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [7, 8])
def test_swiss_pairs_from_confirmed_standings_without_rematches(n):
    season = make_season(n, format=Season.Format.SWISS, swiss_rounds=4)
    rng = random.Random(n)
    for r in range(1, 5):
        generate(season, ScheduleRun.Kind.SWISS, seed=r)
        matches = list(Match.objects.filter(season=season, round_number=r))
        assert len(matches) == n // 2
        for m in matches:
            assert m.pairing_reason.startswith(("score group", "pulled up"))
        play_round(season, r, score=lambda h, a: (rng.randint(0, 5), rng.randint(0, 5)))
    pairs = pairs_of(regular(season))
    assert len(pairs) == len(set(pairs))
    byes = list(Bye.objects.filter(season=season).values_list("team_id", "reason"))
    if n % 2:
        assert len(byes) == 4 and len({t for t, _ in byes}) == 4
        assert all(reason.startswith("bye") for _, reason in byes)
    with pytest.raises(ValidationError, match="4 swiss rounds"):
        services.schedule_request(season=season, kind=ScheduleRun.Kind.SWISS)


def test_swiss_round_two_pairs_winners_with_winners():
    season = make_season(4, format=Season.Format.SWISS, swiss_rounds=3)
    generate(season, ScheduleRun.Kind.SWISS)
    play_round(season, 1)  # home wins 3-1
    winners = {home_away(m)[0] for m in Match.objects.filter(season=season, round_number=1)}
    generate(season, ScheduleRun.Kind.SWISS, seed=2)
    second = pairs_of(Match.objects.filter(season=season, round_number=2).prefetch_related("sides"))
    assert frozenset(winners) in second
    reasons = set(Match.objects.filter(season=season, round_number=2).values_list("pairing_reason", flat=True))
    assert reasons == {"score group 1", "score group 2"}


def test_swiss_round_waits_for_confirmed_results():
    season = make_season(4, format=Season.Format.SWISS, swiss_rounds=3)
    generate(season, ScheduleRun.Kind.SWISS)
    first = Match.objects.filter(season=season).first()
    play(first, 2, 1, status=Match.Status.SUBMITTED)
    with pytest.raises(ValidationError, match="played"):
        services.schedule_request(season=season, kind=ScheduleRun.Kind.SWISS)


# --- playoffs ------------------------------------------------------------------------------------


def ranked_season(n: int, **kw) -> tuple[Season, list[int]]:
    """A self-arranged season with the playoffs for all n teams, whose table ranks the teams in
    entry order: team k (0-based) wins n - k games against the next team."""
    season = make_season(n, format=Season.Format.SELF_ARRANGED, playoff_teams=n, **kw)
    teams = [e.team for e in season.entries.select_related("team").order_by("id")]
    for k, team in enumerate(teams):
        for _ in range(n - k):
            m = services.fixture_create(
                season=season, round_number=None, home=team, away=teams[(k + 1) % n], rng=random.Random(k)
            )
            play(m, 3, 0)
    from league.selectors import league_table

    order = [row.team.pk for row in league_table(season)]
    assert order == [t.pk for t in teams]
    return season, order


@pytest.mark.parametrize("n", [4, 8, 16])
def test_playoffs_bracket_seeds_sum_to_n_plus_1_and_one_meets_two_only_in_the_final(n):
    season, order = ranked_season(n)
    run = generate(season, ScheduleRun.Kind.PLAYOFF)
    assert run.status == ScheduleRun.Status.DONE and run.round_number == 1
    seed_of = {team_id: i for i, team_id in enumerate(order, start=1)}
    first = list(BracketSlot.objects.filter(season=season, round_number=1).select_related("match"))
    assert len(first) == n // 2
    for slot in first:
        assert slot.home_seed + slot.away_seed == n + 1
        assert seed_of[slot.home_id] == slot.home_seed and seed_of[slot.away_id] == slot.away_seed
        assert home_away(slot.match) == (slot.home_id, slot.away_id)
        assert slot.match.stage == "playoff-1" and slot.match.round_number == 1
    rounds = n.bit_length() - 1
    for r in range(1, rounds + 1):
        slots = list(BracketSlot.objects.filter(season=season, round_number=r).select_related("match"))
        assert len(slots) == n >> r
        for slot in slots:
            met = {slot.home_seed, slot.away_seed}
            if met == {1, 2}:
                assert r == rounds, "seeds 1 and 2 met before the final"
        for slot in slots:
            play(slot.match, 4, 1)  # the better seed (home) wins
            services.on_match_confirmed(slot.match)
    final = BracketSlot.objects.get(season=season, round_number=rounds)
    assert {final.home_seed, final.away_seed} == {1, 2}
    assert final.winner_id == order[0]
    # nothing after the final, however often it is called
    assert services.playoffs_advance(season=season) == []
    assert BracketSlot.objects.filter(season=season).count() == n - 1


def test_later_playoff_rounds_wait_for_every_result_and_a_draw_sends_the_better_seed_through():
    season, order = ranked_season(4)
    generate(season, ScheduleRun.Kind.PLAYOFF)
    s0, s1 = BracketSlot.objects.filter(season=season, round_number=1).order_by("slot")
    play(s0.match, 2, 2)  # draw: seed 1 goes through
    assert services.on_match_confirmed(s0.match) == []
    assert not BracketSlot.objects.filter(season=season, round_number=2).exists()
    play(s1.match, 0, 1)  # upset: seed 3 beats seed 2
    made = services.on_match_confirmed(s1.match)
    assert len(made) == 1 and made[0].stage == "playoff-2"
    final = BracketSlot.objects.get(season=season, round_number=2)
    assert (final.home_seed, final.away_seed) == (1, 3)
    assert (final.home_id, final.away_id) == (order[0], order[2])
    # calling the hook again creates nothing more
    assert services.on_match_confirmed(s1.match) == []
    assert Match.objects.filter(season=season, stage="playoff-2").count() == 1


def test_a_voided_playoff_game_is_replayed():
    season, _ = ranked_season(4)
    generate(season, ScheduleRun.Kind.PLAYOFF)
    slot = BracketSlot.objects.filter(season=season, round_number=1).first()
    Match.objects.filter(pk=slot.match_id).update(status=Match.Status.VOIDED)
    made = services.playoffs_advance(season=season)
    assert len(made) == 1
    slot.refresh_from_db()
    assert slot.match_id == made[0].pk and "replay" in made[0].pairing_reason


def test_playoffs_with_byes_for_a_non_power_of_two():
    season, _order = ranked_season(6)
    generate(season, ScheduleRun.Kind.PLAYOFF)
    byes = BracketSlot.objects.filter(season=season, round_number=1, away__isnull=True)
    assert sorted(byes.values_list("home_seed", flat=True)) == [1, 2]
    assert all(b.winner_id == b.home_id for b in byes)
    assert Match.objects.filter(season=season, stage="playoff-1").count() == 2


def test_on_match_confirmed_is_a_no_op_for_league_games():
    season = make_season(4)
    generate(season, RR)
    match = Match.objects.filter(season=season).first()
    play(match, 3, 0)
    assert services.on_match_confirmed(match) == []
    assert services.on_match_confirmed(Match(stage="")) == []


def test_playoffs_need_the_regular_season_played():
    season = make_season(4, playoff_teams=4)
    generate(season, RR)
    with pytest.raises(ValidationError, match="regular-season"):
        services.schedule_request(season=season, kind=ScheduleRun.Kind.PLAYOFF)
    for r in range(1, 4):
        play_round(season, r)
    run = generate(season, ScheduleRun.Kind.PLAYOFF)
    assert run.status == ScheduleRun.Status.DONE
    # asking for the round robin again finds the old run: no new regular fixtures
    assert services.schedule_request(season=season, kind=RR).status == ScheduleRun.Status.DONE
    assert Match.objects.filter(season=season, stage="").count() == 6


def test_playoffs_refused_before_the_regular_season_has_a_fixture_and_nothing_is_written():
    """Issue 27, item 3: "every regular fixture played" held when there were none, so a round robin
    season's playoffs could start (a final of seeds 1 and 2, nothing played) before its schedule,
    which could then never be generated."""
    season = make_season(4, playoff_teams=2)
    _, problems = services.schedule_next(season, ScheduleRun.Kind.PLAYOFF)
    assert any("no regular-season fixtures" in p for p in problems)
    with pytest.raises(ValidationError, match="no regular-season fixtures"):
        services.schedule_request(season=season, kind=ScheduleRun.Kind.PLAYOFF)
    assert not ScheduleRun.objects.filter(season=season).exists()
    assert not Match.objects.filter(season=season).exists() and not BracketSlot.objects.filter(season=season).exists()
    # the round robin can still be generated, and the playoffs wait for every fixture of it
    assert services.schedule_next(season, RR)[1] == []
    generate(season, RR)
    assert regular(season).count() == 6
    for r in range(1, 3):
        play_round(season, r)
    with pytest.raises(ValidationError, match="regular-season"):
        services.schedule_request(season=season, kind=ScheduleRun.Kind.PLAYOFF)
    play_round(season, 3)
    assert services.schedule_next(season, ScheduleRun.Kind.PLAYOFF)[1] == []
    assert generate(season, ScheduleRun.Kind.PLAYOFF).status == ScheduleRun.Status.DONE


def test_generation_reports_progress_fixture_by_fixture():
    season = make_season(5)
    run = services.schedule_request(season=season, kind=RR)
    seen = []
    services.schedule_generate(run_id=run.pk, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(i, 10) for i in range(1, 11)]
    # a second run of a done run reports nothing and writes nothing
    seen.clear()
    services.schedule_generate(run_id=run.pk, progress=lambda done, total: seen.append((done, total)))
    assert seen == [] and Match.objects.filter(season=season).count() == 10


def test_the_task_runs_the_service_eagerly():
    from league.tasks import schedule_generate_task

    season = make_season(4)
    run = services.schedule_request(season=season, kind=RR)
    result = schedule_generate_task.apply_async(args=[run.pk], task_id=run.task_id)
    assert result.get() == {"run": run.pk, "status": "done", "done": 6, "total": 6, "error": ""}
    assert schedule_generate_task.delay(run.pk).get()["total"] == 6
    assert Match.objects.filter(season=season).count() == 6
