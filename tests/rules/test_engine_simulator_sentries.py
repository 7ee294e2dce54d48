"""Samurai Sentries and lanterns on the simulator's board ("Sentries", rulebook lines 534-547; the
Infiltration and Search challenges; "Setup" lines 81-82 and "Lanterns" line 222).

Affinity tests are scripted where the test needs a given winner or result; everything else runs
through the match's own parts (rules/engine/simulation/challenges/objectives.py, board.py, match.py).
"""

from __future__ import annotations

import random
import zlib

import pytest

from rules.engine.affinity import AffinityTest
from rules.engine.dice import Element
from rules.engine.keywords import FightPolicy, Harm
from rules.engine.simulation import AGGRESSIVE, CAUTIOUS, CHALLENGES, SimNinja, SimTeam
from rules.engine.simulation.board import (
    BOARD,
    BOARD_DEPTH,
    CLEAR_OF_EDGES,
    DEFAULT_GEOMETRY,
    HEALING,
    LANTERNS_MAX,
    LANTERNS_MIN,
    SENTRIES,
    SHRINES_MAX,
    TRAINING,
    Geometry,
)
from rules.engine.simulation.challenges import objectives
from rules.engine.simulation.match import Match

NO_TERRAIN = dict(climb=0.0, rough=0.0, foliage=0.0, shrine=0.0)


def ninja(name, *, attack=3, defense=3, movement=5, affinities=("Water",)):
    return SimNinja(
        ninja_id=zlib.crc32(name.encode()) % 10_000,
        name=name,
        kind="kaiken",
        movement=movement,
        attack=attack,
        defense=defense,
        affinities=affinities,
        keywords=frozenset(),
        abilities=frozenset(),
    )


def match_of(challenge, *rosters, seed=0, geometry=DEFAULT_GEOMETRY, policies=None):
    teams = [SimTeam(i + 1, tuple(r), f"team{i}") for i, r in enumerate(rosters)]
    return Match(teams, CHALLENGES[challenge], random.Random(seed), None, FightPolicy(), geometry, policies)


def on_board(match):
    """Every model enters; the sentries are deployed (team 0 first), out of everybody's way."""
    match.journal.round = 1
    for m in match.board.models:
        match.board.enter(m)
    match.rules.setup(0)
    return {m.name: m for m in match.board.models}


def at(match, m, depth):
    """Put ``m`` at ``depth`` in the first team's frame."""
    match.board.disengage(m)
    m.progress = match.board.frame(m, depth)


def only(match, *keep):
    """Every sentry but ``keep`` (indices) goes to the Healing House (Delay 9: it stays there)."""
    for s in match.board.sentries:
        if s.index not in keep:
            s.where, s.delay = HEALING, 9
    return [match.board.sentries[i] for i in keep]


def scripted(monkeypatch, matches_by_affinity):
    """Affinity tests in the sentry rules: ``matches`` icons by the first affinity tested."""

    def fake(affinities, *, rng, **kw):
        e = Element(affinities[0])
        n = matches_by_affinity[e.value]
        return AffinityTest(e, (e,) * n + (Element.VOID,) * (3 - n), n, 1, n >= 1)

    monkeypatch.setattr(objectives, "affinity_test", fake)


# -- deployment ------------------------------------------------------------------------------


@pytest.mark.parametrize(("challenge", "objects"), [("infiltration", [8, 13]), ("search", [9] * 6)])
def test_six_sentries_deploy_within_two_spaces_of_what_they_guard_one_at_a_time(challenge, objects):
    match = match_of(challenge, [ninja("a")], [ninja("b")])
    match.setup()
    sentries = match.board.sentries
    assert len(sentries) == SENTRIES == 6
    assert match.rules.guarded() == objects
    for s in sentries:
        assert s.where == BOARD
        assert abs(s.position - objects[s.guards]) <= 2
    deploys = [line for line in match.journal.log if "deploys Samurai Sentry" in line]
    teams = [line.split(" deploys")[0].split(": ")[1] for line in deploys]
    first = match.tname(match.initiative)
    other = match.tname(1 - match.initiative)
    assert teams == [first, other] * 3  # in turn from the initiative player
    counts = [sum(1 for s in sentries if s.guards == k) for k in range(len(objects))]
    assert max(counts) - min(counts) <= 1  # spread over the objects


