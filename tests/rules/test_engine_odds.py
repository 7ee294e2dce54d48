"""Exact combat odds (rules.engine.odds) -- checked against brute force,
hand calculation and seeded sampling of rules.engine.combat."""

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest

from rules.engine.combat import PreferencePolicy, Side, combat, resolve_combat
from rules.engine.dice import ELEMENTS, Element
from rules.engine.odds import (
    chooser_odds,
    combat_odds,
    combat_odds_by_compositions,
    compositions,
    detailed_odds,
    multinomial,
    odds_table,
)

KEYS = set(ELEMENTS) | {None}


@pytest.mark.parametrize("attack", range(1, 11))
def test_odds_sum_to_one_for_every_pair(attack):
    for defense in range(1, 11):
        odds = combat_odds(attack, defense)
        assert set(odds) == KEYS
        assert sum(odds.values()) == 1
        assert all(isinstance(p, Fraction) and 0 <= p <= 1 for p in odds.values())
        assert sum(detailed_odds(attack, defense).values()) == 1
        assert sum(chooser_odds(attack, defense).values()) == 1


def test_odds_table_shape():
    table = odds_table()
    assert set(table) == {(a, d) for a in range(1, 11) for d in range(1, 11)}
    assert table[(3, 2)] == combat_odds(3, 2)


def test_one_v_one_by_hand():
    # defender's die cancels the attacker's with probability 1/6; otherwise
    # it is a 1-1 tie and the attacker must take its own die.
    odds = combat_odds(1, 1)
    assert odds[None] == Fraction(1, 6)
    for e in ELEMENTS:
        assert odds[e] == Fraction(5, 36)


@pytest.mark.parametrize("attack,defense", [(1, 0), (0, 1)])
def test_single_die_against_nothing(attack, defense):
    odds = combat_odds(attack, defense)
    assert odds[None] == 0
    assert all(odds[e] == Fraction(1, 6) for e in ELEMENTS)


def test_no_dice_at_all():
    assert combat_odds(0, 0)[None] == 1


def test_two_v_one_by_hand():
    # One defender die cancels at most one attacker die, so the attacker
    # always has at least as many dice left and always chooses.
    assert chooser_odds(2, 1) == {Side.ATTACKER: 1, Side.DEFENDER: 0, None: 0}
    odds = combat_odds(2, 1)
    # Spirit only when every surviving attacker die is Spirit:
    # both Spirit (1/36) or one Spirit + w cancelled by the defender (10/36 * 1/6)
    assert odds[Element.SPIRIT] == Fraction(1, 36) + Fraction(10, 36) * Fraction(1, 6)
    assert odds[Element.SPIRIT] == Fraction(2, 27)
    # Void whenever a Void survives: both Void (1/36, one survives even vs
    # Spirit) or one Void and the defender is not Spirit (10/36 * 5/6)
    assert odds[Element.VOID] == Fraction(7, 27)


@pytest.mark.parametrize("attack,defense", [(a, d) for a in range(4) for d in range(4) if a + d <= 5])
def test_matches_every_ordered_roll(attack, defense):
    counts = Counter()
    for roll in itertools.product(ELEMENTS, repeat=attack + defense):
        counts[resolve_combat(roll[:attack], roll[attack:]).result] += 1
    total = 6 ** (attack + defense)
    expected = {k: Fraction(counts.get(k, 0), total) for k in KEYS}
    assert combat_odds(attack, defense) == expected


@pytest.mark.parametrize("attack", range(5))
def test_factorised_matches_composition_enumeration(attack):
    for defense in range(5):
        assert combat_odds(attack, defense) == combat_odds_by_compositions(attack, defense)


def test_factorised_matches_compositions_bigger_pair():
    assert combat_odds(6, 5) == combat_odds_by_compositions(6, 5)


def test_custom_policy_changes_odds():
    reckless = PreferencePolicy(
        attacker_order=(Element.FIRE, Element.VOID, Element.EARTH, Element.AIR, Element.WATER, Element.SPIRIT)
    )
    assert combat_odds(4, 3, policy=reckless)[Element.FIRE] > combat_odds(4, 3)[Element.FIRE]
    assert combat_odds(4, 3, policy=reckless) == combat_odds_by_compositions(4, 3, policy=reckless)


def test_compositions_and_multinomial():
    assert len(list(compositions(10, 6))) == 3003
    assert all(sum(c) == 4 for c in compositions(4, 6))
    assert sum(multinomial(c) for c in compositions(5, 6)) == 6**5


def test_odds_reject_bad_input():
    with pytest.raises(ValueError):
        combat_odds(-1, 2)


def _sampled(attack, defense, n, seed):
    rng = random.Random(seed)
    return Counter(combat(attack, defense, rng=rng).result for _ in range(n))


def _assert_close(attack, defense, n, seed):
    counts = _sampled(attack, defense, n, seed)
    for key, p in combat_odds(attack, defense).items():
        se = (float(p) * (1 - float(p)) / n) ** 0.5
        observed = counts.get(key, 0) / n
        assert abs(observed - float(p)) <= 4 * se + 1e-12, (attack, defense, key, observed, float(p))


@pytest.mark.parametrize("attack,defense", [(3, 2), (4, 4), (2, 5), (7, 3)])
def test_sampled_combat_agrees_with_exact_odds(attack, defense):
    _assert_close(attack, defense, 20_000, seed=1000 * attack + defense)


@pytest.mark.slow(reason="samples 256,000 attacks against the exact odds")
def test_sampled_grid_1_to_8():
    for attack in range(1, 9):
        for defense in range(1, 9):
            _assert_close(attack, defense, 4_000, seed=97 * attack + defense)
