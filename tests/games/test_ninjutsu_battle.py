"""Exact Ninjutsu battle odds (games/ninjutsu/engine/battle.py), against hand-worked fractions
and an independent enumeration of every sequence of rolls."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from games.ninjutsu.engine import MAX_SHURIKEN, Rank, battle_odds, duel_odds, odds_table

# Without shuriken the attacker wins iff his roll is strictly higher (a tie kills him, NJ l.80):
# P = sum over his faces x of min(x - 1, D) / D, divided by A, for an A-sided against a D-sided die.
HAND_WORKED = {
    (Rank.ONE_STAR, Rank.ONE_STAR): Fraction(15, 36),  # (0+1+2+3+4+5) / 36
    (Rank.ONE_STAR, Rank.TWO_STARS): Fraction(15, 48),  # (0+1+2+3+4+5) / 48
    (Rank.ONE_STAR, Rank.SOKE): Fraction(15, 72),  # (0+1+2+3+4+5) / 72
    (Rank.TWO_STARS, Rank.ONE_STAR): Fraction(27, 48),  # (0+1+2+3+4+5+6+6) / 48
    (Rank.TWO_STARS, Rank.TWO_STARS): Fraction(28, 64),  # (0+1+...+7) / 64
    (Rank.TWO_STARS, Rank.SOKE): Fraction(28, 96),  # (0+1+...+7) / 96
    (Rank.SOKE, Rank.ONE_STAR): Fraction(51, 72),  # (0+1+...+5 + 6*6) / 72
    (Rank.SOKE, Rank.TWO_STARS): Fraction(60, 96),  # (0+1+...+7 + 8*4) / 96
    (Rank.SOKE, Rank.SOKE): Fraction(66, 144),  # (0+1+...+11) / 144
}


def test_ranks_roll_the_books_dice():
    # NJ l.74-76: 1 star = 6-sided, 2 stars = 8-sided, Soke = 12-sided.
    assert [(r.label, r.die) for r in Rank] == [("1 star", 6), ("2 stars", 8), ("Soke", 12)]


@pytest.mark.parametrize(("attacker", "defender"), list(HAND_WORKED))
def test_every_rank_against_every_rank_without_shuriken(attacker, defender):
    odds = battle_odds(attacker, defender)
    assert odds.attacker_wins == HAND_WORKED[attacker, defender]
    assert odds.attacker_wins + odds.defender_wins == 1


def test_odds_table_has_the_nine_battles_in_order():
    table = odds_table()
    assert [(o.attacker, o.defender) for o in table] == list(HAND_WORKED)
    assert [o.attacker_wins for o in table] == list(HAND_WORKED.values())
    assert {(o.attacker_shuriken, o.defender_shuriken) for o in odds_table(attacker_shuriken=2)} == {(2, 0)}


def test_one_attacker_shuriken_d6_against_d6():
    # The attacker rerolls once if he lost; he loses only if both his rolls are <= y:
    # 1 - sum_y (1/6) (y/6)^2 = 1 - 91/216.
    assert duel_odds(6, 6, 1, 0) == Fraction(125, 216)
    assert battle_odds(Rank.ONE_STAR, Rank.ONE_STAR, attacker_shuriken=1).attacker_wins == Fraction(125, 216)


def test_one_defender_shuriken_d6_against_d6():
    # The attacker must beat the defender's first roll and his reroll: sum_x (1/6) ((x-1)/6)^2.
    assert duel_odds(6, 6, 0, 1) == Fraction(55, 216)


def test_one_shuriken_each_d6_against_d6():
    """By hand. If x > y the defender rerolls y': the attacker wins at once if y' < x, else he
    rerolls x' and wins if x' > y' (no shuriken left on either side):
        W(x) = (x-1)/6 + (1/36) * sum_{y'=x..6} (6-y') = 15,16,18,21,25,30 / 36 for x = 1..6.
    If x <= y the attacker rerolls x'; if x' > y the defender rerolls y'' and the attacker wins
    if y'' < x':  L(y) = (1/36) * sum_{x'=y+1..6} (x'-1) = 15,14,12,9,5,0 / 36 for y = 1..6.
    P = (1/36) * (sum_x (x-1) W(x) + sum_y y L(y)) = (365 + 140) / 1296."""
    assert duel_odds(6, 6, 1, 1) == Fraction(505, 1296)


def brute_force(attacker_die, defender_die, a, d):
    """Every assignment of faces to the at most 1 + a attacker rolls and 1 + d defender rolls,
    played out under the ruling (the losing side rerolls while it has shuriken); unused rolls
    do not matter, so each assignment has the same weight."""
    wins = 0
    for attacker_rolls in product(range(1, attacker_die + 1), repeat=1 + a):
        for defender_rolls in product(range(1, defender_die + 1), repeat=1 + d):
            i = j = 0
            while True:
                if attacker_rolls[i] > defender_rolls[j]:
                    if j == d:
                        wins += 1
                        break
                    j += 1
                else:
                    if i == a:
                        break
                    i += 1
    return Fraction(wins, attacker_die ** (1 + a) * defender_die ** (1 + d))


@pytest.mark.parametrize(
    ("attacker_die", "defender_die", "a", "d"),
    [
        (6, 6, 2, 2),
        (6, 8, 1, 2),
        (8, 6, 3, 0),
        (12, 6, 1, 1),
        (6, 12, 2, 1),
        (12, 8, 1, 1),
        (8, 12, 0, 3),
        (3, 2, 3, 3),
    ],
)
def test_shuriken_odds_equal_an_enumeration_of_every_roll_sequence(attacker_die, defender_die, a, d):
    assert duel_odds(attacker_die, defender_die, a, d) == brute_force(attacker_die, defender_die, a, d)


def test_more_shuriken_never_hurt_their_owner():
    for attacker in Rank:
        for defender in Rank:
            row = [
                [
                    battle_odds(attacker, defender, attacker_shuriken=a, defender_shuriken=d).attacker_wins
                    for d in range(4)
                ]
                for a in range(4)
            ]
            for a in range(4):
                for d in range(4):
                    assert 0 < row[a][d] < 1
                    if a:
                        assert row[a][d] > row[a - 1][d]
                    if d:
                        assert row[a][d] < row[a][d - 1]


def test_the_most_shuriken_a_game_has_is_computed_exactly():
    odds = battle_odds(Rank.ONE_STAR, Rank.SOKE, attacker_shuriken=MAX_SHURIKEN, defender_shuriken=0)
    # He loses only if all 11 rolls of his d6 fail to beat the Soke's single roll.
    assert odds.attacker_wins == 1 - sum(Fraction(min(y, 6), 6) ** 11 for y in range(1, 13)) / 12


@pytest.mark.parametrize("bad", [-1, MAX_SHURIKEN + 1, 1.5, True, "2"])
def test_shuriken_counts_are_checked(bad):
    with pytest.raises(ValueError):
        battle_odds(Rank.SOKE, Rank.SOKE, attacker_shuriken=bad)
    with pytest.raises(ValueError):
        duel_odds(6, 6, 0, bad)
    with pytest.raises(ValueError):
        duel_odds(0, 6)
