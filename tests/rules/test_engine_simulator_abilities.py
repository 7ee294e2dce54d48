"""Keywords and special abilities in the simulator: each test sets up the situation on the abstract
board and checks the effect (rules/engine/simulation/abilities.py, actions.py, policy.py, referee.py).

Affinity tests are scripted by replacing the journal's ``test`` (success or failure as the test needs);
everything else runs through the match's own parts.
"""

from __future__ import annotations

import random
import zlib

import pytest

from rules.engine.dice import Element
from rules.engine.keywords import KW, MASTERIES, CombatantSnapshot, FightContext, FightPolicy, Harm, attack_dice, fight
from rules.engine.simulation import AGGRESSIVE, CAUTIOUS, CHALLENGES, SimNinja, SimTeam
from rules.engine.simulation.board import BOARD_DEPTH, DEFAULT_GEOMETRY, STATUS_TOKENS, Geometry, Shrine
from rules.engine.simulation.challenges.objectives import DELAY
from rules.engine.simulation.match import Match
from rules.engine.simulation.policy import attack_reach


def ninja(name, *, kind="kaiken", attack=3, defense=3, movement=5, keywords=(), abilities=(), ranged=None, bonus=0):
    return SimNinja(
        ninja_id=zlib.crc32(name.encode()) % 10_000,
        name=name,
        kind=kind,
        movement=movement,
        attack=attack,
        defense=defense,
        affinities=("Water",),
        keywords=frozenset(keywords),
        abilities=frozenset(abilities),
        ranged=ranged,
        ranged_attack_bonus=bonus,
    )


def setup(blue, red, *, challenge="brawl", seed=0, geometry=DEFAULT_GEOMETRY, tests=None):
    """A match with ``blue`` and ``red`` on the board (all at their edge); ``tests``: the result every
    affinity test gives (None: rolled)."""
    teams = [SimTeam(1, tuple(blue), "blue"), SimTeam(2, tuple(red), "red")]
    match = Match(teams, CHALLENGES[challenge], random.Random(seed), None, FightPolicy(), geometry)
    match.journal.round = 1
    for m in match.board.models:
        match.board.enter(m)
    if tests is not None:
        match.journal.test = lambda m, kind, **kw: tests
    models = {m.name: m for m in match.board.models}
    return match, models


def place(match, m, progress):
    match.board.disengage(m)
    m.progress = progress


def contact(a, b):
    """Put ``a`` and ``b`` (enemies) in contact, facing each other across the board."""
    a.engaged.add(b.uid)
    b.engaged.add(a.uid)
    b.progress = BOARD_DEPTH - a.progress - 1


def apart(match, a, b, spaces):
    """Put enemy ``b`` ``spaces`` away from ``a`` without contact."""
    b.progress = BOARD_DEPTH - a.progress - spaces
    assert match.board.distance(a, b) == spaces


# -- keywords ------------------------------------------------------------------------


def test_healing_removes_every_status_token_from_a_friend_in_the_zone():
    match, m = setup([ninja("healer", keywords=[KW.HEALING]), ninja("hurt")], [ninja("foe")], tests=True)
    place(match, m["healer"], 5)
    place(match, m["hurt"], 6)
    m["hurt"].stun, m["hurt"].poison, m["hurt"].slow = 2, 1, 1
    value, do = match.abilities.action_option(m["healer"])
    assert value > 0
    do()
    assert (m["hurt"].stun, m["hurt"].poison, m["hurt"].slow) == (0, 0, 0)


def test_healing_fails_with_the_test_and_ignores_friends_out_of_the_zone():
    match, m = setup([ninja("healer", keywords=[KW.HEALING]), ninja("hurt")], [ninja("foe")], tests=False)
    place(match, m["healer"], 5)
    place(match, m["hurt"], 6)
    m["hurt"].stun = 2
    match.abilities.action_option(m["healer"])[1]()
    assert m["hurt"].stun == 2
    place(match, m["hurt"], 12)
    m["hurt"].stun = 2
    assert match.abilities.action_option(m["healer"]) == (0.0, None)


def test_sicken_poisons_every_enemy_in_the_zone():
    match, m = setup([ninja("sick", keywords=[KW.SICKEN])], [ninja("a"), ninja("b"), ninja("far")], tests=True)
    contact(m["sick"], m["a"])
    contact(m["sick"], m["b"])
    match.abilities.action_option(m["sick"])[1]()
    assert (m["a"].poison, m["b"].poison, m["far"].poison) == (1, 1, 0)