def test_brawl_has_no_sentries():
    match = match_of("brawl", [ninja("a")], [ninja("b")])
    match.setup()
    assert match.board.sentries == []


# -- who activates a sentry ------------------------------------------------------------------


@pytest.mark.parametrize(("blue", "red", "winner"), [(2, 1, 0), (0, 3, 1), (1, 1, "initiative")])
def test_the_opposed_affinity_test_says_who_activates_a_sentry_and_a_tie_goes_to_the_initiative(
    monkeypatch, blue, red, winner
):
    match = match_of("search", [ninja("a", affinities=("Fire",))], [ninja("b", affinities=("Air",))])
    on_board(match)
    scripted(monkeypatch, {"Fire": blue, "Air": red})
    for initiative in (0, 1):
        match.initiative = initiative
        expected = initiative if winner == "initiative" else winner
        assert match.rules.sentry_player() == expected


def test_a_sentry_is_activated_after_every_team_has_had_a_turn_and_the_rest_before_the_round_ends(monkeypatch):
    match = match_of(
        "search", [ninja("a1"), ninja("a2")], [ninja("b1"), ninja("b2")], geometry=Geometry(lantern=0.0, **NO_TERRAIN)
    )
    on_board(match)
    scripted(monkeypatch, {"Water": 1})  # every test tied: the initiative player (team 0) activates
    activations = []
    real = match.rules.activate_sentry

    def spy(s, t):
        activations.append((len([x for x in match.board.models if x.activated]), t, s.index))
        real(s, t)

    match.rules.activate_sentry = spy
    match.initiative = 0
    match.play_round()
    # two models a team: one sentry after each of the two rounds of turns, the other four at the end
    assert [n for n, _t, _s in activations] == [2, 4, 4, 4, 4, 4]
    assert [t for _n, t, _s in activations] == [0, 0, 0, 1, 0, 1]  # the rest: the teams in turn
    assert sorted(s for _n, _t, s in activations) == list(range(SENTRIES))
    assert all(s.activated for s in match.board.sentries)


# -- what an activated sentry does ------------------------------------------------------------


def test_a_sentry_attacks_the_closest_model_it_sees_within_five_spaces():
    match = match_of("search", [ninja("near"), ninja("hidden"), ninja("far")], [ninja("foe")])
    m = on_board(match)
    (s,) = only(match, 0)
    s.position = 9
    at(match, m["hidden"], 10)
    m["hidden"].stealth = True  # no LoS to a model in Stealth
    at(match, m["near"], 12)
    at(match, m["far"], 13)
    at(match, m["foe"], 15)  # six spaces: out of sight
    assert match.rules.sentry_target(s, 1) is m["near"]
    match.rules.activate_sentry(s, 1)
    assert s.position == 11  # moved next to it
    assert any("Samurai Sentry 1 attacks near" in line for line in match.journal.log)
    assert s.activated


def test_equidistant_models_the_activating_player_sends_the_sentry_at_another_teams_model():
    match = match_of("search", [ninja("blue")], [ninja("red")])
    m = on_board(match)
    (s,) = only(match, 0)
    s.position = 9
    at(match, m["blue"], 7)
    at(match, m["red"], 11)
    assert match.rules.sentry_target(s, 0) is m["red"]
    assert match.rules.sentry_target(s, 1) is m["blue"]


