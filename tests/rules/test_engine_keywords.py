"""Keyword and special-ability modifiers in a fight (rules.engine.keywords),
with scripted dice, and the sampled fight against the exact odds."""

import random
from collections import Counter

import pytest

from rules.engine.combat import CombatEffect, Side
from rules.engine.dice import ELEMENTS, Element
from rules.engine.keywords import (
    AB,
    KW,
    CombatantSnapshot,
    FightContext,
    FightPolicy,
    Harm,
    attack_dice,
    defense_dice,
    fight,
    suffer,
)
from rules.engine.odds import combat_odds

S, V, E, A, W, F = ELEMENTS


class Scripted(random.Random):
    """Dice come from a script (in roll order); anything else fails loudly."""

    def __init__(self, faces):
        super().__init__(0)
        self.faces = list(faces)

    def randrange(self, n, *args, **kwargs):
        assert n == 6, "only dice are scripted"
        assert self.faces, "the script ran out of dice"
        return ELEMENTS.index(self.faces.pop(0))

    def random(self):  # pragma: no cover - fight() draws no probabilities
        raise AssertionError("unexpected random()")


def model(name="M", attack=3, defense=3, affinities=(Element.FIRE,), keywords=(), abilities=(), **kw):
    return CombatantSnapshot(name, attack, defense, tuple(affinities), frozenset(keywords), frozenset(abilities), **kw)


def run(attacker, defender, script, context=FightContext(), policy=FightPolicy()):
    rng = Scripted(script)
    out = fight(attacker, defender, context=context, rng=rng, policy=policy)
    assert rng.faces == [], f"unused scripted dice: {rng.faces}"
    return out


# -- pool sizes --------------------------------------------------------------

POOL_CASES = [
    # (id, attacker kwargs, defender kwargs, context, attack dice, defense dice)
    ("plain", {}, {}, FightContext(), 3, 3),
    ("assists-and-back", {}, {}, FightContext(assists_attacker=2, assists_defender=1, back_strike=True), 6, 4),
    ("combined-attack", {}, {}, FightContext(assists_attacker=2, combined_attack_assists=1), 6, 3),
    ("guard", {}, {}, FightContext(assists_defender=1, guard_assists=1), 3, 5),
    ("backstab", dict(keywords=[KW.BACKSTAB]), {}, FightContext(back_strike=True), 5, 3),
    (
        "yamazarus-tail",
        dict(keywords=[KW.BACKSTAB]),
        dict(keywords=[KW.YAMAZARUS_TAIL]),
        FightContext(back_strike=True, assists_attacker=1),
        4,
        3,
    ),
    (
        "master-swordsman",
        {},
        dict(abilities=[AB.MASTER_SWORDSMAN]),
        FightContext(back_strike=True, assists_attacker=2),
        3,
        3,
    ),
    ("stealth", dict(in_stealth=True), {}, FightContext(), 4, 3),
    ("from-the-deep", dict(in_stealth=True, abilities=[AB.FROM_THE_DEEP]), {}, FightContext(), 6, 3),
    ("focus-stood-still", dict(keywords=[KW.FOCUS]), {}, FightContext(attacker_moved=False), 4, 3),
    ("focus-moved", dict(keywords=[KW.FOCUS]), {}, FightContext(attacker_moved=True), 3, 3),
    ("toras-claws-stunned", dict(keywords=[KW.TORAS_CLAWS]), dict(stun_tokens=1), FightContext(), 4, 3),
    ("toras-claws-not-stunned", dict(keywords=[KW.TORAS_CLAWS]), {}, FightContext(), 3, 3),
    ("emptiness", dict(keywords=[KW.EMPTINESS]), {}, FightContext(assists_defender=1), 4, 4),
    (
        "emptiness-both-assisted",
        dict(keywords=[KW.EMPTINESS]),
        {},
        FightContext(assists_attacker=1, assists_defender=1),
        4,
        4,
    ),
    ("ijins-horns", dict(keywords=[KW.IJINS_HORNS]), {}, FightContext(attacker_moved=True, spaces_moved=3), 4, 3),
    ("ijins-horns-short", dict(keywords=[KW.IJINS_HORNS]), {}, FightContext(attacker_moved=True, spaces_moved=2), 3, 3),
    ("dauntless", dict(attack=5), dict(defense=2, keywords=[KW.DAUNTLESS]), FightContext(assists_attacker=1), 6, 6),
    ("dauntless-not-lower", dict(attack=2), dict(defense=3, keywords=[KW.DAUNTLESS]), FightContext(), 2, 3),
    ("tidal-wave", {}, dict(keywords=[KW.TIDAL_WAVE]), FightContext(), 3, 4),
    ("tidal-wave-spent", {}, dict(keywords=[KW.TIDAL_WAVE], tidal_wave_ready=False), FightContext(), 3, 3),
    ("immovable", {}, dict(abilities=[AB.IMMOVABLE]), FightContext(), 3, 5),
    ("immovable-activated", {}, dict(abilities=[AB.IMMOVABLE], has_activated=True), FightContext(), 3, 3),
    ("metal-to-dust", dict(attack=2), dict(metal_to_dust=True), FightContext(), 1, 3),
    (
        "tiger-strike-no-defense",
        dict(attack_bonus=3),
        dict(no_defense_dice=True, keywords=[KW.DAUNTLESS]),
        FightContext(),
        6,
        0,
    ),
    ("spirit-hunter", dict(abilities=[AB.SPIRIT_HUNTER]), dict(affinities=[Element.VOID]), FightContext(), 4, 3),
    ("rival", dict(abilities=[AB.SUPREME_MASTER]), {}, FightContext(rival=True), 4, 3),
    (
        "ranged",
        dict(attack=2, keywords=[KW.ACCURATE]),
        {},
        FightContext(ranged=True, ranged_bonus=2, assists_attacker=2, assists_defender=2, back_strike=True),
        5,
        3,
    ),
    ("caller-bonuses", {}, {}, FightContext(attack_bonus=1, defense_bonus=-1, bonus_notes=("Tyrant +1",)), 4, 2),
]


