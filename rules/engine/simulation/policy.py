"""The targeting policy: the choices a side makes that the rules leave to the player.

Which models deploy first and which leave the Healing House first (the strongest), which model
activates next (those in contact, then those already advanced, the strongest first), whom to attack
(the best expected value from the exact combat odds, weighing the challenge's points), whether to
shoot instead, when to use a power strike (Tiger Strike, Yama Fist), where to spend a Gale of
Blows, and whom to give the underdog's Moon Power token. The challenges make their own choices
(VIP, Champion, messenger, which objective) in :mod:`.challenges`; the dice decisions inside a
fight (rerolls, which result to take) are :class:`~rules.engine.keywords.FightPolicy`'s.

Written down in docs/simulation.md ("Targets", "Deployment", "Underdog tokens").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from ..combat import DEFAULT_POLICY
from ..dice import ELEMENTS
from ..keywords import AB, KW, FightContext, attack_dice, defense_dice
from ..odds import combat_odds
from .board import BOARD, Model
from .part import Part
from .referee import is_rival

if TYPE_CHECKING:
    from .match import Match

#: Largest pool the target-choosing odds look-up distinguishes.
ODDS_CAP = 12
#: Shuriken ("Ranged Combat"): range three, one die, no bonuses, Stealthy.
SHURIKEN_RANGE = 3
#: Least value for a model without a ranged profile to throw shuriken instead of running.
SHURIKEN_MIN = 0.15
#: Attacks without contact (reach): Fisherman's Spear two spaces, Ika's Anchor three.
REACH = {"Fisherman's Spear": 2, "Ika's Anchor": 3}
#: Several ranged attacks instead of an attack: (ability, shots, range or None for the profile's);
#: the model is Stunned at the end of its activation (Firearm Flurry: no defense dice either).
VOLLEYS = (("Firearm Flurry", 4, None), ("Air Dragon's Breath", 3, 5))
#: What being Stunned (and for Firearm Flurry without defense dice) at the end costs a volley.
VOLLEY_COST = {"Firearm Flurry": 0.6, "Air Dragon's Breath": 0.35}


@dataclass(frozen=True)
class SidePolicy:
    """How a side plays the choices the rules leave to the player (docs/simulation.md, "Policies").

    ``self_injury``: what its own model's Injury counts against a target's value (the attacker's
    Spirit); ``attack_floor``: the least expected value it still attacks for (below it the model runs
    or acts otherwise); ``hide``: a model with nothing worth attacking goes into Stealth (an action,
    out of every enemy's sight) when an enemy could charge it next; ``objective_margin``: the value of
    a fight that pulls a model off a challenge objective (medal, crate); ``shrine``: the shrine it
    places at set-up and where (``own``: six spaces from its own edge, ``enemy``: six from the
    enemy's); ``lanterns``: how many lanterns it wants on the board (it places one on its turn while
    there are fewer, then passes; the rulebook's four are placed whatever it wants);
    ``lantern_at``: where it puts them, in spaces from its own edge (the free depth nearest to it).
    """

    name: str = "cautious"
    self_injury: float = 1.3
    attack_floor: float = -0.05
    hide: bool = True
    objective_margin: float = 1.0
    shrine: tuple[str, str] = ("Protect", "own")
    lanterns: int = 6
    lantern_at: int = 5


CAUTIOUS = SidePolicy()
AGGRESSIVE = SidePolicy(
    name="aggressive",
    self_injury=0.6,
    attack_floor=-0.3,
    hide=False,
    objective_margin=0.0,
    shrine=("Slow", "enemy"),
    lanterns=4,
    lantern_at=13,
)
#: The policy levels by name (the balance study and the app pick them by name).
LEVELS = {p.name: p for p in (CAUTIOUS, AGGRESSIVE)}


@dataclass(frozen=True)
class Shot:
    """A ranged attack action the policy picked: the target, its value (for a volley the sum of its
    shots), spaces to move first, and what it is (``ranged``: the profile's, ``shuriken``, or a
    volley ability's name with its ``shots`` and ``range``)."""

    target: Model | None = None
    value: float = 0.0
    need: int = 0
    kind: str = "ranged"
    shots: int = 1
    range: int = 0


NO_SHOT = Shot()


class Attack(NamedTuple):
    """A model's best attack this activation as the policy weighs it: the close combat target with its
    value and whether it must move first (:meth:`TargetingPolicy.best_target`), and the best ranged
    attack action (:meth:`TargetingPolicy.ranged_option`)."""

    target: Model | None
    value: float
    needs_move: bool
    shot: Shot

    @property
    def best_value(self) -> float:
        """The better of the two; what an action ability must beat."""
        return max(self.value, self.shot.value)


def attack_reach(m: Model) -> int:
    """How far away ``m`` may make a close combat attack (1: adjacent)."""
    if m.ninja.traits.isdisjoint(REACH):
        return 1
    for name, spaces in REACH.items():
        if m.has(name):
            return spaces
    return 1


@cache
def odds_float(attack: int, defense: int) -> tuple[float, ...]:
    """P(Spirit, Void, Earth, Air, Water, Fire, no result) as floats."""
    odds = combat_odds(min(attack, ODDS_CAP), min(defense, ODDS_CAP), policy=DEFAULT_POLICY)
    return (*tuple(float(odds[e]) for e in ELEMENTS), float(odds[None]))


class TargetingPolicy(Part):
    """The choices a side makes for its models (see the module's docstring)."""

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        self.rules = match.rules
        self.referee = match.referee
        # each team's models in deployment and Healing House order: the strongest first, the first
        # on the board on a tie (a model's strength does not change during a match)
        self.ranked = [sorted(team, key=lambda m: (-self.strength(m), m.uid)) for team in self.board.by_team]
        # each team's models by Attack, the strongest first (the activation order among equals)
        self.by_attack = [sorted(team, key=lambda m: (-m.ninja.attack, m.uid)) for team in self.board.by_team]

    # -- who goes where and when ---------------------------------------------

    def strength(self, m: Model) -> float:
        """Deployment and Healing House order: the strongest first."""
        n = m.ninja
        return n.attack + n.defense + 0.3 * len(n.keywords) + (1 if n.is_chunin else 0)

    def choose_best_friend(self, m: Model) -> None:
        """Best Friends: chosen before the game, the strongest other model of the team that plays."""
        friends = [f for f in self.board.team_models(m.team) if f is not m and f.where != "out"]
        if friends:
            m.best_friend = max(friends, key=lambda f: (self.strength(f), -f.uid)).uid

    def next_to_activate(self, t: int) -> Model | None:
        """Team ``t``'s model on the board that activates next (None when all have): models in contact,
        then those already advanced, then the rest; the strongest Attack first among them."""
        best, best_rank = None, 3
        for m in self.by_attack[t]:
            if m.activated or m.where != BOARD:
                continue
            rank = 0 if m.engaged else 1 if m.progress > 0 else 2
            if rank < best_rank:
                best, best_rank = m, rank
                if rank == 0:
                    break
        return best

    def wants_moon_power(self, m: Model) -> bool:
        """Underdog's Moon Power token: given to a model about to fight."""
        reach = self.match.actions.movement(m) + 1
        return bool(m.engaged) or any(self.board.distance(m, e) <= reach for e in self.board.enemies(m))

    # -- what a target is worth ----------------------------------------------

    def injury_value(self, attacker: Model, target: Model) -> float:
        """What Injuring ``target`` is worth to ``attacker``'s team (removing an enemy, plus what
        the challenge gives for it)."""
        return 1.0 + self.rules.injury_bonus(attacker, target)

    def expected_value(self, attacker: Model, target: Model, ctx: FightContext) -> float:
        """What attacking ``target`` in ``ctx`` is worth to ``attacker``'s team, from the exact odds of
        the two pools: an Injury or a Stun of the target, the attacker's own harm (Spirit, Fire)."""
        return self.values(attacker)(target, ctx)

    def values(self, attacker: Model) -> Callable[[Model, FightContext], float]:
        """:meth:`expected_value` for ``attacker`` against any target, what depends on the attacker
        alone read once (its snapshot, what its own Injury and Stun cost). Valid while the attacker
        does not change (the policy weighs every target with one)."""
        a_snap = attacker.snapshot()
        self_inj = 0.0 if attacker.moon else self.match.side_policies[attacker.team].self_injury
        self_stun = 0.0 if (attacker.moon or attacker.has(KW.PRECISION_STRIKE)) else 0.3

        def value(target: Model, ctx: FightContext) -> float:
            d_snap = target.snapshot()
            n_att, _ = attack_dice(a_snap, d_snap, ctx)
            n_def, _, _ = defense_dice(a_snap, d_snap, ctx, n_att)
            spirit, void, earth, air, _water, fire, _none = odds_float(n_att, n_def)
            inj = self.injury_value(attacker, target)
            stun_v = 0.35 * inj if target.stun < 2 else inj
            if target.moon:
                inj = stun_v = 0.0
            if ctx.ranged:
                return void * inj + earth * stun_v
            return void * inj + earth * stun_v + fire * (stun_v - self_stun) - spirit * self_inj + 0.02 * air

        return value

    # -- whom to attack ------------------------------------------------------

    def targets(self, m: Model, reach: int) -> list[Model]:
        """The enemies ``m`` sees that it is in contact with or can reach (``reach``: the spaces it
        may move first)."""
        board, far = self.board, attack_reach(m)
        return [
            e
            for e in board.enemies(m)
            if board.visible(m, e) and (e.uid in m.engaged or board.distance(m, e) - far <= reach)
        ]

    def dodge_chance(self, m: Model) -> float:
        """The policy's estimate that ``m`` gets out of contact (0 when Allure or Spirit Power hold it)."""
        if m.ignores_zones:
            return 1.0
        models = self.board.models
        if any(models[u].spirit_power or u == m.allured_by for u in m.engaged):
            return 0.0
        return 0.66 if m.has(KW.NIMBLE) else 0.42

    def best_attack(self, m: Model, mv: int, stunned: bool) -> Attack:
        """``m``'s best attack (close combat, Pounce's three more spaces included, and ranged) with
        movement ``mv`` this activation."""
        reach = mv + (3 if m.has("Pounce") and not stunned else 0)
        target, value, needs_move = self.best_target(m, reach, stunned=stunned)
        shot = self.ranged_option(m, 0 if stunned else mv, stunned=stunned, shuriken=target is None)
        return Attack(target, value, needs_move, shot)

    def best_target(self, m: Model, reach: int, *, stunned: bool) -> tuple[Model | None, float, bool]:
        """(target, expected value, needs_move)."""
        best: tuple[Model | None, float, bool] = (None, 0.0, False)
        rivals = []
        if m.has(AB.SUPREME_MASTER):
            rivals = [e for e in self.board.enemies(m) if is_rival(m, e)]
        p_dodge = self.dodge_chance(m)
        far = attack_reach(m)
        honor = m.has("Honor")
        context = values = None  # the board read once for every target (nothing changes while they are weighed)
        for e in self.targets(m, reach):
            adjacent = e.uid in m.engaged
            in_reach = far > 1 and self.board.distance(m, e) <= far
            needs_move = not adjacent and not in_reach
            if needs_move and stunned:
                continue
            back = (m.uid in e.behind) if adjacent else False
            if context is None:
                context, values = self.referee.contexts(m), self.values(m)
            value = values(e, context(e, moved=needs_move, spaces=3 if needs_move else 0, back=back))
            if needs_move and e.engaged and not adjacent and not honor and far == 1:
                value += 0.1  # a chance of a back strike
            if needs_move and m.engaged:
                value *= p_dodge
            if rivals and e in rivals:
                value += 0.5
            if value > best[1] + 1e-9 or best[0] is None:
                best = (e, value, needs_move)
        return best

    def shot_range(self, m: Model, base: int) -> int:
        """A ranged attack's reach this round: Foul Weather's four spaces at most."""
        return min(base, 4) if self.match.foul_weather == self.journal.round else base

    def best_shot(self, m: Model, mv: int, reach: int, *, shuriken: bool = False) -> tuple[Model | None, float, int]:
        """(target, value, spaces to move first) of one ranged attack with range ``reach``; the model may
        first move up to ``mv`` closer (never into contact)."""
        best: tuple[Model | None, float, int] = (None, 0.0, 0)
        context = values = None
        for e in self.board.enemies(m):
            if not self.board.visible(m, e) or e.has(AB.FLASHING_SPEAR):
                continue
            need = max(0, self.board.distance(m, e) - reach)
            if need > mv or self.board.distance(m, e) - need < 2:
                continue
            extra = {"shuriken": True} if shuriken else None
            if context is None:
                context, values = self.referee.contexts(m), self.values(m)
            v = values(e, context(e, moved=need > 0, spaces=need, back=False, ranged=True, extra=extra))
            if v > best[1]:
                best = (e, v, need)
        return best

    def ranged_option(self, m: Model, mv: int, *, stunned: bool = False, shuriken: bool = True) -> Shot:
        """The best ranged attack action. The model may first move closer (never into contact). The
        profile's ranged attack (Long Shot: +2 range without moving); a volley (Firearm Flurry, Air
        Dragon's Breath) when its shots are worth more than its cost; shuriken for a model without a
        ranged profile only when ``shuriken`` (the caller: nothing in reach for a close combat attack)
        and the throw is worth :data:`SHURIKEN_MIN` (a run usually does more)."""
        if m.engaged:
            return NO_SHOT
        best = NO_SHOT
        base = m.shooting_range
        if base:
            t, v, need = self.best_shot(m, mv, self.shot_range(m, base))
            best = Shot(t, v, need, "ranged", 1, base)
            if m.has("Long Shot"):
                t, v, _ = self.best_shot(m, 0, self.shot_range(m, base + 2))
                if t is not None and v > best.value:
                    best = Shot(t, v, 0, "Long Shot", 1, base + 2)
        elif shuriken:
            t, v, need = self.best_shot(m, mv, self.shot_range(m, SHURIKEN_RANGE), shuriken=True)
            if t is not None and v >= SHURIKEN_MIN:
                best = Shot(t, v, need, "shuriken", 1, SHURIKEN_RANGE)
        for name, shots, rng in VOLLEYS:
            if not m.has(name) or (name == "Firearm Flurry" and stunned):
                continue
            reach = self.shot_range(m, rng or base)
            t, v, need = self.best_shot(m, mv, reach)
            total = shots * v - (0.0 if m.moon else VOLLEY_COST[name])
            if t is not None and total > best.value:
                best = Shot(t, total, need, name, shots, reach)
        return best

    def worth_a_power_strike(self, m: Model, target: Model) -> bool:
        """Tiger Strike, Yama Fist: used against a target whose Defense is at least ``m``'s Attack - 1."""
        return target.ninja.defense >= m.ninja.attack - 1

    def extra_attack_target(self, m: Model, candidates: list[Model]) -> Model:
        """Gale of Blows: the enemy in contact with the best expected value."""
        ctx, values = self.referee.contexts(m), self.values(m)
        return max(candidates, key=lambda e: values(e, ctx(e, moved=False, spaces=0, back=m.uid in e.behind)))