def test_a_sentry_that_sees_nobody_moves_at_most_three_spaces_and_searches(monkeypatch):
    match = match_of("search", [ninja("sneak")], [ninja("foe")])
    m = on_board(match)
    (s,) = only(match, 0)
    s.position = 9
    at(match, m["sneak"], 4)  # five spaces, but in Stealth
    m["sneak"].stealth = True
    at(match, m["foe"], 17)  # eight spaces
    scripted(monkeypatch, {"Water": 1})
    match.rules.activate_sentry(s, 1)
    assert s.position == 6  # three spaces toward the hidden enemy of the activating team
    assert m["sneak"].stealth  # not yet within its influence zone: no search result
    s.activated = False
    match.rules.activate_sentry(s, 1)
    assert s.position == 5  # next to it
    assert not m["sneak"].stealth  # searched out
    assert not any("attacks" in line for line in match.journal.log)


def test_a_failed_search_leaves_the_model_in_stealth(monkeypatch):
    match = match_of("search", [ninja("sneak")], [ninja("foe")])
    m = on_board(match)
    (s,) = only(match, 0)
    s.position = 6
    at(match, m["sneak"], 5)
    m["sneak"].stealth = True
    at(match, m["foe"], 17)
    scripted(monkeypatch, {"Water": 0})
    match.rules.activate_sentry(s, 1)
    assert m["sneak"].stealth


def test_the_activating_player_picks_a_sentry_that_attacks_an_enemy_before_one_that_attacks_its_own_model():
    match = match_of("search", [ninja("blue")], [ninja("red")])
    m = on_board(match)
    s0, s1 = only(match, 0, 1)
    s0.position, s1.position = 5, 14
    at(match, m["blue"], 4)
    at(match, m["red"], 15)
    assert match.rules.choose_sentry(0) is s1
    assert match.rules.choose_sentry(1) is s0


def test_sentries_assist_each_other(monkeypatch):
    match = match_of("search", [ninja("victim", defense=1)], [ninja("foe")])
    m = on_board(match)
    s0, s1, s2 = only(match, 0, 1, 2)
    at(match, m["victim"], 9)
    at(match, m["foe"], 18)
    s0.position, s1.position, s2.position = 10, 8, 4  # s2 is not next to the victim
    seen = []
    real = objectives.fight

    def spy(attacker, defender, *, context, **kw):
        seen.append(context.assists_attacker)
        return real(attacker, defender, context=context, **kw)

    monkeypatch.setattr(objectives, "fight", spy)
    m["victim"].moon = 1  # Moon Power: it stays on the board for the second attack
    match.rules.sentry_attack(s0, m["victim"], 1)
    assert seen == [1]
    s1.stun = 1  # a Stunned sentry does not assist
    at(match, m["victim"], 9)
    match.rules.sentry_attack(s0, m["victim"], 1)
    assert seen == [1, 0]


# -- Injured sentries: Healing House, Delay, redeployment --------------------------------------


def test_an_injured_sentry_goes_to_the_healing_house_with_two_delay_and_is_redeployed_when_they_are_gone():
    match = match_of("infiltration", [ninja("hero")], [ninja("foe")])
    m = on_board(match)
    s = match.board.sentries[0]
    match.rules.harm_sentry(s, Harm.INJURED, by=m["hero"])
    assert (s.where, s.delay) == (HEALING, 2)
    assert m["hero"].injuries == 1  # sentries are enemy models
    match.rules.upkeep()  # end of the round it was Injured in: still Delayed
    assert s.where == HEALING
    match.rules.start_round()
    assert s.delay == 1
    match.rules.upkeep()
    assert s.where == HEALING
    match.rules.start_round()
    assert s.delay == 0
    match.rules.upkeep()  # no Delay left: Training Ground, then deployed before anything else
    assert s.where == BOARD
    assert abs(s.position - match.rules.guarded()[s.guards]) <= 2


def test_three_stuns_injure_a_sentry():
    match = match_of("search", [ninja("hero")], [ninja("foe")])
    m = on_board(match)
    s = match.board.sentries[0]
    for _ in range(3):
        match.rules.harm_sentry(s, Harm.STUNNED, by=m["hero"])
    assert (s.where, s.delay, s.stun) == (HEALING, 2, 0)