@pytest.mark.parametrize("a_kw,d_kw,context,n_att,n_def", [c[1:] for c in POOL_CASES], ids=[c[0] for c in POOL_CASES])
def test_pool_sizes(a_kw, d_kw, context, n_att, n_def):
    attacker, defender = model("A", **a_kw), model("D", **d_kw)
    got_att, notes = attack_dice(attacker, defender, context)
    got_def, d_notes, _ = defense_dice(attacker, defender, context, got_att)
    assert (got_att, got_def) == (n_att, n_def), notes + d_notes


def test_tidal_wave_is_spent_in_the_fight():
    out = run(model(attack=1), model(defense=1, keywords=[KW.TIDAL_WAVE]), [E, A, W])
    assert out.defense_dice == 2 and out.used(Side.DEFENDER, "Tidal Wave") == 1


# -- rerolls -------------------------------------------------------------------


def test_close_combat_master_rerolls_the_spirit():
    # S E v A: Earth and Air cancel, the attacker must take its Spirit; CCM rerolls it to Void
    out = run(model(keywords=[KW.CLOSE_COMBAT_MASTER], attack=2, defense=1), model(defense=1), [S, E, A, V])
    assert out.combat.attack_initial == (S, E)
    assert [(r.source, r.pool, r.indices) for r in out.rerolls] == [(KW.CLOSE_COMBAT_MASTER, Side.ATTACKER, (0,))]
    assert out.result is V and out.defender.harm is Harm.INJURED


def test_close_combat_master_keeps_a_winning_roll():
    out = run(model(keywords=[KW.CLOSE_COMBAT_MASTER], attack=2), model(defense=1), [V, V, E])
    assert out.rerolls == () and out.result is V


def test_defender_close_combat_master():
    # attacker V v defender E: tie, attacker takes Void; the defender rerolls its Earth to Spirit:
    # Spirit cancels the Void, nothing left
    out = run(model(attack=1), model(defense=1, keywords=[KW.CLOSE_COMBAT_MASTER]), [V, E, S])
    assert out.rerolls[0].side is Side.DEFENDER and out.combat.all_eliminated
    assert out.effect is CombatEffect.NO_EFFECT