def test_drown_slows_every_enemy_in_the_zone():
    match, m = setup([ninja("ika", keywords=["Drown"])], [ninja("a"), ninja("far")], tests=True)
    contact(m["ika"], m["a"])
    match.abilities.action_option(m["ika"])[1]()
    assert (m["a"].slow, m["far"].slow) == (1, 0)


def test_entangle_zone_reaches_two_spaces_and_leaving_it_needs_a_dodge():
    match, m = setup([ninja("runner")], [ninja("octopus", keywords=["Entangle"])], tests=False)
    apart(match, m["runner"], m["octopus"], 2)
    start = m["runner"].progress
    match.actions.advance(m["runner"], 5, goal=0)
    assert m["runner"].progress == start and m["runner"].stun == 1  # failed dodge: Stunned, no move
    apart(match, m["runner"], m["octopus"], 3)
    assert match.actions.entanglers(m["runner"]) == []


def test_redirection_turns_a_shot_to_the_attackers_friend():
    match, m = setup(
        [ninja("archer", ranged=6), ninja("buddy", defense=1)], [ninja("mirror", keywords=[KW.REDIRECTION])], tests=True
    )
    place(match, m["archer"], 4)
    place(match, m["buddy"], 6)
    apart(match, m["archer"], m["mirror"], 5)
    assert match.actions.redirect(m["archer"], m["mirror"], 6) is m["buddy"]
    match.journal.test = lambda *a, **k: False
    assert match.actions.redirect(m["archer"], m["mirror"], 6) is m["mirror"]


def test_long_shot_adds_two_spaces_of_range_without_moving():
    match, m = setup([ninja("sniper", ranged=5, keywords=["Long Shot"])], [ninja("far", defense=1)])
    apart(match, m["sniper"], m["far"], 7)
    shot = match.policy.ranged_option(m["sniper"], 0)
    assert (shot.target, shot.kind, shot.need, shot.range) == (m["far"], "Long Shot", 0, 7)
    match2, m2 = setup([ninja("sniper", ranged=5)], [ninja("far", defense=1)])
    apart(match2, m2["sniper"], m2["far"], 7)
    assert match2.policy.ranged_option(m2["sniper"], 0).target is None


def test_wind_in_the_forest_moves_on_toward_the_goal_after_the_attack():
    match, m = setup([ninja("wind", keywords=[KW.WIND_IN_THE_FOREST])], [ninja("foe")], challenge="king-of-the-hill")
    place(match, m["wind"], 2)
    match.actions.wind_in_the_forest(m["wind"], 3)
    assert m["wind"].progress == 5
    brawl, b = setup([ninja("wind", keywords=[KW.WIND_IN_THE_FOREST])], [ninja("foe")])
    place(brawl, b["wind"], 2)
    brawl.actions.wind_in_the_forest(b["wind"], 3)  # Brawl has no goal: the policy stays
    assert b["wind"].progress == 2


# -- special abilities ---------------------------------------------------------------


def test_volcano_pots_stuns_the_target_and_every_model_adjacent_to_it():
    match, m = setup(
        [ninja("madoushi", abilities=["Volcano Pots"]), ninja("friend")],
        [ninja("a"), ninja("b"), ninja("far")],
        tests=True,
    )
    place(match, m["madoushi"], 5)
    place(match, m["friend"], 6)
    contact(m["friend"], m["a"])
    m["b"].progress = m["a"].progress
    contact(m["friend"], m["b"])  # b shares the friend's contact with a: adjacent to a
    apart(match, m["madoushi"], m["far"], 9)
    _value, do = match.abilities.action_option(m["madoushi"])
    do()
    assert (m["a"].stun, m["b"].stun, m["friend"].stun, m["far"].stun) == (1, 1, 1, 0)


def test_dragons_breath_stuns_front_zone_models_that_fail_the_test():
    match, m = setup([ninja("ryu", abilities=["Dragon's Breath"])], [ninja("front"), ninja("back")], tests=False)
    contact(m["ryu"], m["front"])
    contact(m["ryu"], m["back"])
    m["ryu"].behind.add(m["back"].uid)
    match.abilities.action_option(m["ryu"])[1]()
    assert (m["front"].stun, m["back"].stun) == (1, 0)


