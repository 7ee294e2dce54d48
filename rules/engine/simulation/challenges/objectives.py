"""What two challenges share: medals to pick up and carry (Infiltration, Capture the Medal) and the
Samurai Sentries that guard objectives (Infiltration, Search).

Sentries ("Sentries", rulebook lines 534-547) are on the board (:class:`~..board.Sentry`, a depth in
the first team's frame). The six are deployed at set-up by the players in turn from the initiative
player, each within two spaces of the object it guards. After every team has had a turn, an opposed
affinity test (a tie: the initiative player) says who activates one sentry; every sentry not yet
activated acts before the round ends. An activated sentry that sees a model (not in Stealth) within
five spaces moves to the closest and attacks it (Attack 3, Defense 3; the other sentries next to the
target assist); otherwise its player moves it up to three spaces and it searches. An Injured sentry
goes to the Healing House with two Delay tokens (one comes off at the start of each round) and, once
they are gone, is redeployed at the end of a round before the teams' reinforcements. Which sentry a
player activates and whom it attacks on a tie is the policy below (docs/simulation.md, "Sentries").
"""

from __future__ import annotations

from dataclasses import dataclass

from ...affinity import affinity_test
from ...combat import CombatEffect
from ...dice import ELEMENTS, Element, as_element
from ...keywords import CombatantSnapshot, FightContext, Harm, fight
from ..board import (
    BOARD,
    BOARD_DEPTH,
    HEALING,
    SENTRIES,
    SENTRY_ATTACK,
    SENTRY_DEFENSE,
    SENTRY_IDLE_MOVE,
    SENTRY_MOVEMENT,
    SENTRY_SIGHT,
    TRAINING,
    Model,
    Sentry,
)
from .base import Challenge

#: The status effect an Injured sentry gets two of ("Samurai Sentry": it stays in the Healing House while it has one).
DELAY = "Delay"
#: Delay tokens an Injured sentry gets.
SENTRY_DELAY = 2


