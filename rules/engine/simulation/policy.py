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

from functools import cache
from typing import TYPE_CHECKING

from ..combat import DEFAULT_POLICY
from ..dice import ELEMENTS
from ..keywords import AB, KW, FightContext, attack_dice, defense_dice
from ..odds import combat_odds
from .board import Model
from .part import Part
from .referee import is_rival

if TYPE_CHECKING:
    from .match import Match

#: Largest pool the target-choosing odds look-up distinguishes.
ODDS_CAP = 12


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

    # -- who goes where and when ---------------------------------------------

    def strength(self, m: Model) -> float:
        """Deployment and Healing House order: the strongest first."""
        n = m.ninja
        return n.attack + n.defense + 0.3 * len(n.keywords) + (1 if n.is_chunin else 0)

    def activation_order_key(self, m: Model) -> tuple:
        """The lowest activates next: models in contact, then those already advanced, strongest Attack first."""
        return (0 if m.engaged else 1 if m.progress > 0 else 2, -m.ninja.attack, m.uid)

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
        a_snap, d_snap = attacker.snapshot(), target.snapshot()
        n_att, _ = attack_dice(a_snap, d_snap, ctx)
        n_def, _, _ = defense_dice(a_snap, d_snap, ctx, n_att)
        p = odds_float(n_att, n_def)
        spirit, void, earth, air, _water, fire = p[:6]
        inj = self.injury_value(attacker, target)
        stun_v = 0.35 * inj if target.stun < 2 else inj
        if target.moon:
            inj = stun_v = 0.0
        if ctx.ranged:
            return void * inj + earth * stun_v
        self_inj = 0.0 if attacker.moon else 1.3
        self_stun = 0.0 if (attacker.moon or attacker.has(KW.PRECISION_STRIKE)) else 0.3
        return void * inj + earth * stun_v + fire * (stun_v - self_stun) - spirit * self_inj + 0.02 * air

    # -- whom to attack ------------------------------------------------------

    def targets(self, m: Model, reach: int) -> list[Model]:
        out = []
        for e in self.board.enemies(m):
            if not self.board.visible(m, e):
                continue
            if e.uid in m.engaged or self.board.distance(m, e) - 1 <= reach:
                out.append(e)
        return out

    def best_target(self, m: Model, reach: int, *, stunned: bool) -> tuple[Model | None, float, bool]:
        """(target, expected value, needs_move)."""
        best: tuple[Model | None, float, bool] = (None, 0.0, False)
        rivals = []
        if m.has(AB.SUPREME_MASTER):
            rivals = [e for e in self.board.enemies(m) if is_rival(m, e)]
        p_dodge = 1.0 if m.ignores_zones else (0.66 if m.has(KW.NIMBLE) else 0.42)
        for e in self.targets(m, reach):
            adjacent = e.uid in m.engaged
            needs_move = not adjacent
            if needs_move and stunned:
                continue
            back = (m.uid in e.behind) if adjacent else False
            ctx = self.referee.context(m, e, moved=needs_move, spaces=3 if needs_move else 0, back=back)
            value = self.expected_value(m, e, ctx)
            if needs_move and e.engaged and not adjacent:
                value += 0.1  # a chance of a back strike
            if needs_move and m.engaged:
                value *= p_dodge
            if rivals and e in rivals:
                value += 0.5
            if value > best[1] + 1e-9 or best[0] is None:
                best = (e, value, needs_move)
        return best

    def ranged_option(self, m: Model, mv: int) -> tuple[Model | None, float, int]:
        """Best ranged target: (target, value, spaces to move first).  The
        model may first move closer (never into contact); Shuriken (one die,
        range 3) are never thrown by the policy."""
        reach = m.shooting_range
        if not reach or m.engaged:
            return None, 0.0, 0
        best: tuple[Model | None, float, int] = (None, 0.0, 0)
        for e in self.board.enemies(m):
            if not self.board.visible(m, e) or e.has(AB.FLASHING_SPEAR):
                continue
            need = max(0, self.board.distance(m, e) - reach)
            if need > mv or self.board.distance(m, e) - need < 2:
                continue
            ctx = self.referee.context(m, e, moved=need > 0, spaces=need, back=False, ranged=True)
            v = self.expected_value(m, e, ctx)
            if v > best[1]:
                best = (e, v, need)
        return best

    def worth_a_power_strike(self, m: Model, target: Model) -> bool:
        """Tiger Strike, Yama Fist: used against a target whose Defense is at least ``m``'s Attack - 1."""
        return target.ninja.defense >= m.ninja.attack - 1

    def extra_attack_target(self, m: Model, candidates: list[Model]) -> Model:
        """Gale of Blows: the enemy in contact with the best expected value."""
        ctx = self.referee.context
        return max(
            candidates,
            key=lambda e: self.expected_value(m, e, ctx(m, e, moved=False, spaces=0, back=m.uid in e.behind)),
        )
