"""Elemental dice (rulebook: "Game Concepts", "Rerolls").

Ninja All-Stars dice have six faces, one per sacred element of Kagejima:
Spirit, Void, Earth, Air, Water and Fire.  The elements come in three
opposition pairs used by combat eliminations ("Combat"):

* Spirit and Void eliminate each other.
* Earth and Air eliminate each other.
* Fire and Water eliminate each other.

"Dice that have been rerolled cannot be rerolled again" ("Rerolls") --
:func:`reroll` enforces this by tracking rerolled indices in a
:class:`DicePool`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

__all__ = [
    "Element",
    "ELEMENTS",
    "OPPOSITION_PAIRS",
    "OPPOSITE",
    "opposite",
    "roll_die",
    "roll_dice",
    "RerollEvent",
    "DicePool",
    "roll_pool",
    "reroll",
    "parse_faces",
    "as_element",
]


class Element(str, Enum):
    """One face of a Ninja All-Stars die."""

    SPIRIT = "Spirit"
    VOID = "Void"
    EARTH = "Earth"
    AIR = "Air"
    WATER = "Water"
    FIRE = "Fire"

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


#: All six faces, in a fixed canonical order (index = die face number 0..5).
ELEMENTS: tuple[Element, ...] = tuple(Element)

#: The three opposition pairs (rulebook "Combat").
OPPOSITION_PAIRS: tuple[tuple[Element, Element], ...] = (
    (Element.SPIRIT, Element.VOID),
    (Element.EARTH, Element.AIR),
    (Element.FIRE, Element.WATER),
)

#: Element -> the element that eliminates it.
OPPOSITE: dict[Element, Element] = {
    **dict(OPPOSITION_PAIRS),
    **{b: a for a, b in OPPOSITION_PAIRS},
}


#: Each element by itself and by its value: what ``Element(x)`` gives for those, without the enum's
#: call (dice are coerced on every roll, reroll and record).
_ELEMENT_OF: dict = {**{e: e for e in Element}, **{e.value: e for e in Element}}


def as_element(value: Element | str) -> Element:
    """``Element(value)``, faster for an element or an element's value (anything else: the enum decides)."""
    try:
        return _ELEMENT_OF[value]
    except (KeyError, TypeError):
        return Element(value)


def opposite(element: Element) -> Element:
    """Return the element that eliminates ``element`` in combat ("Combat")."""
    return OPPOSITE[as_element(element)]


def roll_die(*, rng: random.Random) -> Element:
    """Roll a single fair six-sided elemental die."""
    return ELEMENTS[rng.randrange(6)]


def roll_dice(n: int, *, rng: random.Random) -> tuple[Element, ...]:
    """Roll ``n`` elemental dice and return every face, in roll order.

    ``n`` may be 0 (an empty roll); negative counts raise ``ValueError``.
    """
    if n < 0:
        raise ValueError(f"cannot roll a negative number of dice: {n}")
    randrange = rng.randrange  # what roll_die draws, die after die, without a call for each
    return tuple([ELEMENTS[randrange(6)] for _ in range(n)])


def parse_faces(faces: Iterable[Element | str]) -> tuple[Element, ...]:
    """Coerce stored face values (``"Void"`` or ``Element.VOID``) to elements.

    Useful for scripted dice in tests and for replaying stored rolls.
    """
    return tuple([as_element(f) for f in faces])


@dataclass(frozen=True)
class RerollEvent:
    """One die being rerolled: its index in the pool, old and new face."""

    index: int
    before: Element
    after: Element


@dataclass(frozen=True)
class DicePool:
    """A rolled pool of dice plus its reroll history.

    ``faces`` are the current faces (after any rerolls); ``initial`` the
    faces as first rolled; ``rerolled`` the indices that have been rerolled
    and therefore may not be rerolled again ("Rerolls").
    """

    faces: tuple[Element, ...]
    initial: tuple[Element, ...] = ()
    rerolled: frozenset[int] = frozenset()
    history: tuple[RerollEvent, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "faces", parse_faces(self.faces))
        if not self.initial:
            object.__setattr__(self, "initial", self.faces)
        else:
            object.__setattr__(self, "initial", parse_faces(self.initial))
        if len(self.initial) != len(self.faces):
            raise ValueError("initial and current faces differ in length")

    def __len__(self) -> int:
        return len(self.faces)

    def can_reroll(self, index: int) -> bool:
        """True if die ``index`` exists and has not been rerolled yet."""
        return 0 <= index < len(self.faces) and index not in self.rerolled

    @property
    def rerollable(self) -> tuple[int, ...]:
        """Indices of dice that may still be rerolled."""
        return tuple([i for i in range(len(self.faces)) if i not in self.rerolled])


def roll_pool(n: int, *, rng: random.Random) -> DicePool:
    """Roll ``n`` dice into a fresh :class:`DicePool` with no rerolls."""
    return DicePool(faces=roll_dice(n, rng=rng))


def reroll(
    pool: DicePool | Sequence[Element],
    indices: Iterable[int],
    *,
    rng: random.Random,
    strict: bool = True,
) -> DicePool:
    """Reroll the dice at ``indices`` and return the updated pool.

    Rulebook "Rerolls": *Dice that have been rerolled cannot be rerolled
    again.*  With ``strict=True`` (default) asking to reroll an already
    rerolled die (or an index out of range, or the same index twice in one
    call) raises ``ValueError``; with ``strict=False`` such dice are
    silently skipped (useful for "reroll every die that is not X" effects
    such as the Mastery keywords).  Dice are rerolled in ascending index
    order so a seeded ``rng`` is reproducible.
    """
    if not isinstance(pool, DicePool):
        pool = DicePool(faces=tuple(pool))
    wanted = list(indices)
    if strict and len(set(wanted)) != len(wanted):
        raise ValueError(f"die listed twice in one reroll: {wanted}")
    chosen: list[int] = []
    for index in sorted(set(wanted)):
        if pool.can_reroll(index):
            chosen.append(index)
        elif strict:
            if not 0 <= index < len(pool.faces):
                raise ValueError(f"no die at index {index}")
            raise ValueError(f"die {index} has already been rerolled")
    faces = list(pool.faces)
    events: list[RerollEvent] = []
    for index in chosen:
        new = roll_die(rng=rng)
        events.append(RerollEvent(index=index, before=faces[index], after=new))
        faces[index] = new
    return DicePool(
        faces=tuple(faces),
        initial=pool.initial,
        rerolled=pool.rerolled | frozenset(chosen),
        history=pool.history + tuple(events),
    )
