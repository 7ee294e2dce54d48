"""What two challenges share: medals to pick up and carry (Infiltration, Capture the Medal) and the
Samurai Sentries that guard objectives (Infiltration, Search).

Sentries are not on the board: each objective attempt meets one with the :attr:`Geometry.sentry`
chance (Attack 3, Defense 3, the affinities of the next team's first model); an Injured sentry is out
for two rounds (two Delay tokens); while all six are out, objectives are unguarded.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...dice import Element
from ...keywords import CombatantSnapshot, FightContext, Harm, fight
from ..board import Model
from .base import Challenge

#: Samurai Sentries guarding the objectives.
SENTRIES = 6
#: The status effect an Injured sentry gets two of ("Samurai Sentry": it stays in the Healing House while it has one).
DELAY = "Delay"


class SentryGuarded(Challenge):
    def __init__(self, match) -> None:
        super().__init__(match)
        self.sentries_down: list[int] = []  # rounds left in the Healing House per Injured sentry

    def upkeep(self) -> None:
        self.sentries_down = [d - 1 for d in self.sentries_down if d - 1 > 0]

    def fight_worth_more(self, m: Model, mv: int, stunned: bool) -> bool:
        """Policy: a model leaves the objective for a fight worth more than 1."""
        _target, value, _ = self.match.policy.best_target(m, mv, stunned=stunned)
        return value > self.match.side_policies[m.team].objective_margin

    def sentry_attack(self, m: Model) -> bool:
        """A sentry guarding the objective attacks ``m`` first (with the
        :attr:`Geometry.sentry` chance).  True if ``m`` may go on."""
        match = self.match
        active = SENTRIES - len(self.sentries_down)
        if active <= 0 or match.rng.random() >= match.geo.sentry:
            return True
        enemy_team = (m.team + 1) % match.n
        roster = match.teams[enemy_team].roster
        affs = roster[0].affinities if roster else (Element.EARTH,)
        sentry = CombatantSnapshot("Samurai Sentry", 3, 3, affs)
        out = fight(sentry, m.snapshot(), context=FightContext(), rng=match.rng, policy=match.fight_policy)
        self.journal.record_dice("sentry attack", "Samurai Sentry", out.combat.attack_initial)
        self.journal.record_dice("defense", m.name, out.combat.defense_initial)
        self.journal.record_protection(out.defender)
        res = out.result.value if out.result else "no result"
        self.journal.say(f"a Samurai Sentry attacks {m.name}: {res}")
        if out.attacker.harm is Harm.INJURED:
            m.injuries += 1  # sentries are enemy models
            self.sentries_down.append(2)
            self.journal.say(f"the sentry is Injured (two {DELAY} tokens)")
        match.referee.harm(m, out.defender.harm, by=None)
        return m.on_board and out.defender.harm is Harm.NONE


@dataclass(frozen=True)
class Delivery:
    """Where a carried medal scores: at position ``home`` (or within ``reach`` of it), ``points``
    and the XP feat ``feat``; ``why`` for the log."""

    home: int
    reach: int
    points: int
    feat: str
    why: str


class MedalChallenge(Challenge):
    """Medals in goal spaces: a model next to one picks it up (1 point, ``pick_up_medal``), carries
    it as :attr:`delivery` says, and drops it (back to its goal) when Injured. Injuring a carrier is
    worth 2 more to the targeting policy."""

    delivery: Delivery

    def __init__(self, match) -> None:
        super().__init__(match)
        self.medals_home: dict[int, bool] = {}

    def action(self, m: Model, mv: int, stunned: bool) -> bool:
        if m.carrying is not None:
            return self.carry_medal(m, mv, stunned)
        return self.go_for_medal(m, mv, stunned)

    def go_for_medal(self, m: Model, mv: int, stunned: bool) -> bool:
        """``m`` carries nothing: go for a medal if the policy says so; True if it did."""
        raise NotImplementedError

    def may_pick_up(self, m: Model) -> bool:
        """Anything that stops ``m`` picking up the medal it reached (Infiltration: a sentry)."""
        return True

    def reach_and_pick_up(self, m: Model, medal: int, at: int, mv: int, stunned: bool, why: str) -> bool:
        """Move toward the medal at position ``at``; once next to it, pick it up. A Stunned model
        that had to move does not pick it up in the same activation."""
        moved = abs(m.progress - at) > 1
        if not self.objective_reach(m, at, mv if stunned else 2 * mv) or (stunned and moved):
            return True
        if not self.may_pick_up(m):
            return True
        m.carrying = medal
        m.run_target = None
        self.medals_home[medal] = False
        m.feats["pick_up_medal"] += 1
        self.score.add(m.team, 1, why)
        return True

    def objective_reach(self, m: Model, at: int, mv: int) -> bool:
        """Move toward position ``at``; True once adjacent to it."""
        if abs(m.progress - at) <= 1:
            return True
        self.match.actions.advance(m, mv, goal=at)
        return m.on_board and abs(m.progress - at) <= 1

    def carry_medal(self, m: Model, mv: int, stunned: bool) -> bool:
        to = self.delivery
        self.match.actions.advance(m, mv if stunned or m.engaged else 2 * mv, goal=to.home)
        if not m.on_board or m.carrying is None:
            return True
        if m.progress <= to.home + to.reach:
            medal = m.carrying
            m.carrying = None
            self.medals_home[medal] = True
            m.feats[to.feat] += 1
            self.score.add(m.team, to.points, f"{m.name} {to.why}")
        return True

    def drop(self, carrier: Model, by: Model | None) -> None:
        if carrier.carrying is None:
            return
        medal = carrier.carrying
        carrier.carrying = None
        self.medals_home[medal] = True
        if not self.credit_return(medal, by):
            self.journal.say("the medal goes back to its goal space")

    def credit_return(self, medal: int, by: Model | None) -> bool:
        """A dropped medal goes back to its goal; True if ``by`` is credited with returning it."""
        return False

    def injury_bonus(self, attacker: Model, target: Model) -> float:
        return 2.0 if target.carrying is not None else 0.0