def test_mastery_rerolls_only_dice_not_showing_its_element_once():
    attacker = model(attack=3, keywords=["Fire Mastery"])
    # S S F v nothing: the attacker chooses among S, F: takes Fire (stuns itself); the Mastery rerolls
    # the two Spirits (not the Fire) -> V, E
    out = run(attacker, model(defense=0), [S, S, F, V, E])
    assert out.rerolls[0].source == "Mastery" and out.rerolls[0].indices == (0, 1)
    assert out.result is V and out.used(Side.ATTACKER, "Mastery") == 1


def test_mastery_not_ready_does_nothing():
    attacker = model(attack=2, keywords=["Fire Mastery"], mastery_ready=False)
    out = run(attacker, model(defense=0), [S, S])
    assert out.rerolls == () and out.result is S and out.attacker.harm is Harm.INJURED


def test_sensei_die_is_spent():
    out = run(model(attack=1, defense=1), model(defense=0), [S, V], FightContext(attacker_sensei=True))
    assert out.rerolls[0].source == "Sensei" and out.used(Side.ATTACKER, "Sensei") == 1 and out.result is V


def test_reroll_token_on_the_chooser_pool_when_own_model_would_be_injured():
    # the attacker has 2 Voids against 1 Earth: defender would be Injured; the defender's
    # underdog token rerolls the attacker's (chooser's) pool
    out = run(model(attack=2), model(defense=1), [V, V, E, A, A], FightContext(defender_reroll_tokens=1))
    assert [(r.source, r.side, r.pool) for r in out.rerolls] == [("reroll token", Side.DEFENDER, Side.ATTACKER)]
    assert out.used(Side.DEFENDER, "reroll token") == 1
    assert out.result is A  # A A v E: one Air cancels the Earth, Air is left


def test_no_tokens_when_policy_says_no():
    out = run(
        model(attack=2),
        model(defense=1),
        [V, V, E],
        FightContext(defender_reroll_tokens=1),
        FightPolicy(use_tokens=False),
    )
    assert out.rerolls == () and out.result is V


def test_rerolled_die_is_not_rerolled_again():
    # token rerolls the attacker's pool first, then CCM may not touch those dice
    attacker = model(attack=1, defense=1, keywords=[KW.CLOSE_COMBAT_MASTER])
    out = run(attacker, model(defense=0), [S, S], FightContext(attacker_reroll_tokens=1))
    assert [r.source for r in out.rerolls] == ["reroll token"]
    assert out.result is S


def test_lucky_token_rerolls_own_dice():
    out = run(model(attack=1, lucky_tokens=1), model(defense=0), [S, E])
    assert out.rerolls[0].source == "Lucky" and out.result is E and out.used(Side.ATTACKER, "Lucky") == 1


def test_curse_token_forces_the_cursed_model_to_reroll():
    # the cursed attacker rolled Void; the defender removes the Curse to reroll it
    out = run(model(attack=1, curse_tokens=1), model(defense=0), [V, W])
    assert out.rerolls[0].source == "Curse" and out.rerolls[0].pool is Side.ATTACKER
    assert out.result is W


# -- results and protections -----------------------------------------------------


def test_resilient_downgrades_injury_to_stun():
    defender = model(defense=1, affinities=[Element.EARTH], keywords=[KW.RESILIENT])
    out = run(model(attack=1), defender, [V, W, E])  # V v W: attacker takes Void; resilient roll Earth
    assert out.defender.incoming is Harm.INJURED and out.defender.harm is Harm.STUNNED
    assert out.defender.rolls[0].faces == (E,) and out.defender.rolls[0].success


def test_resilient_failure_and_stun_downgrade():
    defender = model(defense=1, affinities=[Element.EARTH], keywords=[KW.RESILIENT])
    assert run(model(attack=1), defender, [V, W, F]).defender.harm is Harm.INJURED
    assert run(model(attack=1), defender, [E, W, E]).defender.harm is Harm.NONE


