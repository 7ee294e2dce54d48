"""The match's journal: one log line per event, every die rolled (recorded as it is rolled), every
Injury. What a replay shows and what the app stores (``SimulationRun``)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..affinity import affinity_test
from ..dice import Element, as_element, roll_dice

#: A face as the record writes it (its value), for an element or its value.
_FACE_TEXT: dict = {**{e: e.value for e in Element}, **{e.value: e.value for e in Element}}

if TYPE_CHECKING:
    from .board import Model


@dataclass(frozen=True)
class DiceRecord:
    """Every die rolled in the match: round, what for, who, the faces."""

    round: int
    kind: str
    model: str
    faces: tuple[str, ...]


@dataclass(frozen=True)
class InjuryEvent:
    """One model Injured: who (ninja ids; ``by_id`` None for Poison, a
    failed dodge, its own Fire or a sentry), and the points it scored."""

    round: int
    victim_id: int
    by_id: int | None
    points: int


class Journal:
    """The log, the dice and the Injuries, stamped with the current ``round`` (0: set-up).

    It also rolls the dice that are not a fight's (affinity tests, single dice), so that every one
    of them is written down as it is rolled.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.round = 0
        self.log: list[str] = []
        self.dice: list[DiceRecord] = []
        self.injuries: list[InjuryEvent] = []

    def say(self, text: str) -> None:
        self.log.append(f"R{self.round}: {text}")

    def record_dice(self, kind: str, model: str, faces: Iterable) -> None:
        text = _FACE_TEXT
        self.dice.append(
            DiceRecord(
                self.round,
                kind,
                model,
                tuple([text.get(f) or str(as_element(f).value) for f in faces]),
            )
        )

    def record_protection(self, s) -> None:
        """The Resilient dice of a :class:`~rules.engine.keywords.Suffered`."""
        for roll in s.rolls:
            self.record_dice("resilient", roll.model, roll.faces)

    def record_injury(self, victim: Model, by: Model | None, points: int) -> None:
        self.injuries.append(InjuryEvent(self.round, victim.ninja.ninja_id, by.ninja.ninja_id if by else None, points))

    def test(self, m: Model, kind: str, *, required: int = 1, nimble: bool = False) -> bool:
        """An affinity test for ``m`` (Nimble: reroll the dice that failed)."""
        t = affinity_test(m.ninja.affinities, rng=self.rng, required=required)
        self.record_dice(kind, m.name, t.faces)
        ok = t.success
        if not ok and nimble:
            keep = t.matches
            again = roll_dice(3 - keep, rng=self.rng)
            self.record_dice(kind + " (Nimble reroll)", m.name, again)
            ok = keep + sum(1 for f in again if f is t.element) >= required
        return ok

    def roll_one(self, kind: str, m: Model) -> Element:
        """One die for ``m`` (Poison, a crate)."""
        face = roll_dice(1, rng=self.rng)[0]
        self.record_dice(kind, m.name, (face,))
        return face