def test_healing_mist_stuns_the_madoushi_and_clears_two_friends():
    friends = [ninja("f1"), ninja("f2"), ninja("f3")]
    match, m = setup([ninja("mist", abilities=["Healing Mist"]), *friends], [ninja("foe")])
    for name, stun in (("f1", 2), ("f2", 1), ("f3", 1)):
        m[name].stun = stun
    place(match, m["mist"], 4)
    place(match, m["f3"], 9)  # five spaces away: out of reach
    match.abilities.action_option(m["mist"])[1]()
    assert (m["mist"].stun, m["f1"].stun, m["f2"].stun, m["f3"].stun) == (1, 0, 0, 1)


def test_wanderlust_moves_the_enemy_off_a_stunned_friend():
    match, m = setup([ninja("fox", abilities=["Wanderlust"]), ninja("friend")], [ninja("bully")], tests=True)
    place(match, m["friend"], 6)
    contact(m["friend"], m["bully"])
    m["friend"].stun = 2
    place(match, m["fox"], 3)
    before = m["bully"].progress
    match.abilities.action_option(m["fox"])[1]()
    assert not m["bully"].engaged and m["bully"].progress == before - 4


def test_amazing_awareness_reveals_hidden_enemies_within_eight():
    match, m = setup([ninja("mizaru", abilities=["Amazing Awareness"])], [ninja("near"), ninja("far")])
    m["near"].stealth = m["far"].stealth = True
    place(match, m["mizaru"], 5)
    apart(match, m["mizaru"], m["near"], 8)
    apart(match, m["mizaru"], m["far"], 10)
    match.abilities.action_option(m["mizaru"])[1]()
    assert (m["near"].stealth, m["far"].stealth) == (False, True)


def test_spirit_power_makes_dodges_out_of_the_zone_fail():
    match, m = setup([ninja("chunin", kind="chunin", abilities=["Spirit Power"])], [ninja("foe")], tests=True)
    contact(m["chunin"], m["foe"])
    match.abilities.action_option(m["chunin"])[1]()
    assert m["chunin"].spirit_power
    assert match.actions.dodge(m["foe"]) is False and m["foe"].stun == 1
    m["chunin"].new_round()
    assert match.actions.dodge(m["foe"]) is True


def test_allure_holds_the_chosen_enemy_in_her_zone():
    match, m = setup([ninja("tamamo", abilities=["Allure"])], [ninja("foe")], tests=True)
    contact(m["tamamo"], m["foe"])
    match.actions.at_round_start(m["tamamo"])
    assert m["foe"].allured_by == m["tamamo"].uid
    assert match.actions.dodge(m["foe"]) is False and m["foe"].stun == 0
    assert match.policy.dodge_chance(m["foe"]) == 0.0


def test_blessing_of_the_tengu_gives_friends_in_the_zone_one_attack():
    match, m = setup([ninja("tengu", abilities=["Blessing of the Tengu"]), ninja("friend")], [ninja("foe")], tests=True)
    place(match, m["tengu"], 6)
    place(match, m["friend"], 7)
    contact(m["friend"], m["foe"])
    match.abilities.action_option(m["tengu"])[1]()
    assert m["friend"].attack_mod == 1


def test_skull_hex_takes_one_defense_to_a_minimum_of_one():
    match, m = setup(
        [ninja("hex", abilities=["Skull Hex"]), ninja("friend")],
        [ninja("target", defense=3), ninja("weak", defense=1)],
        tests=True,
    )
    place(match, m["friend"], 6)
    contact(m["friend"], m["target"])
    m["weak"].progress = m["target"].progress
    contact(m["friend"], m["weak"])
    place(match, m["hex"], 3)
    match.abilities.skull_hex(m["hex"])[1]()
    assert m["target"].defense_mod == -1 and m["weak"].ninja.defense + m["weak"].defense_mod == 1


def test_foul_weather_limits_ranged_attacks_to_four_spaces():
    match, m = setup([ninja("ika", abilities=["Foul Weather"])], [ninja("archer", ranged=8)], tests=True)
    assert match.policy.shot_range(m["archer"], 8) == 8
    match.abilities.action_option(m["ika"])[1]()
    assert match.policy.shot_range(m["archer"], 8) == 4


def test_undertow_pulls_a_stunned_friend_out_of_contact():
    match, m = setup([ninja("ika", abilities=["Undertow"]), ninja("friend")], [ninja("foe")], tests=True)
    place(match, m["ika"], 3)
    place(match, m["friend"], 6)
    contact(m["friend"], m["foe"])
    m["friend"].stun = 1
    match.abilities.undertow(m["ika"])
    assert not m["friend"].engaged and m["friend"].progress == 3