def test_resilient_mastery_rerolls_a_failed_resilient_die():
    defender = model(defense=0, affinities=[Element.EARTH], keywords=[KW.RESILIENT, "Earth Mastery"])
    out = run(model(attack=1), defender, [V, F, E])
    assert out.defender.harm is Harm.STUNNED and out.defender.rolls[0].faces == (F, E)
    assert out.used(Side.DEFENDER, "Mastery") == 1


def test_moon_princess_resilient_needs_spirit_air_or_earth():
    princess = model("Moon Princess", defense=0, affinities=ELEMENTS, keywords=[KW.RESILIENT])
    assert run(model(attack=1), princess, [V, F]).defender.harm is Harm.INJURED
    assert run(model(attack=1), princess, [V, A]).defender.harm is Harm.STUNNED


def test_own_fire_stun_is_not_an_enemy_effect_for_resilient():
    attacker = model(attack=1, keywords=[KW.RESILIENT])
    out = run(attacker, model(defense=0), [F])
    assert out.attacker.harm is Harm.STUNNED and out.attacker.rolls == ()
    assert out.defender.harm is Harm.STUNNED and out.zone_stun_enemies and out.zone_stun_friends


def test_precision_strike_fire_spares_the_attacker_and_is_preferred_to_earth():
    attacker = model(attack=2, keywords=[KW.PRECISION_STRIKE])
    out = run(attacker, model(defense=0), [E, F])
    assert out.result is F
    assert out.attacker.harm is Harm.NONE and out.defender.harm is Harm.STUNNED
    assert out.zone_stun_enemies and not out.zone_stun_friends


def test_moon_power_cannot_be_stunned_or_injured():
    out = run(model(attack=1, moon_powered=True), model(defense=0), [S])
    assert out.attacker.incoming is Harm.INJURED and out.attacker.harm is Harm.NONE
    out = run(model(attack=1), model(defense=0, moon_powered=True), [V])
    assert out.defender.harm is Harm.NONE


def test_indomitable_then_protect():
    musashi = model(defense=0, abilities=[AB.INDOMITABLE])
    out = run(model(attack=1), musashi, [V])
    assert out.defender.harm is Harm.STUNNED and out.used(Side.DEFENDER, "Indomitable") == 1
    spent = model(defense=0, abilities=[AB.INDOMITABLE], indomitable_ready=False, protect_tokens=1)
    out = run(model(attack=1), spent, [V])
    assert out.defender.harm is Harm.STUNNED and out.used(Side.DEFENDER, "Protect") == 1


def test_dirty_fighter_keeps_the_choice_unless_two_dice_behind():
    dirty = model(attack=1, keywords=[KW.DIRTY_FIGHTER])
    # E v S S: defender has one die more -> with Dirty Fighter the attacker still chooses (Earth)
    assert run(model(attack=1), model(defense=2), [E, S, S]).result is S
    out = run(dirty, model(defense=2), [E, S, S])
    assert out.combat.chooser is Side.ATTACKER and out.result is E
    # E v S S S: two more dice -> the defender chooses Spirit
    assert run(dirty, model(defense=3), [E, S, S, S]).result is S
    # everything of the attacker eliminated, the defender has one die: no result at all
    out = run(dirty, model(defense=2), [V, S, W])
    assert out.combat.all_eliminated and out.effect is CombatEffect.NO_EFFECT


def test_engulf_poisons_with_an_unchosen_fire():
    engulf = model(attack=2, keywords=[KW.ENGULF])
    assert run(engulf, model(defense=0), [V, F]).defender_poisoned
    assert not run(engulf, model(defense=0), [F, A]).defender_poisoned  # the Fire is the result


def test_engulf_chosen_fire_does_not_poison():
    engulf = model(attack=1, keywords=[KW.ENGULF])
    assert not run(engulf, model(defense=0), [F]).defender_poisoned


def test_kitsunes_bite_curses_with_an_unchosen_spirit():
    bite = model(attack=2, keywords=[KW.KITSUNES_BITE])
    out = run(bite, model(defense=0), [E, S])
    assert out.result is E and out.defender_cursed
    assert not run(bite, model(defense=0), [E, E]).defender_cursed


