"""Brawl: 1 point per Injury, 2 when a non-chunin Injures a chunin; nine points win at once.
XP: ``injure_enemy`` per Injury, except a chunin Injuring a non-chunin."""

from __future__ import annotations

from ...challenges import BRAWL_WINNING_SCORE
from ..board import Model
from .base import Challenge


def chunin_against_non_chunin(chunin: Model, other: Model) -> bool:
    return chunin.ninja.is_chunin and not other.ninja.is_chunin


class Brawl(Challenge):
    slug = "brawl"
    win_at = BRAWL_WINNING_SCORE

    def score_injury(self, victim: Model, by: Model) -> int:
        pts = 2 if chunin_against_non_chunin(victim, by) else 1
        self.score.add(by.team, pts, f"{by.name} Injures {victim.name}")
        if not chunin_against_non_chunin(by, victim):
            by.feats["injure_enemy"] += 1
        return pts

    def injury_bonus(self, attacker: Model, target: Model) -> float:
        return 2.0 if chunin_against_non_chunin(target, attacker) else 1.0