def test_spirit_senses_reveal_hidden_enemies_after_moving():
    match, m = setup([ninja("oni", abilities=["Spirit Senses"])], [ninja("hidden")], tests=True)
    m["hidden"].stealth = True
    m["hidden"].progress = 8
    match.actions.advance(m["oni"], 10)
    assert match.board.distance(m["oni"], m["hidden"]) == 1 and not m["hidden"].stealth


def test_elixir_of_courage_hands_the_protect_token_to_a_friend_in_a_fight():
    match, m = setup(
        [ninja("komuso", keywords=[KW.TOUGH], abilities=["Elixir of Courage"]), ninja("friend")], [ninja("foe")]
    )
    place(match, m["friend"], 3)
    contact(m["friend"], m["foe"])
    m["komuso"].protect = 1
    match.abilities.elixir_of_courage(m["komuso"])
    assert (m["komuso"].protect, m["friend"].protect) == (0, 1)


def test_wind_walk_escapes_contact_without_a_dodge_and_stuns_the_madoushi():
    match, m = setup([ninja("walker", abilities=["Wind Walk"]), ninja("friend")], [ninja("foe")], tests=False)
    place(match, m["walker"], 6)
    place(match, m["friend"], 6)
    contact(m["walker"], m["foe"])
    match.actions.run(m["walker"], 5)
    assert not m["walker"].engaged and m["walker"].stun == 0 and m["friend"].progress == m["walker"].progress
    match.actions.end_activation(m["walker"])
    assert m["walker"].stun == 1


def test_binding_bride_stops_a_model_entering_her_zone():
    match, m = setup([ninja("runner")], [ninja("jorogumo", abilities=["Binding Bride"])])
    m["jorogumo"].progress = 10
    match.board.move(m["runner"], 12, goal=18)
    assert m["runner"].progress == BOARD_DEPTH - 10 - 1 and m["jorogumo"].uid in m["runner"].engaged


@pytest.mark.parametrize(("ability", "reach"), [("Fisherman's Spear", 2), ("Ika's Anchor", 3), (None, 1)])
def test_reach_attacks_hit_from_a_distance_without_contact(ability, reach):
    match, m = setup([ninja("spear", abilities=[ability] if ability else [])], [ninja("foe", defense=1)])
    place(match, m["spear"], 5)
    apart(match, m["spear"], m["foe"], reach)
    assert attack_reach(m["spear"]) == reach
    target, _value, needs_move = match.policy.best_target(m["spear"], 0, stunned=True)
    if reach == 1:
        assert target is None  # not in contact, and a Stunned model cannot move to it
        return
    assert (target, needs_move) == (m["foe"], False)
    match.actions.combat_action(m["spear"], 0, True)
    assert any("attacks from" in line for line in match.journal.log)
    assert m["foe"].uid not in m["spear"].engaged or not m["foe"].on_board


def test_gust_of_heaven_moves_four_spaces_after_an_attack_with_nobody_in_contact():
    match, m = setup([ninja("crane", kind="chunin", abilities=["Gust of Heaven"])], [ninja("foe")])
    place(match, m["crane"], 2)
    m["foe"].progress = 0
    match.actions.gust_of_heaven(m["crane"])
    assert m["crane"].progress == 6
    contact(m["crane"], m["foe"])
    before = m["crane"].progress
    match.actions.gust_of_heaven(m["crane"])
    assert m["crane"].progress == before


def test_air_dragons_breath_is_three_ranged_5_shots_then_a_stun():
    match, m = setup([ninja("zenyo", attack=4, ranged=7, abilities=["Air Dragon's Breath"])], [ninja("a", defense=1)])
    apart(match, m["zenyo"], m["a"], 5)
    shot = match.policy.ranged_option(m["zenyo"], 0)
    assert (shot.kind, shot.shots, shot.range) == ("Air Dragon's Breath", 3, 5)
    match.actions.shoot(m["zenyo"], shot)
    assert sum(1 for d in match.journal.dice if d.kind == "attack") >= 1
    match.actions.end_activation(m["zenyo"])
    assert m["zenyo"].stun == 1 or not m["zenyo"].on_board


