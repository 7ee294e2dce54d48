"""Hand-worked combats with scripted dice (rules.engine.combat).

Default policy: attacker prefers Void > Earth > Fire > Air > Water > Spirit;
defender prefers Spirit > Water > Air > Fire > Earth > Void.
"""

import random

import pytest

from rules.engine.combat import (
    DEFAULT_POLICY,
    CombatEffect,
    PreferencePolicy,
    Side,
    attack_pool_size,
    combat,
    combat_effect,
    defense_pool_size,
    eliminate,
    resolve_combat,
    resolve_counts,
    roll_combat,
)
from rules.engine.dice import ELEMENTS, parse_faces, reroll
from tests.rules.elements import A, E, F, S, V, W

ATK, DEF = Side.ATTACKER, Side.DEFENDER

# (id, attacker faces, defender faces, eliminated count, attacker left faces,
#  defender left faces, chooser, result)
CASES = [
    # every elimination pair, both directions: all dice gone -> no result
    ("void-cancels-spirit", [V], [S], 1, [], [], None, None),
    ("spirit-cancels-void", [S], [V], 1, [], [], None, None),
    ("earth-cancels-air", [E], [A], 1, [], [], None, None),
    ("air-cancels-earth", [A], [E], 1, [], [], None, None),
    ("fire-cancels-water", [F], [W], 1, [], [], None, None),
    ("water-cancels-fire", [W], [F], 1, [], [], None, None),
    ("all-six-pairs", [S, V, E, A, F, W], [V, S, A, E, W, F], 6, [], [], None, None),
    ("crossed-order", [V, S], [S, V], 2, [], [], None, None),
    # same-element dice never cancel, nor do dice of the same pool
    ("no-pairs-same-pool", [E, A], [], 0, [E, A], [], ATK, E),
    ("same-element-no-cancel", [V], [V], 0, [V], [V], ATK, V),
    # tie 1-1 after a cancellation: attacker chooses Earth
    ("tie-attacker-earth", [V, E], [S, W], 1, [E], [W], ATK, E),
    # tie 1-1, attacker's only die is Fire
    ("tie-attacker-fire", [F], [E], 0, [F], [E], ATK, F),
    # one Void cancelled, attacker keeps Void + Spirit and takes Void
    ("attacker-void", [V, V, S], [S], 1, [V, S], [], ATK, V),
    # defender has more dice: picks Spirit, attacker Injured
    ("defender-spirit", [E], [S, S], 0, [E], [S, S], DEF, S),
    # attacker has more dice but only Spirits: forced to Injure itself
    ("attacker-forced-spirit", [S, S], [E], 0, [S, S], [E], ATK, S),
    # defender outnumbers but only has Voids: defender Injured
    ("defender-forced-void", [E, E, F], [V, V, V, V, V], 0, [E, E, F], [V] * 5, DEF, V),
    # defender picks Water over Fire
    ("defender-water", [V, V], [W, W, F], 0, [V, V], [W, W, F], DEF, W),
    # defender picks Air over Earth/Void
    ("defender-air", [S], [E, A, V], 1, [], [E, A], DEF, A),
    # after cancelling, defender 2 v 1 and picks Fire over Earth
    ("defender-fire", [W, A, V], [F, E, E, F], 2, [V], [E, F], DEF, F),
    # attacker 2 v 2 tie after eliminations: attacker picks Air over Water
    ("tie-attacker-air", [A, W, S], [V, S, S], 1, [A, W], [S, S], ATK, A),
    # Fire cancels the Water: attacker keeps two Spirits v one Earth, must take Spirit
    ("attacker-left-only-spirits", [W, S, S], [F, E], 1, [S, S], [E], ATK, S),
    # a lone surviving Water is the attacker's only choice
    ("attacker-water", [W, W, S], [F, V], 2, [W], [], ATK, W),
    # many eliminations of one kind
    ("three-voids-two-spirits", [V, V, V, E], [S, S, A, A], 3, [V], [A], ATK, V),
    ("defender-wins-after-cancels", [V, V, E], [S, S, S, W, F], 2, [E], [S, W, F], DEF, S),
    # zero-dice pools (rolls nothing)
    ("no-attack-dice", [], [E], 0, [], [E], DEF, E),
    ("no-defense-dice", [S], [], 0, [S], [], ATK, S),
    ("no-dice-at-all", [], [], 0, [], [], None, None),
]


