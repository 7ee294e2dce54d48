"""Infiltration: two medals guarded by sentries. Picking one up: 1 point (``pick_up_medal``);
carrying it to the own deployment edge: 2 points (``medal_to_deployment``). Models start in Stealth (the set-up ruling in :mod:`rules.engine.challenges`).

The medals stand 8 and 13 spaces from the first team's edge (10 and 5 from the other's). Policy: a
free model goes for the nearest medal unless a fight is worth more; the carrier runs home."""

from __future__ import annotations

from ..board import BOARD_DEPTH, Model
from .objectives import Delivery, MedalChallenge, SentryGuarded

#: Where the two medals stand, in spaces from the first team's edge.
MEDAL_SPOTS = {0: 8, 1: 13}


class Infiltration(SentryGuarded, MedalChallenge):
    slug = "infiltration"
    delivery = Delivery(home=0, reach=0, points=2, feat="medal_to_deployment", why="brings a medal home")

    def setup(self, first: int) -> None:
        self.medals_home = {0: True, 1: True}

    def may_pick_up(self, m: Model) -> bool:
        return self.sentry_attack(m)

    def go_for_medal(self, m: Model, mv: int, stunned: bool) -> bool:
        side = m.team % 2
        options = []
        for medal, home in self.medals_home.items():
            if not home:
                continue
            at = MEDAL_SPOTS[medal] if side == 0 else BOARD_DEPTH - MEDAL_SPOTS[medal]
            options.append((abs(m.progress - at), medal, at))
        if not options or m.engaged:
            return False
        if self.fight_worth_more(m, mv, stunned):
            return False
        _, medal, at = min(options)
        return self.reach_and_pick_up(m, medal, at, mv, stunned, f"{m.name} picks up a medal")