def test_firearm_flurry_is_four_shots_then_stunned_without_defense_dice():
    match, m = setup(
        [ninja("mochizuki", attack=2, ranged=5, bonus=2, abilities=["Firearm Flurry"])],
        [ninja("a", defense=1), ninja("b", defense=1)],
    )
    apart(match, m["mochizuki"], m["a"], 4)
    m["b"].progress = m["a"].progress
    shot = match.policy.ranged_option(m["mochizuki"], 0)
    assert (shot.kind, shot.shots) == ("Firearm Flurry", 4)
    assert match.policy.ranged_option(m["mochizuki"], 0, stunned=True).kind == "ranged"
    match.actions.shoot(m["mochizuki"], shot)
    attacks = [d for d in match.journal.dice if d.kind == "attack"]
    assert 1 <= len(attacks) <= 4
    match.actions.end_activation(m["mochizuki"])
    assert m["mochizuki"].stun == 1 and m["mochizuki"].no_defense


def test_ondoris_beak_strikes_a_model_moving_into_its_zone():
    match, m = setup([ninja("mover", defense=1)], [ninja("ondori", attack=4, abilities=["Ondori's Beak"])])
    contact(m["mover"], m["ondori"])
    match.actions.ondoris_beak(m["mover"], set())
    assert any("Ondori's Beak" in line for line in match.journal.log)
    match2, m2 = setup([ninja("mover", defense=1)], [ninja("ondori", attack=4, abilities=["Ondori's Beak"])])
    contact(m2["mover"], m2["ondori"])
    m2["ondori"].activated = True
    match2.actions.ondoris_beak(m2["mover"], set())
    assert not any("Ondori's Beak" in line for line in match2.journal.log)


def test_honor_never_attacks_from_the_back_zone():
    always_back = Geometry(back_on_approach=1.0, crowd=0.0, near=0.0)
    match, m = setup(
        [ninja("samurai", attack=6, abilities=["Honor"]), ninja("friend")],
        [ninja("foe", defense=2)],
        geometry=always_back,
    )
    place(match, m["friend"], 8)
    contact(m["friend"], m["foe"])
    place(match, m["samurai"], 5)
    match.actions.combat_action(m["samurai"], 5, False)
    assert m["samurai"].uid in m["foe"].engaged or not m["foe"].on_board
    assert m["samurai"].uid not in m["foe"].behind
    assert not any("back strike" in line for line in match.journal.log)


def test_best_friends_makes_the_assist_two():
    match, m = setup([ninja("inu", abilities=["Best Friends"]), ninja("pal", attack=5), ninja("other")], [ninja("foe")])
    assert m["inu"].best_friend == m["pal"].uid
    contact(m["inu"], m["foe"])
    m["pal"].engaged.add(m["foe"].uid)
    m["foe"].engaged.add(m["pal"].uid)
    ctx = match.referee.context(m["inu"], m["foe"], moved=False, spaces=0, back=False)
    assert ctx.assists_attacker == 1 and ctx.attack_bonus == 1 and "Best Friends +1" in ctx.bonus_notes


def test_shuriken_throw_one_die_and_keep_stealth():
    match, m = setup([ninja("thrower", attack=5)], [ninja("foe", defense=1)])
    apart(match, m["thrower"], m["foe"], 3)
    m["thrower"].stealth = True
    shot = match.policy.ranged_option(m["thrower"], 0)
    assert (shot.kind, shot.range) == ("shuriken", 3)
    ctx = match.referee.context(
        m["thrower"], m["foe"], moved=False, spaces=0, back=False, ranged=True, extra={"shuriken": True}
    )
    assert attack_dice(m["thrower"].snapshot(), m["foe"].snapshot(), ctx)[0] == 1
    match.actions.shoot(m["thrower"], shot)
    assert m["thrower"].stealth
    assert match.policy.ranged_option(m["thrower"], 0, shuriken=False).target is None


# -- abilities modelled before this file, each in its situation -------------------------


def test_9_tails_moon_powers_at_round_start_unless_slowed_and_slows_at_round_end():
    match, m = setup([ninja("uzumaki", abilities=["9 Tails"])], [ninja("foe")])
    m["uzumaki"].stun = 1
    match.actions.at_round_start(m["uzumaki"])
    assert (m["uzumaki"].moon, m["uzumaki"].stun) == (1, 0)
    match.actions.at_round_end(m["uzumaki"])
    assert m["uzumaki"].slow == 2
    match.actions.at_round_start(m["uzumaki"])
    assert m["uzumaki"].moon == 1  # Slowed: no new token


