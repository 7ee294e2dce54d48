"""Exact odds of a Ninjutsu battle (rulebook lines cited as NJ l.N).

A battle (NJ l.66-80): both ninjas are revealed and each player rolls the die of his ninja's
rank into the Dojo -- 1 star a d6, 2 stars a d8, the Soke a d12 (NJ l.74-76).  The higher roll
kills the other ninja (NJ l.78); a tie kills the attacker (NJ l.80).

Shuriken (NJ l.84, l.92-94) let a player "reclaim and reroll his die", as many times as he has
shuriken.  The book does not say who may reroll when; the ruling used here (docs/rulings.md,
"Ninjutsu") is that **after both dice have landed, only the player whose die is losing may spend
a shuriken to reroll it**, and the odds assume he does so while he has shuriken left (declining
loses the battle for certain, so it is his best chance of winning this battle).  The winner of
the roll never rerolls.  Each player brings a number of shuriken to the battle (0 to 10: at
most 10 exist, NJ l.94).

Dice that leave the Dojo (NJ l.86) or are knocked by the opponent (NJ l.28, l.88) are dexterity,
not chance, and are not modelled: every roll is a fair die.

Nothing is sampled: every sequence of faces is enumerated, with exact :class:`fractions.Fraction`
probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from functools import cache

__all__ = ["MAX_SHURIKEN", "BattleOdds", "Rank", "battle_odds", "duel_odds", "odds_table"]

MAX_SHURIKEN = 10  # "during a game a maximum of 10 shurikens can be used" (NJ l.94)


class Rank(Enum):
    """A ninja's rank, shown by the star on the piece, and the die it battles with (NJ l.70-76)."""

    ONE_STAR = ("1 star", 6)
    TWO_STARS = ("2 stars", 8)
    SOKE = ("Soke", 12)

    def __init__(self, label: str, die: int) -> None:
        self.label = label
        self.die = die


@dataclass(frozen=True)
class BattleOdds:
    """The exact chance of each side winning one battle; the two add up to 1 (no draws:
    a tie kills the attacker, NJ l.80)."""

    attacker: Rank
    defender: Rank
    attacker_shuriken: int
    defender_shuriken: int
    attacker_wins: Fraction

    @property
    def defender_wins(self) -> Fraction:
        return 1 - self.attacker_wins


def _check_shuriken(count: int, who: str) -> None:
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_SHURIKEN:
        raise ValueError(f"{who} shuriken must be a whole number from 0 to {MAX_SHURIKEN}")


def _check_die(sides: int, who: str) -> None:
    if not isinstance(sides, int) or isinstance(sides, bool) or sides < 1:
        raise ValueError(f"the {who}'s die must have at least one side")


@cache
def _winning(attacker_die: int, defender_die: int, a: int, d: int, x: int) -> Fraction:
    """P(attacker wins) while his ``x`` beats the defender's face, with ``a`` and ``d`` shuriken
    left: the defender rerolls if he can (the ruling above)."""
    if d == 0:
        return Fraction(1)
    total = sum(
        _winning(attacker_die, defender_die, a, d - 1, x) if x > y else _losing(attacker_die, defender_die, a, d - 1, y)
        for y in range(1, defender_die + 1)
    )
    return total / defender_die


@cache
def _losing(attacker_die: int, defender_die: int, a: int, d: int, y: int) -> Fraction:
    """P(attacker wins) while his face ties or is below the defender's ``y``: he rerolls if he
    can; a tie or a lower roll kills him (NJ l.78-80)."""
    if a == 0:
        return Fraction(0)
    total = sum(
        _winning(attacker_die, defender_die, a - 1, d, x) if x > y else _losing(attacker_die, defender_die, a - 1, d, y)
        for x in range(1, attacker_die + 1)
    )
    return total / attacker_die


def duel_odds(attacker_die: int, defender_die: int, attacker_shuriken: int = 0, defender_shuriken: int = 0) -> Fraction:
    """P(attacker wins) for dice of any number of sides (the ranks' dice are 6, 8 and 12)."""
    _check_die(attacker_die, "attacker")
    _check_die(defender_die, "defender")
    _check_shuriken(attacker_shuriken, "attacker")
    _check_shuriken(defender_shuriken, "defender")
    a, d = attacker_shuriken, defender_shuriken
    total = sum(
        _winning(attacker_die, defender_die, a, d, x) if x > y else _losing(attacker_die, defender_die, a, d, y)
        for x in range(1, attacker_die + 1)
        for y in range(1, defender_die + 1)
    )
    return total / (attacker_die * defender_die)


def battle_odds(
    attacker: Rank, defender: Rank, *, attacker_shuriken: int = 0, defender_shuriken: int = 0
) -> BattleOdds:
    """The exact odds of ``attacker`` attacking ``defender``, each spending up to the given
    number of shuriken on rerolls."""
    return BattleOdds(
        attacker=attacker,
        defender=defender,
        attacker_shuriken=attacker_shuriken,
        defender_shuriken=defender_shuriken,
        attacker_wins=duel_odds(attacker.die, defender.die, attacker_shuriken, defender_shuriken),
    )


def odds_table(*, attacker_shuriken: int = 0, defender_shuriken: int = 0) -> tuple[BattleOdds, ...]:
    """Every rank against every rank (9 battles), attacker rank by attacker rank."""
    return tuple(
        battle_odds(a, d, attacker_shuriken=attacker_shuriken, defender_shuriken=defender_shuriken)
        for a in Rank
        for d in Rank
    )
