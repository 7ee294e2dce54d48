"""Simulating a fixture (matches.simulation): the same post-game sequence as an entered result,
determinism from the seed, the post-game policy, idempotency, and a bounded number of queries."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from matches import services, simulation
from matches.models import DiceRoll, Match, MatchNinja, SimulationRun
from notifications.models import Kind, Notification
from rules.engine import league as rules_league
from rules.engine import simulator as engine
from rules.engine.house_rules import HouseRules
from rules.engine.records import MatchRecord, TeamRecord
from rules.models import Challenge
from teams.models import Advancement, AdvancementRoll, Ninja, Team, TreasuryEntry, XpEvent
from tests.simulation.helpers import on_the_edge_of_a_level, roster_team

pytestmark = pytest.mark.django_db


def test_a_simulated_fixture_goes_through_the_post_game_sequence(brawl_match, league, two_teams):
    before = {t.pk: Team.objects.get(pk=t.pk).treasury for t in two_teams}
    run = simulation.simulate_match(match=brawl_match, seed=11, actor=league.master)
    match = Match.objects.get(pk=brawl_match.pk)
    assert match.status == Match.Status.CONFIRMED and match.simulated and match.sequence_applied_at
    assert match.seed == 11 and run.seed == 11 and run.match_id == match.pk
    sides = list(match.sides.order_by("slot"))
    # the record: every roster row has a MatchNinja; points and outcomes as the simulator played them
    for side in sides:
        assert {mn.ninja_id for mn in side.ninjas.all()} == {row["id"] for row in side.roster_snapshot}
        assert side.outcome in ("win", "draw", "loss") and side.points is not None
        stars = sum(mn.all_star_awards for mn in side.ninjas.all())
        assert stars == min(1 + side.extra_all_stars, sum(mn.played for mn in side.ninjas.all()))
    assert sum(s.outcome == "win" for s in sides) in (0, 1)
    # revenue through the ledger, balances in step
    for side in sides:
        entries = list(TreasuryEntry.objects.filter(match=match, team_id=side.team_id))
        assert sum(e.amount for e in entries) == side.koban_earned
        team = Team.objects.get(pk=side.team_id)
        assert team.treasury == before[side.team_id] + side.koban_earned
        assert entries[-1].balance_after == team.treasury
    # XP: events equal what the match record earned (plus a Water downtime bonus)
    for mn in MatchNinja.objects.filter(side__match=match):
        events = XpEvent.objects.filter(match=match, ninja_id=mn.ninja_id)
        water = match.downtime_results.filter(ninja_id=mn.ninja_id, xp_bonus__gt=0).first()
        assert sum(e.amount for e in events) == mn.xp_gained + (water.xp_bonus if water else 0)
        assert Ninja.objects.get(pk=mn.ninja_id).xp == sum(e.amount for e in events)
    # downtime for exactly the models that ended in the Healing House
    hh = set(MatchNinja.objects.filter(side__match=match, in_healing_house=True).values_list("ninja_id", flat=True))
    assert set(match.downtime_results.values_list("ninja_id", flat=True)) == hh
    assert DiceRoll.objects.filter(match=match, purpose="downtime").count() == len(hh)
    # what the simulator did is stored: the log and every die
    assert run.log and run.dice and run.rounds_played >= 1
    assert sum(s["dice"] for s in run.dice_summary.values()) == sum(len(d[3]) for d in run.dice)


def test_the_stored_seed_replays_the_match(brawl_match, league):
    run = simulation.simulate_match(match=brawl_match, seed=2024, actor=league.master)
    match = Match.objects.get(pk=brawl_match.pk)
    sides = list(match.sides.select_related("team").order_by("slot"))
    replay = engine.simulate_match(
        simulation.sim_teams(sides),
        simulation.sim_challenge(match.challenge),
        rng=random.Random(f"{run.seed}:simulation"),
        underdog=simulation.underdog_for(sides),
    )
    assert list(replay.log) == run.log
    assert [[d.round, d.kind, d.model, list(d.faces)] for d in replay.dice] == run.dice
    assert [t.points for t in replay.record.teams] == [s.points for s in sides]


def _outcome(match_id: int) -> tuple:
    match = Match.objects.get(pk=match_id)
    sides = [(s.points, s.outcome, s.koban_earned) for s in match.sides.order_by("slot")]
    feats = list(
        MatchNinja.objects.filter(side__match=match)
        .order_by("ninja_id")
        .values_list(
            "ninja_id",
            "played",
            "injuries",
            "chunin_stuns",
            "reveals",
            "challenge_feats",
            "in_healing_house",
            "all_star_awards",
            "xp_gained",
        )
    )
    dice = list(DiceRoll.objects.filter(match=match).order_by("id").values_list("purpose", "ninja_id", "faces"))
    advancements = list(
        Advancement.objects.filter(roll__match=match)
        .order_by("id")
        .values_list("ninja_id", "kind", "keyword__name", "affinity")
    )
    return sides, feats, dice, advancements, match.simulation.log


def test_same_seed_same_result(brawl_match, league):
    on_the_edge_of_a_level([s.team for s in brawl_match.sides.all()])

    class Rollback(Exception):
        pass

    outcomes = []
    for _ in range(2):
        try:
            with transaction.atomic():
                simulation.simulate_match(match=brawl_match, seed=77, actor=league.master)
                outcomes.append(_outcome(brawl_match.pk))
                raise Rollback
        except Rollback:
            pass
    assert Match.objects.get(pk=brawl_match.pk).status == Match.Status.SCHEDULED
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][3], "the policy took advancements"
    # and another seed plays another game
    simulation.simulate_match(match=brawl_match, seed=78, actor=league.master)
    assert _outcome(brawl_match.pk)[4] != outcomes[0][4]


def test_simulating_a_played_match_is_a_no_op(brawl_match, league):
    assert simulation.simulate_match(match=brawl_match, seed=3, actor=league.master) is not None
    counts = (TreasuryEntry.objects.count(), XpEvent.objects.count(), SimulationRun.objects.count())
    with CaptureQueriesContext(connection) as ctx:
        assert simulation.simulate_match(match=brawl_match, seed=4, actor=league.master) is None
    assert len(ctx.captured_queries) <= 3
    assert (TreasuryEntry.objects.count(), XpEvent.objects.count(), SimulationRun.objects.count()) == counts
    assert Match.objects.get(pk=brawl_match.pk).seed == 3


def test_policy_auto_takes_every_advancement_roll(brawl_match, league, django_capture_on_commit_callbacks):
    teams = [s.team for s in brawl_match.sides.all()]
    on_the_edge_of_a_level(teams)
    with django_capture_on_commit_callbacks(execute=True):
        run = simulation.simulate_match(match=brawl_match, seed=5, actor=league.master, policy="auto")
    rolls = AdvancementRoll.objects.filter(match=brawl_match).select_related("advancement__keyword")
    assert rolls.exists()
    assert not rolls.filter(status=AdvancementRoll.Status.PENDING).exists()
    # Nobody is asked to choose a roll the policy took.
    assert not Notification.objects.filter(kind=Kind.ADVANCEMENT).exists()
    assert Advancement.objects.filter(roll__in=rolls).count() == rolls.count()
    chosen = {c["roll"]: c["choice"] for c in run.decisions["advancements"]}
    assert set(chosen) == {r.pk for r in rolls}
    for roll in rolls:
        adv = roll.advancement
        kind, _, what = chosen[roll.pk].partition(":")
        assert adv.kind == (kind if kind != "attribute" else what)
        assert what in (adv.keyword.name if adv.keyword_id else "", adv.affinity, adv.kind)
        if roll.is_doubles and roll.faces[0] in ("Fire", "Void"):
            assert adv.kind == Advancement.Kind.ATTACK
        if not roll.is_doubles:
            assert adv.kind == Advancement.Kind.KEYWORD


def test_policy_pending_leaves_the_rolls_to_the_players(brawl_match, league, django_capture_on_commit_callbacks):
    on_the_edge_of_a_level([s.team for s in brawl_match.sides.all()])
    with django_capture_on_commit_callbacks(execute=True):
        run = simulation.simulate_match(match=brawl_match, seed=5, actor=league.master, policy="pending")
    rolls = AdvancementRoll.objects.filter(match=brawl_match)
    assert rolls.exists() and all(r.faces for r in rolls)
    assert set(rolls.values_list("status", flat=True)) == {AdvancementRoll.Status.PENDING}
    # Each roll's owner is told, once the match's transaction committed.
    told = Notification.objects.filter(kind=Kind.ADVANCEMENT)
    assert sorted(told.values_list("user_id", flat=True)) == sorted(r.ninja.team.owner_id for r in rolls)
    assert not Advancement.objects.exists() and run.decisions["advancements"] == []
    # a player can still choose from the page's service
    roll = rolls.first()
    option = services.advancement_options_for(roll)[0]
    services.advancement_choose(roll=roll, choice=services.option_key(option))


#: A slice of the Appendix keyword lists: keyword -> category.
CATEGORIES = {
    "Close Combat Master": "General",
    "Focus": "General",
    "Fire Mastery": "Fire",
    "Dauntless": "Earth",
    "Resilient": "Unique",
    "Ranged Master": "General",
}


@pytest.mark.parametrize(
    ("faces", "expected"),
    [
        (["Fire", "Fire"], "attribute:attack"),
        (["Void", "Void"], "attribute:attack"),
        (["Water", "Water"], "attribute:defense"),
        (["Spirit", "Spirit"], "attribute:defense"),
        (["Air", "Air"], "attribute:movement"),
        (["Earth", "Earth"], "affinity:Spirit"),  # the first element the model lacks, in die order
        (["Fire", "Water"], "keyword:Close Combat Master"),
    ],
)
def test_choose_advancement_policy(faces, expected):
    options = rules_league.advancement_options(
        faces, affinities=["Fire"], current_keywords=[], keyword_categories=CATEGORIES
    )
    assert services.option_key(simulation.choose_advancement(options, affinities=["Fire"])) == expected


def test_choose_advancement_keyword_preferences():
    categories = {**CATEGORIES, "Accurate": "Air"}

    def pick(affinities, owned, ranged=False):
        options = rules_league.advancement_options(
            ["Fire", "Water"], affinities=affinities, current_keywords=owned, keyword_categories=categories
        )
        return simulation.choose_advancement(options, affinities=affinities, ranged=ranged).keyword

    assert pick(["Fire"], []) == "Close Combat Master"
    assert pick(["Fire"], ["Close Combat Master"]) == "Fire Mastery"  # the model's element Mastery next
    assert pick(["Earth"], ["Close Combat Master"]) == "Dauntless"
    assert pick(["Water"], ["Close Combat Master"]) == "Focus"
    assert pick(["Fire"], [], ranged=True) == "Ranged Master"
    assert pick(["Air"], ["Ranged Master"], ranged=True) == "Accurate"
    assert "Resilient" not in {pick(["Fire"], list(categories)[:k]) for k in range(len(categories) - 2)}


def test_upkeep_policy_pays_while_the_treasury_covers_it():
    def side(team_id, treasury, ronin_fees, bonus=0):
        rows = [
            {"id": team_id * 10 + i, "is_ronin": True, "upkeep": fee, "profile_slug": "tengu"}
            for i, fee in enumerate(ronin_fees)
        ]
        rows.append({"id": team_id * 10 + 9, "is_ronin": False, "upkeep": 0, "profile_slug": "tora-kaiken"})
        return SimpleNamespace(
            team_id=team_id, team=SimpleNamespace(treasury=treasury), roster_snapshot=rows, bonus_koban=bonus
        )

    record = MatchRecord(teams=(TeamRecord(team_id=1, points=3), TeamRecord(team_id=2, points=1)))
    rules = HouseRules(revenue_win=10, revenue_draw=8, revenue_loss=6)
    decisions = simulation.upkeep_policy(
        sides=[side(1, 0, [5, 6]), side(2, 0, [5, 3], bonus=2)], record=record, rules=rules
    )
    # winner: 0 + 10 covers 5, then 5 left does not cover 6; loser: 6 + 2 covers 5, then 3 covers 3
    assert decisions == {10: "pay", 11: "release", 20: "pay", 21: "pay"}


def test_a_ronin_the_treasury_cannot_keep_is_released(league):
    from teams.services import treasury_correct

    picks = [("tanchyo-chunin", 1), ("tanchyo-kaiken", 1), ("tanchyo-yajiri", 2), ("tengu", 1)]  # a legal roster
    cranes = roster_team(league, "tanchyo", picks, name="Cranes")
    tigers = roster_team(league, "tora", [("tora-chunin", 1), ("tora-kaiken", 2)], name="Tigers")
    cranes.refresh_from_db()
    treasury_correct(team=cranes, amount=-cranes.treasury, note="test: spent it all", actor=league.master)
    match = services.match_create(teams=[cranes, tigers], challenge=Challenge.objects.get(slug="brawl"), league=league)
    # the team earns at most 10 + its underdog koban: a fee of 5 is paid only when the team can
    run = simulation.simulate_match(match=match, seed=9, actor=league.master)
    tengu = Ninja.objects.get(team=cranes, profile__slug="tengu")
    decision = match.upkeep_decisions.get(ninja=tengu)
    side = match.sides.get(team=cranes)
    assert run.decisions["upkeep"] == {str(tengu.pk): "pay" if side.koban_earned >= 5 else "release"}
    assert decision.paid == (side.koban_earned >= 5)
    assert (tengu.status == Ninja.Status.ACTIVE) == decision.paid


def test_a_fixture_without_a_challenge_gets_one_from_its_seed(two_teams, league):
    match = services.match_create(teams=list(two_teams), league=league)
    simulation.simulate_match(match=match, seed=13, actor=league.master)
    match.refresh_from_db()
    assert match.challenge is not None and match.status == Match.Status.CONFIRMED
    assert match.simulation.log


@pytest.mark.parametrize(
    "slug",
    [
        "assassination",
        "intercept-the-messenger",
        "champion",
        "king-of-the-hill",
        "infiltration",
        "search",
        "capture-the-medal",
    ],
)
def test_every_challenge_gives_a_valid_record(two_teams, league, slug):
    match = services.match_create(teams=list(two_teams), challenge=Challenge.objects.get(slug=slug), league=league)
    simulation.simulate_match(match=match, seed=21, actor=league.master)
    assert Match.objects.get(pk=match.pk).status == Match.Status.CONFIRMED


def test_absent_and_healing_house_models_are_simulated_as_such(brawl_match, league, two_teams):
    home = two_teams[0]
    absent, hurt = list(Ninja.objects.filter(team=home).order_by("id"))[1:3]
    Ninja.objects.filter(pk=absent.pk).update(misses_games=1)
    Ninja.objects.filter(pk=hurt.pk).update(starts_in_healing_house=True)
    simulation.simulate_match(match=brawl_match, seed=8, actor=league.master)
    rows = {mn.ninja_id: mn for mn in MatchNinja.objects.filter(side__match=brawl_match)}
    assert not rows[absent.pk].played
    assert Ninja.objects.get(pk=absent.pk).misses_games == 0  # this game counted as the one missed
    assert rows[hurt.pk].in_healing_house or rows[hurt.pk].played


# --- bounded queries -----------------------------------------------------------------------------

# the smallest legal roster (a team with an illegal one cannot kick off) and a bigger one
SMALL = [("tora-chunin", 1), ("tora-kaiken", 2), ("tora-byakko", 1), ("tora-yajiri", 1), ("tora-kunoichi", 1)]
BIG = [("tora-chunin", 1), ("tora-kaiken", 3), ("tora-byakko", 1), ("tora-yajiri", 1), ("tora-kunoichi", 2)]


def _queries_for(league, picks, name: str, seed: int) -> int:
    home = roster_team(league, "tora", picks, name=f"{name} home")
    away = roster_team(league, "tora", picks, name=f"{name} away")
    on_the_edge_of_a_level([home, away])
    match = services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)
    with CaptureQueriesContext(connection) as ctx:
        simulation.simulate_match(match=match, seed=seed, actor=league.master, policy="auto")
    # the same kinds of rows are written in both games: Healing House, XP, advancement rolls
    assert match.downtime_results.exists() and AdvancementRoll.objects.filter(match=match).exists()
    return len(ctx.captured_queries)


def test_queries_per_simulated_match_do_not_grow_with_the_roster(league):
    small = _queries_for(league, SMALL, "Small", seed=31)
    big = _queries_for(league, BIG, "Big", seed=31)
    assert sum(n for _, n in BIG) > sum(n for _, n in SMALL)
    assert small == big, (small, big)
    assert big <= 70