def test_ink_attack_stuns_an_adjacent_enemy_when_the_oni_is_stunned():
    match, m = setup([ninja("oni", abilities=["Ink Attack"])], [ninja("foe")])
    contact(m["oni"], m["foe"])
    match.referee.harm(m["oni"], Harm.STUNNED, by=m["foe"])
    assert (m["oni"].stun, m["foe"].stun) == (1, 1)


def test_flashing_spear_is_never_shot_at():
    match, m = setup([ninja("archer", ranged=8)], [ninja("mizuchi", defense=1, abilities=["Flashing Spear"])])
    apart(match, m["archer"], m["mizuchi"], 4)
    assert match.policy.ranged_option(m["archer"], 0).target is None


@pytest.mark.parametrize("ability", ["Movement Rig", "Banzai"])
def test_movement_rig_and_banzai_leave_contact_without_a_dodge(ability):
    match, m = setup([ninja("free", abilities=[ability])], [ninja("foe")], tests=False)
    contact(m["free"], m["foe"])
    assert m["free"].ignores_zones and match.actions.dodge(m["free"]) is True and m["free"].stun == 0


def test_whirlwind_attacks_every_enemy_in_contact():
    match, m = setup(
        [ninja("bomechan", attack=5, abilities=["Whirlwind"])], [ninja("a", defense=1), ninja("b", defense=1)], seed=3
    )
    m["bomechan"].moon = 1  # cannot be Stunned or Injured: the whirlwind goes round
    contact(m["bomechan"], m["a"])
    m["b"].progress = m["a"].progress
    contact(m["bomechan"], m["b"])
    match.actions.combat_action(m["bomechan"], 5, False)
    attacked = [line for line in match.journal.log if line.startswith("R1: bomechan attacks")]
    assert any("uses Whirlwind" in line for line in match.journal.log) and len(attacked) == 2


def test_uncanny_awareness_sees_models_in_stealth():
    match, m = setup([ninja("blind", abilities=["Uncanny Awareness"]), ninja("plain")], [ninja("hidden")])
    m["hidden"].stealth = True
    assert match.board.visible(m["blind"], m["hidden"]) and not match.board.visible(m["plain"], m["hidden"])


def test_deadly_poison_shots_poison_on_spirit():
    match, m = setup([ninja("dark", ranged=6, abilities=["Deadly Poison"])], [ninja("foe")])
    ctx = match.referee.context(m["dark"], m["foe"], moved=False, spaces=0, back=False, ranged=True)
    assert ctx.spirit_poisons


def test_resolute_melody_gives_a_defender_sharing_an_enemy_plus_one():
    match, m = setup([ninja("attacker")], [ninja("komuso", abilities=["Resolute Melody"]), ninja("friend")])
    contact(m["attacker"], m["friend"])
    m["attacker"].engaged.add(m["komuso"].uid)
    m["komuso"].engaged.add(m["attacker"].uid)
    ctx = match.referee.context(m["attacker"], m["friend"], moved=False, spaces=0, back=False)
    assert ctx.defense_bonus == 1 and "Resolute Melody +1" in ctx.bonus_notes


def test_zenith_takes_moon_power_on_a_spirit_moon():
    match, m = setup([ninja("princess", abilities=["Zenith"])], [ninja("foe")])
    match.moon_phase = Element.SPIRIT
    match.actions.at_round_start(m["princess"])
    assert m["princess"].moon == 1
    match.moon_phase = Element.FIRE
    m["princess"].moon = 0
    match.actions.at_round_start(m["princess"])
    assert m["princess"].moon == 0


def test_dark_curse_curses_the_two_strongest_enemies():
    match, m = setup(
        [ninja("onibaba", abilities=["Dark Curse"])], [ninja("a", attack=5), ninja("b", attack=4), ninja("c", attack=2)]
    )
    match.actions.at_round_start(m["onibaba"])
    assert (m["a"].curse, m["b"].curse, m["c"].curse) == (1, 1, 0)


def test_yopparai_attacks_with_two_more():
    match, m = setup([ninja("shojo", abilities=["Yopparai"])], [ninja("foe")])
    match.actions.at_round_start(m["shojo"])
    assert m["shojo"].attack_mod == 2


def test_wind_gust_gives_the_team_two_movement_in_round_one():
    match, m = setup([ninja("tengu", abilities=["Wind Gust"]), ninja("friend", movement=5)], [ninja("foe", movement=5)])
    assert (match.actions.movement(m["friend"]), match.actions.movement(m["foe"])) == (7, 5)
    match.journal.round = 2
    assert match.actions.movement(m["friend"]) == 5