def test_a_stunned_sentry_removes_its_tokens_and_moves_or_attacks_not_both():
    match = match_of("search", [ninja("target")], [ninja("foe")])
    m = on_board(match)
    (s,) = only(match, 0)
    s.position, s.stun = 9, 2
    at(match, m["target"], 12)
    at(match, m["foe"], 18)
    match.rules.activate_sentry(s, 1)
    assert s.stun == 0
    assert s.position == 11
    assert not any("attacks" in line for line in match.journal.log)


# -- Infiltration: medals on the ground --------------------------------------------------------


def test_an_injured_carrier_drops_the_medal_where_it_stood_and_a_sentry_returns_it_to_its_goal():
    match = match_of("infiltration", [ninja("thief")], [ninja("foe")])
    m = on_board(match)
    (s,) = only(match, 0)
    rules = match.rules
    at(match, m["thief"], 4)
    m["thief"].carrying, rules.medals_home[0] = 0, False
    match.referee.injure(m["thief"], by=None)
    assert rules.loose == {0: 4}
    assert rules.medals_home[0]  # free to pick up again
    at(match, m["foe"], 18)
    s.position = 8  # the medal is four spaces away, nobody in sight
    rules.activate_sentry(s, 1)
    assert rules.loose == {}
    assert s.position == 5
    assert any("returns a medal to its goal space" in line for line in match.journal.log)


def test_a_sentry_goes_for_a_loose_medal_only_when_it_is_closer_than_any_model_it_sees():
    match = match_of("infiltration", [ninja("guard")], [ninja("foe")])
    m = on_board(match)
    (s,) = only(match, 0)
    rules = match.rules
    rules.loose[1] = 3
    s.position = 8
    at(match, m["guard"], 10)  # two spaces: closer than the medal (five)
    at(match, m["foe"], 18)
    rules.activate_sentry(s, 1)
    assert rules.loose == {1: 3}
    assert s.position == 9  # went for the model


def test_a_model_picks_up_a_loose_medal_where_it_lies():
    match = match_of("infiltration", [ninja("runner")], [ninja("foe")])
    m = on_board(match)
    rules = match.rules
    rules.loose[0] = 4
    at(match, m["runner"], 2)
    at(match, m["foe"], 18)
    only(match)
    rules.go_for_medal(m["runner"], 5, False)
    assert m["runner"].carrying == 0
    assert rules.loose == {}
    assert match.score.points[0] == 1


