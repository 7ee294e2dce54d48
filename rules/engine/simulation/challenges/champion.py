"""Champion: each team's Champion (a non-chunin model) scores 3 points for each Injury it causes and
1 for each Stun; ``chosen_champion`` each time a model is chosen.

Policy: the best non-chunin attacker on the board is Champion, chosen again when it leaves."""

from __future__ import annotations

from collections.abc import Sequence

from ...challenges import CHAMPION_AWARD
from ..board import Model
from .base import OneModelPerTeam


class Champion(OneModelPerTeam):
    slug = "champion"
    role = "Champion"

    def candidates(self, t: int) -> Sequence[Model]:
        return [m for m in self.board.on_board(t) if not m.ninja.is_chunin]

    def pick(self, candidates: Sequence[Model]) -> Model:
        return max(candidates, key=lambda m: (m.ninja.attack, m.ninja.defense, -m.uid))

    def on_chosen(self, m: Model) -> None:
        m.feats[CHAMPION_AWARD] += 1

    def score_injury(self, victim: Model, by: Model) -> int:
        if not self.is_chosen(by):
            return 0
        self.score.add(by.team, 3, "Champion Injures")
        return 3

    def score_stun(self, victim: Model, by: Model) -> None:
        if self.is_chosen(by):
            self.score.add(by.team, 1, "Champion Stuns")

    def injury_bonus(self, attacker: Model, target: Model) -> float:
        bonus = 0.0
        if self.is_chosen(attacker):
            bonus += 3.0
        if self.is_chosen(target):
            bonus += 1.5
        return bonus
