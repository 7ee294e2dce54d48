"""Dice, rerolls and affinity tests (rules.engine.dice / rules.engine.affinity)."""

import random
from collections import Counter

import pytest

from rules.engine.affinity import affinity_test, choose_affinity, opposed_affinity_test
from rules.engine.dice import (
    ELEMENTS,
    OPPOSITION_PAIRS,
    DicePool,
    Element,
    opposite,
    parse_faces,
    reroll,
    roll_dice,
    roll_pool,
)


def test_element_values():
    assert [e.value for e in ELEMENTS] == ["Spirit", "Void", "Earth", "Air", "Water", "Fire"]
    assert Element("Void") is Element.VOID


@pytest.mark.parametrize(
    "a,b",
    [
        (Element.SPIRIT, Element.VOID),
        (Element.EARTH, Element.AIR),
        (Element.FIRE, Element.WATER),
    ],
)
def test_opposition_pairs(a, b):
    assert opposite(a) is b
    assert opposite(b) is a
    assert (a, b) in OPPOSITION_PAIRS or (b, a) in OPPOSITION_PAIRS


def test_every_element_has_exactly_one_opposite():
    assert sorted(e.value for p in OPPOSITION_PAIRS for e in p) == sorted(e.value for e in ELEMENTS)
    for e in ELEMENTS:
        assert opposite(opposite(e)) is e and opposite(e) is not e


@pytest.mark.parametrize("n", [0, 1, 3, 10])
def test_roll_dice_count_and_reproducible(n):
    faces = roll_dice(n, rng=random.Random(7))
    assert len(faces) == n
    assert all(isinstance(f, Element) for f in faces)
    assert faces == roll_dice(n, rng=random.Random(7))


def test_roll_dice_negative():
    with pytest.raises(ValueError):
        roll_dice(-1, rng=random.Random(0))


def test_roll_dice_is_roughly_uniform():
    counts = Counter(roll_dice(60_000, rng=random.Random(1)))
    assert set(counts) == set(ELEMENTS)
    for n in counts.values():
        assert abs(n - 10_000) < 4 * (60_000 * (1 / 6) * (5 / 6)) ** 0.5


def test_reroll_records_history_and_never_rerolls_twice():
    pool = DicePool(faces=parse_faces(["Spirit", "Void", "Earth"]))
    rng = random.Random(3)
    after = reroll(pool, [0, 2], rng=rng)
    assert after.rerolled == frozenset({0, 2})
    assert after.initial == pool.faces
    assert [e.index for e in after.history] == [0, 2]
    assert after.history[0].before is Element.SPIRIT
    assert after.history[1].before is Element.EARTH
    assert after.faces[1] is Element.VOID
    assert after.faces[0] is after.history[0].after
    assert after.rerollable == (1,)
    with pytest.raises(ValueError, match="already been rerolled"):
        reroll(after, [0], rng=rng)
    with pytest.raises(ValueError):
        reroll(after, [5], rng=rng)
    with pytest.raises(ValueError):
        reroll(pool, [1, 1], rng=rng)


def test_reroll_non_strict_skips_rerolled_dice():
    pool = reroll(roll_pool(4, rng=random.Random(2)), [1], rng=random.Random(9))
    again = reroll(pool, [0, 1, 2, 3], rng=random.Random(10), strict=False)
    assert again.rerolled == frozenset({0, 1, 2, 3})
    assert [e.index for e in again.history] == [1, 0, 2, 3]
    assert again.faces[1] == pool.faces[1]


def test_reroll_accepts_plain_sequence():
    after = reroll([Element.FIRE], [0], rng=random.Random(0))
    assert after.initial == (Element.FIRE,)
    assert len(after.history) == 1


@pytest.mark.parametrize("seed", range(5))
def test_affinity_test_records_faces(seed):
    result = affinity_test(Element.FIRE, rng=random.Random(seed))
    assert len(result.faces) == 3
    assert result.matches == result.faces.count(Element.FIRE)
    assert result.success == (result.matches >= 1)
    assert result.element is Element.FIRE


def test_affinity_test_required_and_dice_count():
    result = affinity_test("Water", rng=random.Random(4), dice=5, required=2)
    assert len(result.faces) == 5
    assert result.success == (result.faces.count(Element.WATER) >= 2)


def test_affinity_test_success_rate():
    rng = random.Random(11)
    n = 20_000
    wins = sum(affinity_test(Element.AIR, rng=rng).success for _ in range(n))
    p = 1 - (5 / 6) ** 3
    assert abs(wins / n - p) < 4 * (p * (1 - p) / n) ** 0.5


def test_choose_affinity_multiple():
    assert choose_affinity([Element.AIR, Element.SPIRIT]) is Element.AIR
    assert choose_affinity([Element.AIR, Element.SPIRIT], Element.SPIRIT) is Element.SPIRIT
    with pytest.raises(ValueError):
        choose_affinity([Element.AIR], Element.FIRE)
    with pytest.raises(ValueError):
        choose_affinity([])


@pytest.mark.parametrize("seed", range(20))
def test_opposed_affinity_test_rerolls_ties(seed):
    result = opposed_affinity_test(Element.FIRE, Element.WATER, rng=random.Random(seed))
    assert result.winner in ("first", "second")
    for r in result.rounds[:-1]:
        assert r.first.matches == r.second.matches
    last = result.final
    assert last.first.matches != last.second.matches
    assert (last.first.matches > last.second.matches) == (result.winner == "first")
    for r in result.rounds:
        assert len(r.first.faces) == 3 and len(r.second.faces) == 3


def test_opposed_affinity_test_records_a_tie_round():
    # some seed must produce at least one tie (ties are ~40% likely)
    results = [opposed_affinity_test("Earth", "Air", rng=random.Random(s)) for s in range(30)]
    assert any(len(r.rounds) > 1 for r in results)


def test_opposed_affinity_test_without_reroll():
    results = [opposed_affinity_test("Earth", "Air", rng=random.Random(s), reroll_ties=False) for s in range(40)]
    assert all(len(r.rounds) == 1 for r in results)
    assert any(r.winner is None for r in results)