class SentryGuarded(Challenge):
    """A challenge whose objects (:meth:`guarded`) six Samurai Sentries guard."""

    def __init__(self, match) -> None:
        super().__init__(match)
        self.sentries = self.board.sentries
        self.sentries[:] = [Sentry(i) for i in range(SENTRIES)]

    def guarded(self) -> list[int]:
        """The depths (first team's frame) of the objects the sentries guard."""
        raise NotImplementedError

    def loose_medals(self) -> dict[int, int]:
        """Medals lying off their goal, uncarried: ``{medal: depth}`` (Infiltration)."""
        return {}

    def retrieve(self, s: Sentry, medal: int) -> None:
        """``s`` has come next to the loose ``medal``: it goes back to its goal (Infiltration)."""

    def fight_worth_more(self, m: Model, mv: int, stunned: bool) -> bool:
        """Policy: a model leaves the objective for a fight worth more than its ``objective_margin``."""
        _target, value, _ = self.match.policy.best_target(m, mv, stunned=stunned)
        return value > self.match.side_policies[m.team].objective_margin

    # -- deployment, Delay, redeployment ----------------------------------------------

    def deploy_sentries(self, first: int) -> None:
        """Every sentry in the Training Ground is deployed, one at a time by the teams in turn from
        ``first``. Policy: the object with the fewest sentries (the first of them on a tie), two spaces
        from it on the side the deploying team's enemies come from."""
        waiting = [s for s in self.sentries if s.where == TRAINING]
        objects = self.guarded()
        for i, s in enumerate(waiting):
            t = (first + i) % self.match.n
            count = [0] * len(objects)
            for o in self.sentries:
                if o.on_board:
                    count[o.guards] += 1
            s.guards = min(range(len(objects)), key=lambda k: (count[k], k))
            at = objects[s.guards] + (2 if t == 0 else -2)
            s.position = max(0, min(BOARD_DEPTH, at))
            s.where, s.stun, s.activated = BOARD, 0, False
            self.journal.say(f"{self.match.tname(t)} deploys {s.name}")

    def start_round(self) -> None:
        for s in self.sentries:
            s.activated = False
            if s.where == HEALING and s.delay:
                s.delay -= 1

    def upkeep(self) -> None:
        """A sentry in the Healing House without Delay goes to the Training Ground (on its own: it is
        nobody's model), and the sentries there are deployed before any other model."""
        for s in self.sentries:
            if s.where == HEALING and s.delay == 0:
                s.where = TRAINING
        self.deploy_sentries(self.match.initiative)

    # -- activation ---------------------------------------------------------------------

    def after_turns(self) -> None:
        """Every team has had a turn: an opposed affinity test; its winner activates one sentry."""
        if any(s.on_board and not s.activated for s in self.sentries):
            t = self.sentry_player()
            self.activate_sentry(self.choose_sentry(t), t)

    def before_round_end(self) -> None:
        """Every sentry not yet activated activates, chosen by the teams in turn from the initiative
        player (ruling: the rulebook does not say who activates them)."""
        order = [(self.match.initiative + i) % self.match.n for i in range(self.match.n)]
        turn = 0
        while any(s.on_board and not s.activated for s in self.sentries):
            t = order[turn % len(order)]
            turn += 1
            self.activate_sentry(self.choose_sentry(t), t)

    def sentry_player(self) -> int:
        """The opposed affinity test for a sentry's activation: the team with the most matching icons
        wins; any tie for the most, the initiative player (its representative: as for initiative)."""
        board, match = self.board, self.match
        scores = {}
        for t in range(match.n):
            models = board.on_board(t) or board.team_models(t)
            if not models:
                continue
            rep = max(models, key=lambda m: (len(m.ninja.affinities), -m.uid))
            test = affinity_test(rep.ninja.affinities, rng=match.rng)
            self.journal.record_dice("sentry activation", rep.name, test.faces)
            scores[t] = test.matches
        if not scores:
            return match.initiative
        top = max(scores.values())
        leaders = [t for t, v in scores.items() if v == top]
        return leaders[0] if len(leaders) == 1 else match.initiative

    def sentry_affinities(self, t: int) -> tuple[Element, ...]:
        """A sentry uses any affinity of a model on the activating team (rulebook line 546)."""
        have = {as_element(a) for m in self.board.team_models(t) for a in m.ninja.affinities}
        return tuple(e for e in ELEMENTS if e in have) or (Element.EARTH,)

    def sentry_target(self, s: Sentry, t: int) -> Model | None:
        """The closest model a sentry sees (not in Stealth) within five spaces. On a tie the activating
        team ``t`` decides (policy): another team's model before its own; then a medal carrier, the
        lowest Defense, the most Stun tokens."""
        board = self.board
        seen = [
            (d, m) for m in board.on_board() if not m.stealth and (d := board.sentry_distance(s, m)) <= SENTRY_SIGHT
        ]
        if not seen:
            return None
        closest = min(d for d, _ in seen)
        return min(
            (m for d, m in seen if d == closest),
            key=lambda m: (m.team == t, m.carrying is None, m.ninja.defense, -m.stun, m.uid),
        )

    def choose_sentry(self, t: int) -> Sentry:
        """Policy: the activating team ``t`` takes the sentry whose attack helps it most: one that must
        attack another team's model (a medal carrier first, then the weakest Defense), else one that
        can search out a hidden enemy, else an idle one; a sentry that would attack its own model
        last (lowest index on a tie)."""
        board = self.board

        def value(s: Sentry) -> tuple:
            target = self.sentry_target(s, t)
            if target is not None:
                if target.team == t:
                    return (-1, 0, s.index)
                return (2, (2 if target.carrying is not None else 0) - target.ninja.defense, -s.index)
            hidden = any(
                m.stealth and m.team != t and board.sentry_distance(s, m) <= SENTRY_IDLE_MOVE + 1
                for m in board.on_board()
            )
            return (1 if hidden else 0, 0, -s.index)

        return max((s for s in self.sentries if s.on_board and not s.activated), key=value)

    def step(self, s: Sentry, goal: int, spaces: int, *, stop: int) -> int:
        """Move ``s`` up to ``spaces`` toward depth ``goal``, stopping ``stop`` spaces from it (sentries
        pay no terrain: they walk the guards' paths); a loose medal it comes next to is retrieved.
        Returns the spaces moved."""
        moved = 0
        while moved < spaces and abs(s.position - goal) > stop:
            s.position += 1 if goal > s.position else -1
            moved += 1
            for medal, at in list(self.loose_medals().items()):
                if abs(s.position - at) <= 1:
                    self.retrieve(s, medal)
        return moved

    def activate_sentry(self, s: Sentry, t: int) -> None:
        """Sentry ``s`` activated by team ``t`` ("Sentries", rulebook lines 538-541)."""
        board, say = self.board, self.journal.say
        s.activated = True
        say(f"{self.match.tname(t)} activates {s.name}")
        stunned = s.stun > 0
        s.stun = 0
        left = SENTRY_MOVEMENT
        # Infiltration: a loose medal closer than any model it sees is retrieved first.
        loose = self.loose_medals()
        if loose:
            seen = [board.sentry_distance(s, m) for m in board.on_board() if not m.stealth]
            at = min(loose.values(), key=lambda d: (abs(s.position - d), d))
            if abs(s.position - at) < min(seen, default=BOARD_DEPTH + 1):
                left -= self.step(s, at, left, stop=1)
        target = self.sentry_target(s, t)
        if target is not None:
            left -= self.step(s, board.spot(target), left, stop=1)
            if board.sentry_distance(s, target) <= 1 and not (stunned and left < SENTRY_MOVEMENT):
                self.sentry_attack(s, target, t)
            return
        # Nothing in sight: move up to three spaces toward the nearest model of another team, search.
        others = [m for m in board.on_board() if m.team != t]
        if others:
            near = min(others, key=lambda m: (board.sentry_distance(s, m), m.uid))
            left -= self.step(s, board.spot(near), min(left, SENTRY_IDLE_MOVE), stop=1)
        hidden = [m for m in board.on_board() if m.stealth and board.sentry_distance(s, m) <= 1]
        if hidden and any(m.team != t for m in hidden) and not (stunned and left < SENTRY_MOVEMENT):
            test = affinity_test(self.sentry_affinities(t), rng=self.match.rng)
            self.journal.record_dice("sentry search", s.name, test.faces)
            if test.success:
                for m in hidden:
                    m.stealth = False
                say(f"{s.name} searches: " + ", ".join(m.name for m in hidden) + " lose Stealth")

    def sentry_attack(self, s: Sentry, m: Model, t: int) -> None:
        """``s`` attacks ``m``; the other sentries next to ``m`` and not Stunned assist."""
        match, board = self.match, self.board
        helpers = sum(
            1 for o in self.sentries if o is not s and o.on_board and o.stun == 0 and board.sentry_distance(o, m) <= 1
        )
        sentry = CombatantSnapshot(s.name, SENTRY_ATTACK, SENTRY_DEFENSE, self.sentry_affinities(t), stun_tokens=s.stun)
        out = fight(
            sentry,
            m.snapshot(),
            context=FightContext(assists_attacker=helpers),
            rng=match.rng,
            policy=match.fight_policy,
        )
        self.journal.record_dice("sentry attack", s.name, out.combat.attack_initial)
        self.journal.record_dice("defense", m.name, out.combat.defense_initial)
        self.journal.record_protection(out.defender)
        res = out.result.value if out.result else "no result"
        self.journal.say(f"{s.name} attacks {m.name}: {res}")
        self.harm_sentry(s, out.attacker.harm, by=m)
        match.referee.harm(m, out.defender.harm, by=None)
        if out.effect is CombatEffect.DEFENDER_MOVED and m.on_board:
            board.push_back(m)

    def harm_sentry(self, s: Sentry, harm: Harm, *, by: Model) -> None:
        """A Stun or an Injury to a sentry; an Injured sentry goes to the Healing House with two Delay
        tokens (sentries are enemy models: the model that Injured it has the Injury in its record)."""
        if harm is Harm.STUNNED:
            s.stun += 1
            self.journal.say(f"{s.name} is Stunned ({s.stun})")
        if harm is Harm.INJURED or s.stun >= 3:
            by.injuries += 1
            s.where, s.stun, s.delay = HEALING, 0, SENTRY_DELAY
            self.journal.say(f"{s.name} is Injured (two {DELAY} tokens)")


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

    def reach_and_pick_up(self, m: Model, medal: int, at: int, mv: int, stunned: bool, why: str) -> bool:
        """Move toward the medal at position ``at``; once next to it, pick it up. A Stunned model
        that had to move does not pick it up in the same activation."""
        moved = abs(m.progress - at) > 1
        if not self.objective_reach(m, at, mv if stunned else 2 * mv) or (stunned and moved):
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

    def release(self, carrier: Model) -> int | None:
        """Take the medal off an Injured carrier (it counts as home again); None if it carried none."""
        medal = carrier.carrying
        if medal is not None:
            carrier.carrying = None
            self.medals_home[medal] = True
        return medal

    def drop(self, carrier: Model, by: Model | None) -> None:
        medal = self.release(carrier)
        if medal is not None and not self.credit_return(medal, by):
            self.journal.say("the medal goes back to its goal space")

    def credit_return(self, medal: int, by: Model | None) -> bool:
        """A dropped medal goes back to its goal; True if ``by`` is credited with returning it."""
        return False

    def injury_bonus(self, attacker: Model, target: Model) -> float:
        return 2.0 if target.carrying is not None else 0.0
