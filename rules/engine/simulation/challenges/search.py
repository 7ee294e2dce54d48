"""Search: six crates (one per element, shuffled) guarded by sentries. Turning a crate face up:
1 point; checking it, a die: matching the crate's element finds an objective, 3 more points, and the
crate is gone. XP: ``check_crate`` per check, ``find_objective``. Models start in Stealth (the set-up ruling in :mod:`rules.engine.challenges`).

The crates stand in the centre band, a sentry deployed next to each. Policy: a free model goes to check a crate (face-down ones
first) unless a fight is worth more."""

from __future__ import annotations

from dataclasses import dataclass

from ...dice import ELEMENTS, Element
from ..board import CENTRE, Model
from .objectives import SentryGuarded


@dataclass
class Crate:
    element: Element
    face_up: bool = False
    gone: bool = False


class Search(SentryGuarded):
    slug = "search"

    def __init__(self, match) -> None:
        super().__init__(match)
        self.crates: list[Crate] = []

    def setup(self, first: int) -> None:
        faces = list(ELEMENTS)
        self.match.rng.shuffle(faces)
        self.crates = [Crate(f) for f in faces]
        self.deploy_sentries(first)

    def guarded(self) -> list[int]:
        """The crates stand in the centre band (the board has no width to spread them over)."""
        return [CENTRE] * len(self.crates)

    def action(self, m: Model, mv: int, stunned: bool) -> bool:
        crates = [c for c in self.crates if not c.gone]
        if not crates or m.engaged:
            return False
        if self.fight_worth_more(m, mv, stunned):
            return False
        if abs(m.progress - CENTRE) > 1:
            self.match.actions.advance(m, mv if stunned else 2 * mv, goal=CENTRE)
            return True
        crate = next((c for c in crates if not c.face_up), crates[0])
        m.feats["check_crate"] += 1
        m.stealth = False
        if not crate.face_up:
            crate.face_up = True
            self.score.add(m.team, 1, f"{m.name} turns a crate face up")
        face = self.journal.roll_one("crate", m)
        if face is crate.element:
            crate.gone = True
            m.feats["find_objective"] += 1
            self.score.add(m.team, 3, f"{m.name} finds an objective")
        return True
