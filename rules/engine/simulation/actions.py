"""A model's activation: what it does when its turn comes.

:meth:`Actions.activate`: the start of the activation (Moon Power token, Stun tokens off, the
tokens of Tough, Fortune, Lucky, Blood Lust, Blood Frenzy), then the challenge's objective if the
challenge has one for this model, otherwise a combat action (attack, or shoot, with the extra
attacks of Frenzy, Gale of Blows, Wind of Blades, Whirlwind, Haste) or a run toward the enemy; then
the end of the activation (Slow, Moon Power, Poison). A Stunned model moves *or* acts. Moving out of
contact needs a dodge. The abilities that act at the start and end of a round are here too.

The choices (whom to attack, whether to shoot) are the :class:`~.policy.TargetingPolicy`'s; the
attack itself is the :class:`~.referee.Referee`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dice import Element
from ..keywords import KW, FightContext, FightOutcome, Harm
from .board import OUT, Model
from .part import Part

if TYPE_CHECKING:
    from .match import Match


class Actions(Part):
    """What a model does in its activation, and the abilities that act at a round's start and end."""

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        self.referee = match.referee
        self.policy = match.policy
        self.rules = match.rules

    # -- rounds --------------------------------------------------------------

    def at_round_start(self, m: Model) -> None:
        """Metal to Dust, 9 Tails, Yopparai, Zenith, Dark Curse (models on the board)."""
        if m.has("Metal to Dust") and self.journal.test(m, "Metal to Dust"):
            m.metal_to_dust = True
        if m.has("9 Tails") and m.slow == 0:
            m.moon += 1
            m.stun = 0
            self.journal.say(f"{m.name} becomes Moon Powered (9 Tails)")
        if m.has("Yopparai"):
            m.attack_mod += 2
        if m.has("Zenith") and self.match.moon_phase is Element.SPIRIT:
            m.moon += 1
            m.stun = 0
        if m.has("Dark Curse"):
            foes = sorted(self.board.enemies(m), key=lambda e: (-e.ninja.attack, e.uid))[:2]
            for e in foes:
                e.curse += 1

    def at_round_end(self, m: Model) -> None:
        """9 Tails: Slowed twice at the end of the round (models on the board)."""
        if m.has("9 Tails"):
            m.slow += 2

    # -- the activation ------------------------------------------------------

    def activate(self, m: Model) -> None:
        stunned = m.stun > 0
        self.start_activation(m)
        if not m.on_board:
            return
        self.journal.say(f"{m.name} activates" + (" (Stunned: move or act)" if stunned else ""))
        actions = 2 if m.haste else 1
        if m.haste:
            m.haste -= 1
        if self.rules.action(m, self.movement(m), stunned):
            self.end_activation(m)
            return
        mv = self.movement(m)
        for i in range(actions):
            if not m.on_board:
                break
            acted = self.combat_action(m, mv if i == 0 else 0, stunned)
            if not acted:
                if i == 0 and not stunned:
                    self.run(m, mv)
                elif i == 0 and stunned:
                    self.advance(m, mv)
                break
            if stunned:
                break
        if m.on_board:
            self.end_activation(m)
        else:
            m.activated = True

    def start_activation(self, m: Model) -> None:
        """Moon Power token, Stun tokens off, Tough/Fortune/Lucky/Blood Lust."""
        side = self.match.sides[m.team]
        test, say = self.journal.test, self.journal.say
        if side.moon_tokens > 0 and m.moon == 0 and self.policy.wants_moon_power(m):
            side.moon_tokens -= 1
            m.moon += 1
            m.stun = 0
            say(f"{side.name} gives {m.name} a Moon Power token")
        stunned = m.stun > 0
        if stunned:
            say(f"{m.name} removes {m.stun} Stun token(s)")
        m.stun = 0
        if m.has(KW.TOUGH) and test(m, "Tough"):
            m.protect += 1
        if m.has(KW.FORTUNE) and test(m, "Fortune"):
            m.lucky += 1
        if m.has("Lucky"):
            m.lucky += 1
        if m.has(KW.BLOOD_LUST) and test(m, "Blood Lust"):
            m.haste += 1
        if m.has("Blood Frenzy") and test(m, "Blood Frenzy"):
            friends = [f for f in self.board.on_board(m.team) if f is not m and not f.activated]
            if friends:
                max(friends, key=lambda f: (f.ninja.attack, -f.uid)).haste += 1

    def end_activation(self, m: Model) -> None:
        m.activated = True
        if m.slow:
            m.slow -= 1
        if m.moon:
            m.moon -= 1
        if m.on_board and m.poison:
            face = self.journal.roll_one("poison", m)
            m.poison -= 1
            if face is Element.WATER:
                self.referee.inflict(m, Harm.STUNNED, by=None, counts=False)
            elif face is Element.SPIRIT:
                self.referee.inflict(m, Harm.INJURED, by=None, counts=False)

    # -- moving --------------------------------------------------------------

    def movement(self, m: Model) -> int:
        mv = m.ninja.movement
        if self.journal.round == 1 and any(
            f.has("Wind Gust") for f in self.board.team_models(m.team) if f.where != OUT
        ):
            mv += 2
        if m.slow:
            mv = (mv + 1) // 2
        return mv

    def dodge(self, m: Model) -> bool:
        """Leave the influence zones of the enemies ``m`` is in contact with."""
        if not m.engaged or m.ignores_zones:
            return True
        test = self.journal.test
        if m.has(KW.BLINK) and test(m, "Blink"):
            return True
        if m.has("Back Flip"):
            return True
        required = 2 if any(self.board.models[u].has(KW.IKAS_TENTACLES) for u in m.engaged) else 1
        ok = test(m, "dodge", required=required, nimble=m.has(KW.NIMBLE))
        if ok:
            return True
        if m.stealth:
            m.stealth = False
            self.journal.say(f"{m.name} fails to dodge and loses Stealth")
            return False
        m.stun += 1
        self.journal.say(f"{m.name} fails to dodge and is Stunned ({m.stun})")
        if m.stun >= 3:
            self.referee.injure(m, by=None)
        return False

    def advance(self, m: Model, spaces: int, goal: int | None = None) -> None:
        """Dodge out of contact if need be, then move up to ``spaces`` toward ``goal`` or the enemy
        (:meth:`.board.Board.move`)."""
        if m.engaged and not self.dodge(m):
            return
        if not m.on_board:
            return
        self.board.move(m, spaces, goal)

    def run(self, m: Model, mv: int) -> None:
        """Nothing to attack: run (twice Movement, +2 with Sprint) toward the challenge's goal or the enemy."""
        extra = 2 if m.has(KW.SPRINT) else 0
        self.advance(m, 2 * mv + extra, goal=self.rules.run_goal(m))

    def search_option(self, m: Model, stunned: bool) -> bool:
        """Search when the only enemies around are in Stealth."""
        enemies = self.board.enemies(m)
        hidden = [e for e in enemies if e.stealth and self.board.distance(m, e) <= 2]
        visible = [e for e in enemies if not e.stealth and self.board.distance(m, e) - 1 <= self.movement(m)]
        if not hidden or visible or m.engaged:
            return False
        ok = self.journal.test(m, "search")
        m.stealth = False
        if ok:
            for e in hidden:
                e.stealth = False
            m.reveals += 1
            self.journal.say(f"{m.name} searches and reveals {', '.join(e.name for e in hidden)}")
        else:
            self.journal.say(f"{m.name} searches and finds nothing")
        return True

    # -- attacking -----------------------------------------------------------

    def combat_action(self, m: Model, mv: int, stunned: bool) -> bool:
        """Attack (melee or ranged) if it is worth it; False when nothing was done."""
        pounce = m.has("Pounce") and not stunned
        reach = mv + (3 if pounce else 0)
        target, value, needs_move = self.policy.best_target(m, reach, stunned=stunned)
        r_target, r_value, need = self.policy.ranged_option(m, 0 if stunned else mv)
        if r_target is not None and r_value >= value:
            if need:
                self.advance(m, need)
            if not m.on_board or not r_target.on_board:
                return True
            ctx = self.referee.context(m, r_target, moved=need > 0, spaces=need, back=False, ranged=True)
            self.referee.attack(m, r_target, ctx)
            return True
        if target is None or value < -0.05:
            return False
        if needs_move and m.engaged and not self.dodge(m):
            return True  # the failed dodge ends the activation
        if not m.on_board:
            return True
        spaces = max(0, self.board.distance(m, target) - 1)
        if pounce and spaces > mv:
            m.slow += 1
        back = self.board.place_adjacent(m, target)
        if not target.on_board:
            return True
        # facing: the attacker turns to its target; the rest may end up behind it
        self.board.turn_to(m, target)
        moved = needs_move
        tiger = False
        if m.has("Tiger Strike") and not m.no_defense and self.policy.worth_a_power_strike(m, target):
            m.no_defense = True
            m.attack_mod += 3
            tiger = True
            self.journal.say(f"{m.name} uses Tiger Strike")
        if m.has("Yama Fist") and m.attack_mod == 0 and self.policy.worth_a_power_strike(m, target):
            m.attack_mod += 2
            m.defense_mod -= 2
            self.journal.say(f"{m.name} uses Yama Fist")
        ctx = self.referee.context(
            m, target, moved=moved, spaces=max(spaces, 3 if moved else 0) if moved else 0, back=back
        )
        if m.has("Whirlwind") and len(m.engaged) >= 2:
            self.whirlwind(m)
        else:
            self.melee(m, target, ctx)
        if tiger:
            m.attack_mod -= 3  # +3 Attack until the end of the turn
        return True

    def strike(
        self, m: Model, target: Model, ctx: FightContext | None = None, *, extra: dict | None = None
    ) -> FightOutcome:
        """One attack on an enemy ``m`` is in contact with (a fresh context unless given), then Tyrant."""
        if ctx is None:
            ctx = self.referee.context(m, target, moved=False, spaces=0, back=m.uid in target.behind, extra=extra)
        out = self.referee.attack(m, target, ctx)
        self.after_attack(m, out)
        return out

    def melee(self, m: Model, target: Model, ctx: FightContext) -> None:
        """An attack and the extra attacks it allows (Frenzy, Gale of Blows, Wind of Blades)."""
        self.strike(m, target, ctx)
        score = self.match.score
        if score.winner is not None:
            return
        if m.has(KW.FRENZY) and m.on_board and target.on_board:
            again = self.referee.context(m, target, moved=ctx.attacker_moved, spaces=0, back=m.uid in target.behind)
            self.strike(m, target, again)
        if m.has(KW.FRENZY) and m.on_board:
            m.defense_mod -= (m.ninja.defense + m.defense_mod) - (m.ninja.defense + m.defense_mod) // 2
        # Gale of Blows: more attacks at -2 each while worth it
        if m.has(KW.GALE_OF_BLOWS):
            self.gale_of_blows(m)
        # Wind of Blades: Stun itself for a second attack
        if (
            m.has("Wind of Blades")
            and m.on_board
            and target.on_board
            and m.stun == 0
            and m.moon == 0
            and score.winner is None
        ):
            m.stun += 1
            self.journal.say(f"{m.name} Stuns itself for Wind of Blades")
            self.strike(m, target)

    def gale_of_blows(self, m: Model) -> None:
        penalty = 2
        models = self.board.models
        while m.on_board and m.ninja.attack - penalty > 0 and m.stun == 0 and self.match.score.winner is None:
            cands = [models[u] for u in m.engaged if models[u].on_board]
            if not cands:
                break
            m.attack_mod -= penalty
            best = self.policy.extra_attack_target(m, cands)
            ctx = self.referee.context(m, best, moved=False, spaces=0, back=m.uid in best.behind)
            if self.policy.expected_value(m, best, ctx) <= 0:
                m.attack_mod += penalty
                break
            self.journal.say(f"{m.name}: Gale of Blows (-{penalty})")
            out = self.referee.attack(m, best, ctx)
            m.attack_mod += penalty
            self.after_attack(m, out)
            penalty += 2

    def whirlwind(self, m: Model) -> None:
        self.journal.say(f"{m.name} uses Whirlwind")
        for u in sorted(m.engaged):
            e = self.board.models[u]
            if not (m.on_board and e.on_board) or m.stun or self.match.score.winner is not None:
                break
            self.strike(m, e, extra={"void_stuns": True})

    def after_attack(self, m: Model, out: FightOutcome) -> None:
        """Tyrant: a friendly model near an Ijin chunin with Tyrant that does not Injure is Stunned."""
        if not m.on_board:
            return
        tyrant = any(
            f is not m and f.has("Tyrant") and abs(f.progress - m.progress) <= 4 for f in self.board.on_board(m.team)
        )
        if tyrant and out.defender.harm is not Harm.INJURED and m.moon == 0:
            self.journal.say(f"{m.name} fails its Tyrant and is Stunned")
            self.referee.harm(m, Harm.STUNNED, by=None)