@pytest.mark.parametrize(
    "mastery", ["Air Mastery", "Spirit Mastery", "Water Mastery", "Earth Mastery", "Void Mastery", "Fire Mastery"]
)
def test_each_mastery_rerolls_dice_not_showing_its_element(mastery):
    element = MASTERIES[mastery]
    attacker = CombatantSnapshot("m", 4, 3, (element,), frozenset([mastery]))
    seen = 0
    for seed in range(200):
        out = fight(
            attacker, CombatantSnapshot("d", 3, 3, (Element.EARTH,)), context=FightContext(), rng=random.Random(seed)
        )
        for use in out.rerolls:
            if use.source == "Mastery":
                seen += 1
                assert all(out.combat.attack_initial[i] is not element for i in use.indices)
    assert seen > 0


def test_moon_power_cannot_be_stunned_or_injured():
    match, m = setup([ninja("moon")], [ninja("foe")])
    m["moon"].moon = 1
    match.referee.inflict(m["moon"], Harm.STUNNED, by=m["foe"])
    match.referee.inflict(m["moon"], Harm.INJURED, by=m["foe"])
    assert m["moon"].on_board and m["moon"].stun == 0


def test_slow_halves_movement_rounded_up_and_one_token_goes_each_activation():
    match, m = setup([ninja("slow", movement=5)], [ninja("foe")])
    m["slow"].slow = 2
    assert match.actions.movement(m["slow"]) == 3
    match.actions.end_activation(m["slow"])
    assert m["slow"].slow == 1


def test_poison_rolls_a_die_at_the_end_of_the_activation():
    outcomes = set()
    for seed in range(40):
        match, m = setup([ninja("sick")], [ninja("foe")], seed=seed)
        m["sick"].poison = 1
        match.actions.end_activation(m["sick"])
        face = next(d for d in match.journal.dice if d.kind == "poison").faces[0]
        assert m["sick"].poison == 0
        state = "Injured" if not m["sick"].on_board else "Stunned" if m["sick"].stun else "nothing"
        assert state == {"Water": "Stunned", "Spirit": "Injured"}.get(face, "nothing")
        assert match.journal.injuries == [] or match.journal.injuries[0].by_id is None  # no credit
        outcomes.add(state)
    assert outcomes == {"Injured", "Stunned", "nothing"}


def test_haste_is_a_second_attack_action():
    match, m = setup([ninja("hasty", attack=4)], [ninja("a", defense=6), ninja("b", defense=6)], seed=1)
    m["hasty"].haste = 1
    m["hasty"].moon = 2  # cannot be harmed: both actions happen
    contact(m["hasty"], m["a"])
    m["b"].progress = m["a"].progress
    contact(m["hasty"], m["b"])
    match.actions.activate(m["hasty"])
    assert m["hasty"].haste == 0
    assert sum(1 for line in match.journal.log if line.startswith("R1: hasty attacks")) >= 2


TOKENS = ["Curse", "Haste", "Lucky", "Moon Power", "Poison", "Protect", "Slow", "Stun"]


def test_every_status_effect_but_delay_is_a_token_on_the_model():
    assert sorted(STATUS_TOKENS) == TOKENS
    assert DELAY == "Delay"


@pytest.mark.parametrize("status", TOKENS)
def test_healing_removes_each_status_token(status):
    match, m = setup([ninja("healer", keywords=[KW.HEALING]), ninja("friend")], [ninja("foe")], tests=True)
    place(match, m["friend"], 1)
    m["friend"].stun = 2  # so the healer wants to
    setattr(m["friend"], STATUS_TOKENS[status], 1 if status != "Stun" else 2)
    match.abilities.healing(m["healer"])[1]()
    assert getattr(m["friend"], STATUS_TOKENS[status]) == 0


# -- terrain, shrines, Stealth as an action ---------------------------------------------


@pytest.mark.parametrize(("keyword", "covered"), [(None, 3), ("Expert Climber", 4), ("Leap", 5), ("Spider Legs", 5)])
def test_climbing_onto_elevated_terrain_costs_three_points_less_with_the_keywords(keyword, covered):
    always_climb = Geometry(climb=1.0, rough=0.0, lantern=0.0, foliage=0.0)
    kw = (
        dict(keywords=[keyword])
        if keyword in ("Expert Climber", "Leap")
        else dict(abilities=[keyword] if keyword else [])
    )
    match, m = setup([ninja("climber", **kw)], [ninja("foe")], geometry=always_climb)
    match.board.move(m["climber"], 5, goal=18)
    assert m["climber"].progress == covered


