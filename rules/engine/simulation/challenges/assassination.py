"""Assassination: each team has a VIP, picked by the player on its left. The VIP Injured: 3 points
and ``injure_vip`` to the injurer; the VIP Stunned: 1 point.

Policy: the VIP is the easiest model to Injure (lowest Defense, Resilient counting +1), picked again
when it leaves the board."""

from __future__ import annotations

from collections.abc import Sequence

from ...keywords import KW
from ..board import Model
from .base import OneModelPerTeam


class Assassination(OneModelPerTeam):
    slug = "assassination"
    role = "VIP"

    def pick(self, candidates: Sequence[Model]) -> Model:
        """The player to the left picks the VIP: the easiest model to Injure."""
        return min(candidates, key=lambda m: (m.ninja.defense + (1 if m.has(KW.RESILIENT) else 0), m.uid))

    def score_injury(self, victim: Model, by: Model) -> int:
        if not self.is_chosen(victim):
            return 0
        self.score.add(by.team, 3, "VIP Injured")
        by.feats["injure_vip"] += 1
        return 3

    def score_stun(self, victim: Model, by: Model) -> None:
        if self.is_chosen(victim):
            self.score.add(by.team, 1, "VIP Stunned")

    def injury_bonus(self, attacker: Model, target: Model) -> float:
        return 3.0 if self.is_chosen(target) else 0.0
