"""Intercept the Messenger: one team attacks, every other defends with a messenger. The attacker
scores 1 point and ``injure_messenger`` per messenger Injured; a defender scores 2 points and
``messenger_escapes`` when its messenger leaves by the far edge (it goes to the Training Ground and
another is chosen). Models start in Stealth (the set-up ruling in :mod:`rules.engine.challenges`).

Policy: the initiative winner at set-up attacks; the fastest model in the deployment zone is the
messenger and runs for the far edge, dodging out of contact; Injuring it is worth 3 more."""

from __future__ import annotations

from collections.abc import Sequence

from ...keywords import KW
from ..board import BOARD_DEPTH, TRAINING, Model
from .base import OneModelPerTeam


class InterceptTheMessenger(OneModelPerTeam):
    slug = "intercept-the-messenger"
    role = "messenger"

    def __init__(self, match) -> None:
        super().__init__(match)
        self.attacker_team = 0

    def has_one(self, t: int) -> bool:
        return t != self.attacker_team

    def candidates(self, t: int) -> Sequence[Model]:
        return [m for m in self.board.on_board(t) if m.progress == 0 and m.carrying is None]

    def pick(self, candidates: Sequence[Model]) -> Model:
        return max(candidates, key=lambda m: (m.ninja.movement, m.has(KW.NIMBLE), -m.uid))

    def setup(self, first: int) -> None:
        self.attacker_team = first
        super().setup(first)

    def action(self, m: Model, mv: int, stunned: bool) -> bool:
        if self.is_chosen(m):
            return self.messenger_move(m, mv, stunned)
        return super().action(m, mv, stunned)

    def messenger_move(self, m: Model, mv: int, stunned: bool) -> bool:
        spaces = mv if (stunned or m.engaged) else 2 * mv + (2 if m.has(KW.SPRINT) else 0)
        self.match.actions.advance(m, spaces, goal=BOARD_DEPTH)
        if m.on_board and m.progress >= BOARD_DEPTH:
            m.feats["messenger_escapes"] += 1
            self.score.add(m.team, 2, f"{m.name} gets off the board")
            self.board.leave(m, TRAINING)
            self.chosen[m.team] = None
            self.choose(m.team)
        return True

    def score_injury(self, victim: Model, by: Model) -> int:
        if by.team != self.attacker_team or not self.is_chosen(victim):
            return 0
        self.score.add(by.team, 1, "messenger Injured")
        by.feats["injure_messenger"] += 1
        return 1

    def injury_bonus(self, attacker: Model, target: Model) -> float:
        return 3.0 if self.is_chosen(target) else 0.0
