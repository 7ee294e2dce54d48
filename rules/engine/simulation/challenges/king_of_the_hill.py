"""King of the Hill: at the end of each round the team with most models in the scoring area scores
1 point, and one of its models there ``team_scores_in_area``. Models start in Stealth (the set-up ruling in :mod:`rules.engine.challenges`).

The scoring area is the centre band (within two spaces of the middle). Policy: models go there
first and fight there; the feat goes to a model there that earns XP, fewest feats first."""

from __future__ import annotations

from ..board import CENTRE, Model
from .base import Challenge


class KingOfTheHill(Challenge):
    slug = "king-of-the-hill"

    def action(self, m: Model, mv: int, stunned: bool) -> bool:
        if not self.board.in_centre(m) and not m.engaged:
            _target, value, _ = self.match.policy.best_target(m, mv, stunned=stunned)
            if value < 0.6:
                self.match.actions.advance(m, mv if stunned else 2 * mv, goal=CENTRE)
                return True
        return super().action(m, mv, stunned)

    def run_goal(self, m: Model) -> int | None:
        return None if self.board.in_centre(m) else CENTRE

    def end_of_round(self) -> None:
        n = self.match.n
        counts = [sum(1 for m in self.board.on_board(t) if self.board.in_centre(m)) for t in range(n)]
        top = max(counts)
        if top == 0 or counts.count(top) > 1:
            return
        t = counts.index(top)
        self.score.add(t, 1, "more models in the scoring area")
        inside = [m for m in self.board.on_board(t) if self.board.in_centre(m)]
        pick = max(inside, key=lambda m: (not m.ninja.is_hero, -sum(m.feats.values()), -m.uid))
        pick.feats["team_scores_in_area"] += 1