@pytest.mark.parametrize(
    "attack,defense,n_elim,a_left,d_left,chooser,result",
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_hand_worked_combat(attack, defense, n_elim, a_left, d_left, chooser, result):
    res = resolve_combat(attack, defense)
    assert len(res.eliminated) == n_elim
    assert sorted(res.attack_remaining_faces) == sorted(a_left)
    assert sorted(res.defense_remaining_faces) == sorted(d_left)
    assert res.chooser == chooser
    assert res.result == result
    assert res.all_eliminated == (chooser is None)
    for pair in res.eliminated:
        assert res.attack_faces[pair.attack_index] is pair.attack_face
        assert res.defense_faces[pair.defense_index] is pair.defense_face
        assert pair.defense_face is {S: V, V: S, E: A, A: E, F: W, W: F}[pair.attack_face]
    if chooser is None:
        assert res.chosen_index is None
        assert res.effect is CombatEffect.NO_EFFECT
    else:
        faces = res.attack_faces if chooser is ATK else res.defense_faces
        left = res.attack_remaining if chooser is ATK else res.defense_remaining
        assert res.chosen_index in left
        assert faces[res.chosen_index] is result
    # the count-based resolver (used by the exact odds) agrees
    counts = lambda faces: {e: list(faces).count(e) for e in ELEMENTS}  # noqa: E731
    assert resolve_counts(counts(attack), counts(defense)) == (chooser, result)


def test_cases_cover_every_result():
    results = {c[7] for c in CASES}
    assert results >= set(ELEMENTS) | {None}


def test_elimination_indices_are_recorded():
    res = resolve_combat([V, E, V], [A, S, S, F])
    assert [(p.attack_index, p.defense_index) for p in res.eliminated] == [(0, 1), (1, 0), (2, 2)]
    assert res.attack_remaining == ()
    assert res.defense_remaining == (3,)
    assert res.chooser is DEF and res.chosen_index == 3 and res.result is F


def test_eliminate_function_direct():
    pairs, a_left, d_left = eliminate(parse_faces(["Fire", "Fire"]), parse_faces(["Water"]))
    assert len(pairs) == 1 and a_left == (1,) and d_left == ()


@pytest.mark.parametrize(
    "element,effect",
    [
        (S, CombatEffect.ATTACKER_INJURED),
        (V, CombatEffect.DEFENDER_INJURED),
        (E, CombatEffect.DEFENDER_STUNNED),
        (A, CombatEffect.DEFENDER_MOVED),
        (W, CombatEffect.ATTACKER_MOVED),
        (F, CombatEffect.ALL_STUNNED),
        (None, CombatEffect.NO_EFFECT),
    ],
)
def test_effects(element, effect):
    assert combat_effect(element) is effect


@pytest.mark.parametrize("element", list(ELEMENTS))
def test_ranged_effects_only_earth_and_void(element):
    effect = combat_effect(element, ranged=True)
    if element in (E, V):
        assert effect is combat_effect(element)
    else:
        assert effect is CombatEffect.NO_EFFECT


def test_custom_policy_is_used():
    reckless = PreferencePolicy(attacker_order=(F, V, E, A, W, S), defender_order=DEFAULT_POLICY.defender_order)
    assert resolve_combat([V, F], [E]).result is V
    assert resolve_combat([V, F], [E], policy=reckless).result is F


def test_callable_policy_and_bad_choice():
    def always_first(chooser, available):
        return min(available, key=ELEMENTS.index)

    assert resolve_combat([F, S], []).result is F
    assert resolve_combat([F, S], [], policy=always_first).result is S
    with pytest.raises(ValueError):
        resolve_combat([F], [], policy=lambda chooser, available: V)


def test_preference_policy_validation():
    with pytest.raises(ValueError):
        PreferencePolicy(attacker_order=(V, V, E, A, W, S))


def test_rerolls_happen_before_eliminations_and_are_recorded():
    rng = random.Random(5)
    a_pool, d_pool = roll_combat(4, 3, rng=rng)
    a_pool = reroll(a_pool, [0], rng=rng)  # e.g. Close Combat Master
    with pytest.raises(ValueError):
        reroll(a_pool, [0], rng=rng)
    res = resolve_combat(a_pool, d_pool)
    assert res.attack_faces == a_pool.faces
    assert res.attack_initial == a_pool.initial
    assert len(res.attack_rerolls) == 1 and res.attack_rerolls[0].index == 0
    assert res.defense_rerolls == ()
    assert res == resolve_combat(a_pool, d_pool)
    assert res.result == resolve_combat(list(a_pool.faces), list(d_pool.faces)).result


@pytest.mark.parametrize("seed", range(10))
def test_combat_rolls_and_records_every_face(seed):
    res = combat(5, 4, rng=random.Random(seed))
    assert len(res.attack_faces) == 5 and len(res.defense_faces) == 4
    assert 2 * len(res.eliminated) + len(res.attack_remaining) + len(res.defense_remaining) == 9
    assert res == resolve_combat(res.attack_faces, res.defense_faces)


@pytest.mark.parametrize(
    "kwargs,expected",
    [
        (dict(attack=4), 4),
        (dict(attack=4, assist_bonus=2), 6),
        (dict(attack=4, back_strike=True), 5),
        (dict(attack=4, back_strike=True, back_strike_bonus=2), 6),
        (dict(attack=3, stealth=True, assist_bonus=1), 5),
        (dict(attack=1, modifier=-2), 0),
        (dict(attack=1, modifier=-2, minimum=1), 1),
    ],
)
def test_attack_pool_size(kwargs, expected):
    assert attack_pool_size(**kwargs) == expected


@pytest.mark.parametrize(
    "kwargs,expected",
    [
        (dict(defense=3), 3),
        (dict(defense=3, assist_bonus=2), 5),
        (dict(defense=2, modifier=-3), 0),
        (dict(defense=2, modifier=-3, minimum=1), 1),
    ],
)
def test_defense_pool_size(kwargs, expected):
    assert defense_pool_size(**kwargs) == expected


def test_negative_pools_rejected():
    with pytest.raises(ValueError):
        roll_combat(-1, 2, rng=random.Random(0))