def test_poisoned_weapons_when_the_target_is_not_hurt():
    chunin = model(attack=1, abilities=[AB.POISONED_WEAPONS])
    assert run(chunin, model(defense=0), [A]).defender_poisoned
    assert not run(chunin, model(defense=0), [E]).defender_poisoned


def test_whirlwind_void_stuns_and_ranged_effects():
    out = run(model(attack=1), model(defense=0), [V], FightContext(void_stuns=True))
    assert out.defender.harm is Harm.STUNNED
    ranged = FightContext(ranged=True)
    assert run(model(attack=1), model(defense=0), [F], ranged).effect is CombatEffect.NO_EFFECT
    assert run(model(attack=1), model(defense=0), [S], ranged).attacker.harm is Harm.NONE
    assert run(model(attack=1), model(defense=0), [V], ranged).defender.harm is Harm.INJURED
    flute = FightContext(ranged=True, earth_void_stun=True)
    assert run(model(attack=1), model(defense=0), [V], flute).defender.harm is Harm.STUNNED
    poison = FightContext(ranged=True, spirit_poisons=True)
    assert run(model(attack=2), model(defense=0), [S, E], poison).defender_poisoned


def test_suffer_poison_by_enemy_uses_resilient():
    m = model(affinities=[Element.WATER], keywords=[KW.RESILIENT])
    s = suffer(m, Harm.STUNNED, by_enemy=True, rng=Scripted([W]))
    assert s.harm is Harm.NONE
    assert suffer(m, Harm.STUNNED, by_enemy=False, rng=Scripted([])).harm is Harm.STUNNED


def test_every_face_is_recorded():
    rng = random.Random(7)
    attacker = model(attack=4, keywords=[KW.CLOSE_COMBAT_MASTER, "Fire Mastery"])
    defender = model(defense=3, keywords=[KW.RESILIENT, KW.CLOSE_COMBAT_MASTER])
    for _ in range(50):
        out = fight(attacker, defender, rng=rng)
        assert len(out.combat.attack_initial) == out.attack_dice
        assert len(out.combat.defense_initial) == out.defense_dice
        rerolled = sum(len(r.indices) for r in out.rerolls)
        assert rerolled == len(out.combat.attack_rerolls) + len(out.combat.defense_rerolls)


def test_fight_is_deterministic_for_a_seed():
    a = model(attack=5, keywords=[KW.CLOSE_COMBAT_MASTER, "Void Mastery", KW.DIRTY_FIGHTER])
    d = model(defense=4, keywords=[KW.RESILIENT, KW.GUARD])
    ctx = FightContext(assists_attacker=1, back_strike=True, defender_reroll_tokens=2)
    first = [fight(a, d, context=ctx, rng=random.Random(s)) for s in range(20)]
    again = [fight(a, d, context=ctx, rng=random.Random(s)) for s in range(20)]
    assert first == again


# -- sampled fights agree with the exact odds --------------------------------------

PAIRS = [(a, d) for a in range(1, 9) for d in range(1, 9)]
SAMPLES = 4_000
#: chi-square with 6 degrees of freedom at p = 1e-4 (seven outcomes)
CHI2_LIMIT = 27.86


@pytest.mark.parametrize("attack", range(1, 9))
def test_sampled_fight_agrees_with_exact_odds(attack):
    for defense in range(1, 9):
        rng = random.Random(1_000 * attack + defense)
        a, d = model("A", attack=attack), model("D", defense=defense)
        counts = Counter(fight(a, d, rng=rng).result for _ in range(SAMPLES))
        chi2 = 0.0
        for key, p in combat_odds(attack, defense).items():
            p = float(p)
            observed = counts.get(key, 0) / SAMPLES
            se = (p * (1 - p) / SAMPLES) ** 0.5
            assert abs(observed - p) <= 4 * se + 1e-12, (attack, defense, key, observed, p)
            if p * SAMPLES >= 5:
                chi2 += (counts.get(key, 0) - p * SAMPLES) ** 2 / (p * SAMPLES)
        assert chi2 < CHI2_LIMIT, (attack, defense, chi2)
