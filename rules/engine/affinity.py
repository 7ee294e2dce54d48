"""Affinity tests (rulebook: "Affinity and Tests").

*When the game requires a model to make an affinity test, the model's
player rolls three dice. If at least one dice shows the icon for the element
the model has as an affinity for, the affinity test is successful.*

*Models with more than one Affinity must choose which element will be used
before the model makes the affinity test.*

*When a model is required to make an opposed affinity test, then both
players make an affinity test. The player who rolls the most elemental icons
matching their Affinity wins the opposed affinity test. If there is a tie,
the players roll again.*
"""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from .dice import Element, as_element, roll_dice

__all__ = [
    "AffinityTest",
    "OpposedRound",
    "OpposedAffinityTest",
    "choose_affinity",
    "affinity_test",
    "opposed_affinity_test",
]

Winner = Literal["first", "second"]


@dataclass(frozen=True)
class AffinityTest:
    """The outcome of one affinity test.

    ``element`` is the affinity used, ``faces`` every die rolled,
    ``matches`` how many faces show ``element``, ``required`` how many were
    needed (1 normally; e.g. 2 when dodging away from Ika's Tentacles).
    """

    element: Element
    faces: tuple[Element, ...]
    matches: int
    required: int
    success: bool


@dataclass(frozen=True)
class OpposedRound:
    """One roll-off of an opposed affinity test (both sides' tests)."""

    first: AffinityTest
    second: AffinityTest


@dataclass(frozen=True)
class OpposedAffinityTest:
    """An opposed affinity test with every roll-off recorded.

    ``winner`` is ``"first"`` or ``"second"``; it is ``None`` only when ties
    are not rerolled (``reroll_ties=False``) and the single round tied.
    """

    rounds: tuple[OpposedRound, ...]
    winner: Winner | None

    @property
    def final(self) -> OpposedRound:
        """The deciding (last) round."""
        return self.rounds[-1]


def choose_affinity(
    affinities: Element | str | Collection[Element | str],
    chosen: Element | str | None = None,
) -> Element:
    """Pick the single element a model tests with ("Affinity and Tests").

    A model with several affinities must choose one *before* rolling.  If
    ``chosen`` is given it must be one of the model's affinities; otherwise
    the first listed affinity is used (the choice does not change the odds
    of a plain test, and it is recorded in the result).
    """
    if isinstance(affinities, (Element, str)):
        options = (as_element(affinities),)
    else:
        options = tuple([as_element(a) for a in affinities])
    if not options:
        raise ValueError("a model needs at least one affinity to make a test")
    if chosen is None:
        return options[0]
    element = as_element(chosen)
    if element not in options:
        raise ValueError(f"{element.value} is not one of the model's affinities")
    return element


def affinity_test(
    affinities: Element | str | Collection[Element | str],
    *,
    rng: random.Random,
    dice: int = 3,
    required: int = 1,
    chosen: Element | str | None = None,
) -> AffinityTest:
    """Roll an affinity test: ``dice`` dice (3 by rule), success if at least
    ``required`` (1 by rule) show the chosen affinity ("Affinity and Tests")."""
    element = choose_affinity(affinities, chosen)
    faces = roll_dice(dice, rng=rng)
    matches = sum(1 for f in faces if f is element)
    return AffinityTest(
        element=element,
        faces=faces,
        matches=matches,
        required=required,
        success=matches >= required,
    )


def opposed_affinity_test(
    first: Element | str | Collection[Element | str],
    second: Element | str | Collection[Element | str],
    *,
    rng: random.Random,
    dice: int = 3,
    first_chosen: Element | str | None = None,
    second_chosen: Element | str | None = None,
    reroll_ties: bool = True,
    max_rounds: int = 10_000,
) -> OpposedAffinityTest:
    """Opposed affinity test: most matching icons wins; ties roll again.

    Every roll-off is kept in ``rounds``.  Each side keeps the affinity it
    chose for the whole test.  Pass ``reroll_ties=False`` where a rule
    resolves ties differently (e.g. sentry activation: "If the test is
    tied, then the player with the initiative activates a sentry"); the
    result then has ``winner=None`` on a tie.
    """
    first_element = choose_affinity(first, first_chosen)
    second_element = choose_affinity(second, second_chosen)
    rounds: list[OpposedRound] = []
    for _ in range(max_rounds):
        a = affinity_test(first_element, rng=rng, dice=dice)
        b = affinity_test(second_element, rng=rng, dice=dice)
        rounds.append(OpposedRound(first=a, second=b))
        if a.matches != b.matches:
            return OpposedAffinityTest(
                rounds=tuple(rounds),
                winner="first" if a.matches > b.matches else "second",
            )
        if not reroll_ties:
            return OpposedAffinityTest(rounds=tuple(rounds), winner=None)
    raise RuntimeError(f"opposed affinity test still tied after {max_rounds} rounds")