@pytest.mark.parametrize(("keyword", "covered"), [(None, 2), ("Surefoot", 5)])
def test_rough_terrain_costs_two_points_a_space_but_one_with_surefoot(keyword, covered):
    all_rough = Geometry(climb=0.0, rough=1.0, lantern=0.0, foliage=0.0)
    match, m = setup([ninja("walker", keywords=[keyword] if keyword else [])], [ninja("foe")], geometry=all_rough)
    match.board.move(m["walker"], 5, goal=18)
    assert m["walker"].progress == covered


@pytest.mark.parametrize(("keyword", "hidden"), [(None, False), ("Surefoot", True)])
def test_moving_through_foliage_loses_stealth_unless_surefoot(keyword, hidden):
    foliage = Geometry(climb=0.0, rough=0.0, lantern=0.0, foliage=1.0)
    match, m = setup([ninja("sneak", keywords=[keyword] if keyword else [])], [ninja("foe")], geometry=foliage)
    m["sneak"].stealth = True
    match.board.move(m["sneak"], 3, goal=18)
    assert m["sneak"].stealth is hidden


def test_a_detrimental_shrine_tests_a_passing_model_and_gives_its_token():
    near = Geometry(shrine=1.0, climb=0.0, rough=0.0, lantern=0.0, foliage=0.0)
    match, m = setup([ninja("walker")], [ninja("foe")], geometry=near, tests=False)
    match.board.shrines.append(Shrine("Slow", 4, 1))
    match.board.move(m["walker"], 6, goal=18)
    assert m["walker"].slow == 1
    match.journal.test = lambda *a, **k: True
    match.board.move(m["walker"], 1, goal=0)
    assert m["walker"].slow == 1  # passed the test


def test_a_positive_shrine_gives_its_token_to_a_model_using_its_action_there():
    near = Geometry(shrine=1.0, climb=0.0, rough=0.0, lantern=0.0, foliage=0.0)
    match, m = setup([ninja("pilgrim")], [ninja("foe")], geometry=near, tests=True)
    match.board.shrines.append(Shrine("Protect", 5, 0))
    match.board.move(m["pilgrim"], 5, goal=18)
    assert m["pilgrim"].at_shrine == 0
    value, do = match.abilities.take_shrine_token(m["pilgrim"])
    assert value > 0
    do()
    assert m["pilgrim"].protect == 1


def test_each_team_places_the_shrine_its_policy_says():
    teams = [SimTeam(1, (ninja("a"),), "blue"), SimTeam(2, (ninja("b"),), "red")]
    match = Match(
        teams, CHALLENGES["brawl"], random.Random(1), None, FightPolicy(), DEFAULT_GEOMETRY, [CAUTIOUS, AGGRESSIVE]
    )
    match.setup()
    shrines = {s.placed_by: s for s in match.board.shrines}
    assert (shrines[0].effect, shrines[0].position) == ("Protect", 6)  # cautious: six from its own edge
    assert (shrines[1].effect, shrines[1].position) == ("Slow", 6)  # aggressive: six from the enemy's edge


def test_going_into_stealth_out_of_sight_when_an_enemy_could_charge():
    covered = Geometry(cover=1.0)
    match, m = setup([ninja("hider")], [ninja("foe", movement=5)], geometry=covered)
    apart(match, m["hider"], m["foe"], 6)
    value, do = match.abilities.go_into_stealth(m["hider"])
    assert value > 0
    do()
    assert m["hider"].stealth
    apart(match, m["hider"], m["foe"], 2)  # too close to hide
    m["hider"].stealth = False
    assert match.abilities.go_into_stealth(m["hider"]) == (0.0, None)


def test_no_cover_no_stealth_and_the_aggressive_player_never_hides():
    match, m = setup([ninja("hider")], [ninja("foe", movement=5)], geometry=Geometry(cover=0.0))
    apart(match, m["hider"], m["foe"], 6)
    match.abilities.go_into_stealth(m["hider"])[1]()
    assert not m["hider"].stealth
    match.side_policies[0] = AGGRESSIVE
    assert match.abilities.go_into_stealth(m["hider"]) == (0.0, None)