# -- lanterns --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "policies",
    [
        (CAUTIOUS, CAUTIOUS),
        (AGGRESSIVE, AGGRESSIVE),
        (CAUTIOUS, AGGRESSIVE),
        (AGGRESSIVE, CAUTIOUS, AGGRESSIVE),
        (CAUTIOUS, CAUTIOUS, CAUTIOUS, CAUTIOUS),
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_four_to_six_lanterns_and_at_most_four_shrines_at_least_two_spaces_from_the_edges(policies, seed):
    rosters = [[ninja(f"m{i}")] for i in range(len(policies))]
    match = match_of("brawl", *rosters, seed=seed, policies=list(policies))
    match.setup()
    lanterns, shrines = match.board.lanterns, match.board.shrines
    assert LANTERNS_MIN <= len(lanterns) <= LANTERNS_MAX
    assert len(shrines) <= SHRINES_MAX
    assert all(CLEAR_OF_EDGES <= d <= BOARD_DEPTH - CLEAR_OF_EDGES for d in lanterns)
    want = max(p.lanterns for p in policies)
    assert len(lanterns) == max(LANTERNS_MIN, min(LANTERNS_MAX, want))
    placements = [line for line in match.journal.log if "places a" in line]
    assert placements[0].split(": ")[1].startswith(match.tname(match.initiative))  # the initiative player first


def test_each_team_places_its_lanterns_where_its_policy_says():
    match = match_of("brawl", [ninja("a")], [ninja("b")], policies=[CAUTIOUS, CAUTIOUS])
    match.setup()
    # cautious: the free depth nearest five spaces from its own edge (team 0: depth 5, team 1: 13),
    # on a tie the one nearer the middle
    assert sorted(match.board.lanterns) == [4, 5, 6, 12, 13, 14]
    match = match_of("brawl", [ninja("a")], [ninja("b")], policies=[CAUTIOUS, AGGRESSIVE])
    match.setup()
    # aggressive: thirteen from its own edge (team 1: depth 5 as well); six lanterns, as the cautious
    # team wants
    assert sorted(match.board.lanterns) == [3, 4, 5, 6, 7, 8]


@pytest.mark.parametrize("team", [0, 1])
def test_a_model_in_stealth_that_moves_within_one_space_of_a_lantern_loses_stealth(team):
    lit = Geometry(lantern=1.0, **NO_TERRAIN)
    match = match_of("brawl", [ninja("blue")], [ninja("red")], geometry=lit)
    m = on_board(match)
    walker = m["blue"] if team == 0 else m["red"]
    match.board.lanterns.append(match.board.frame(walker, 7))
    walker.progress = 0
    walker.stealth = True
    match.board.move(walker, 5, goal=5)  # ends two spaces short of the lantern
    assert walker.stealth
    match.board.move(walker, 1, goal=6)  # within one space
    assert not walker.stealth
    assert any("loses Stealth to a lantern" in line for line in match.journal.log)


def test_a_move_past_a_lantern_in_another_lane_keeps_stealth():
    dark = Geometry(lantern=0.0, **NO_TERRAIN)
    match = match_of("brawl", [ninja("blue")], [ninja("red")], geometry=dark)
    m = on_board(match)
    match.board.lanterns.append(6)
    m["blue"].progress, m["blue"].stealth = 0, True
    match.board.move(m["blue"], 8, goal=8)
    assert m["blue"].stealth


def test_no_lantern_no_light():
    lit = Geometry(lantern=1.0, **NO_TERRAIN)
    match = match_of("brawl", [ninja("blue")], [ninja("red")], geometry=lit)
    m = on_board(match)
    match.board.lanterns.clear()
    m["blue"].progress, m["blue"].stealth = 0, True
    match.board.move(m["blue"], 8, goal=8)
    assert m["blue"].stealth


def test_sentries_are_in_the_training_ground_before_set_up():
    match = match_of("infiltration", [ninja("a")], [ninja("b")])
    assert all(s.where == TRAINING for s in match.board.sentries)


@pytest.mark.parametrize("challenge", ["infiltration", "search"])
@pytest.mark.parametrize("seed", [3, 4])
def test_in_a_whole_game_every_sentry_on_the_board_activates_exactly_once_a_round(challenge, seed):
    from tests.rules.simulator_rosters import sim_team
    from tests.rules.test_engine_simulator_policies import TORA

    match = Match(
        [sim_team(1, TORA), sim_team(2, TORA)],
        CHALLENGES[challenge],
        random.Random(seed),
        None,
        FightPolicy(),
        DEFAULT_GEOMETRY,
    )
    rules = match.rules
    expected, activated = {}, []
    start, activate = rules.start_round, rules.activate_sentry

    def on_start():
        start()
        expected[match.journal.round] = sorted(s.index for s in match.board.sentries if s.on_board)

    def on_activate(s, t):
        activated.append((match.journal.round, s.index))
        activate(s, t)

    rules.start_round, rules.activate_sentry = on_start, on_activate
    result = match.play()
    assert result.rounds_played == CHALLENGES[challenge].rounds
    for rnd, on_board_then in expected.items():
        this_round = [i for r, i in activated if r == rnd]
        assert len(this_round) == len(set(this_round))  # never twice
        assert set(this_round) <= set(on_board_then)
        # one left out only when it was Injured (by a defender's dice) before its turn came
        injured = {
            i
            for i in range(SENTRIES)
            if any(line.startswith(f"R{rnd}: Samurai Sentry {i + 1} is Injured") for line in result.log)
        }
        assert set(on_board_then) - set(this_round) <= injured
    assert any("Samurai Sentry" in line and "attacks" in line for line in result.log)
