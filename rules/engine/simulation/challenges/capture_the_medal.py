"""Capture the Medal: each team's medal stands in a goal near its edge. Picking up an enemy medal:
1 point (``pick_up_medal``); capturing it next to the own goal: 4 points
(``capture_enemy_medal``); Injuring the carrier of the own team's medal returns it
(``return_own_medal``). Models start in Stealth (the set-up ruling in :mod:`rules.engine.challenges`).

Policy: up to two fast free models run for the medal of the leading enemy team (4 spaces from that
team's edge); the carrier runs back."""

from __future__ import annotations

from ..board import BOARD_DEPTH, Model
from .objectives import Delivery, MedalChallenge

#: Each team's goal space, in spaces from its own edge.
GOAL = 4


class CaptureTheMedal(MedalChallenge):
    slug = "capture-the-medal"
    delivery = Delivery(home=GOAL, reach=1, points=4, feat="capture_enemy_medal", why="captures a medal")

    def setup(self, first: int) -> None:
        self.medals_home = dict.fromkeys(range(self.match.n), True)

    def go_for_medal(self, m: Model, mv: int, stunned: bool) -> bool:
        """The fastest free models go for an enemy medal."""
        if m.engaged:
            return False
        runners = [r for r in self.board.on_board(m.team) if r.run_target is not None]
        if m.run_target is None:
            if len(runners) >= 2 or (m.ninja.movement < 6 and len(runners) >= 1):
                return False
            homes = [t for t, home in self.medals_home.items() if home and t != m.team]
            if not homes:
                return False
            m.run_target = max(homes, key=lambda t: (self.score.points[t], -t))
        medal = m.run_target
        if not self.medals_home.get(medal, False):
            m.run_target = None
            return False
        at = BOARD_DEPTH - GOAL
        why = f"{m.name} picks up the medal of {self.match.tname(medal)}"
        return self.reach_and_pick_up(m, medal, at, mv, stunned, why)

    def credit_return(self, medal: int, by: Model | None) -> bool:
        if by is None or by.team != medal:
            return False
        by.feats["return_own_medal"] += 1
        self.journal.say(f"{by.name} returns its team's medal")
        return True
