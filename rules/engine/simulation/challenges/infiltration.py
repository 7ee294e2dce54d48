"""Infiltration: two medals guarded by sentries. Picking one up: 1 point (``pick_up_medal``);
carrying it to the own deployment edge: 2 points (``medal_to_deployment``). Models start in Stealth
(the set-up ruling in :mod:`rules.engine.challenges`).

The medals stand 8 and 13 spaces from the first team's edge (10 and 5 from the other's). An Injured
carrier drops its medal where it stood (rulebook "Medals"); a sentry that comes next to a medal lying
there returns it to its goal (the Infiltration special rules). Policy: a free model goes for the
nearest medal unless a fight is worth more; the carrier runs home."""

from __future__ import annotations

from ..board import Model, Sentry
from .objectives import Delivery, MedalChallenge, SentryGuarded

#: Where the two medals stand, in spaces from the first team's edge.
MEDAL_SPOTS = {0: 8, 1: 13}


class Infiltration(SentryGuarded, MedalChallenge):
    slug = "infiltration"
    delivery = Delivery(home=0, reach=0, points=2, feat="medal_to_deployment", why="brings a medal home")

    def __init__(self, match) -> None:
        super().__init__(match)
        self.loose: dict[int, int] = {}  # medal: the depth (first team's frame) it lies at, off its goal

    def setup(self, first: int) -> None:
        self.medals_home = {0: True, 1: True}
        self.deploy_sentries(first)

    def guarded(self) -> list[int]:
        return list(MEDAL_SPOTS.values())

    def loose_medals(self) -> dict[int, int]:
        return self.loose

    def retrieve(self, s: Sentry, medal: int) -> None:
        del self.loose[medal]
        self.journal.say(f"{s.name} returns a medal to its goal space")

    def drop(self, carrier: Model, by: Model | None) -> None:
        """ "Medals": the medal is placed in the space the Injured carrier occupied."""
        medal = self.release(carrier)
        if medal is None:
            return
        at = self.board.spot(carrier)
        if at != MEDAL_SPOTS[medal]:
            self.loose[medal] = at
            self.journal.say(f"the medal lies where {carrier.name} fell")

    def go_for_medal(self, m: Model, mv: int, stunned: bool) -> bool:
        options = []
        for medal, free in self.medals_home.items():
            if not free:
                continue
            at = self.board.frame(m, self.loose.get(medal, MEDAL_SPOTS[medal]))
            options.append((abs(m.progress - at), medal, at))
        if not options or m.engaged:
            return False
        if self.fight_worth_more(m, mv, stunned):
            return False
        _, medal, at = min(options)
        self.reach_and_pick_up(m, medal, at, mv, stunned, f"{m.name} picks up a medal")
        if m.carrying == medal:
            self.loose.pop(medal, None)
        return True
