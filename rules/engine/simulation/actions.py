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
from ..keywords import AB, KW, FightContext, FightOutcome, Harm
from .abilities import MIN_VALUE
from .board import BOARD_DEPTH, OUT, Model
from .part import Part
from .policy import Attack, Shot, attack_reach

if TYPE_CHECKING:
    from .match import Match


class Actions(Part):
    """What a model does in its activation, and the abilities that act at a round's start and end."""

    #: The abilities :meth:`at_round_start` looks for (a model with none of them skips it).
    ROUND_START = frozenset(("Metal to Dust", "9 Tails", "Yopparai", "Zenith", "Allure", "Dark Curse"))
    #: The keywords and abilities :meth:`start_activation` looks for after the tokens.
    ACTIVATION_START = frozenset((KW.TOUGH, KW.FORTUNE, "Lucky", KW.BLOOD_LUST, "Blood Frenzy", "Undertow"))

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        self.referee = match.referee
        self.policy = match.policy
        self.rules = match.rules
        # the teams with a Wind Gust among their models (keywords do not change during a match)
        self.gusty = {t for t, team in enumerate(self.board.by_team) if any(f.has("Wind Gust") for f in team)}
        # the models with Entangle, in board order
        self.entangling = [f for f in self.board.models if f.has("Entangle")]

    # -- rounds --------------------------------------------------------------

    def at_round_start(self, m: Model) -> None:
        """Metal to Dust, 9 Tails, Yopparai, Zenith, Dark Curse (models on the board)."""
        if m.ninja.traits.isdisjoint(self.ROUND_START):
            return
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
        if m.has("Allure"):
            self.match.abilities.allure(m)
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
        used, weighed = self.special_action(m, mv, stunned)
        if used:
            self.end_activation(m)
            return
        for i in range(actions):
            if not m.on_board:
                break
            # the first action is the attack the special action was weighed against (nothing has moved)
            acted = self.combat_action(m, mv, stunned, weighed) if i == 0 else self.combat_action(m, 0, stunned)
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
        if m.ninja.traits.isdisjoint(self.ACTIVATION_START):
            return
        if m.has(KW.TOUGH) and test(m, "Tough"):
            m.protect += 1
            if m.has("Elixir of Courage"):
                self.match.abilities.elixir_of_courage(m)
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
        if m.has("Undertow"):
            self.match.abilities.undertow(m)

    def special_action(self, m: Model, mv: int, stunned: bool) -> tuple[bool, Attack | None]:
        """An action ability instead of an attack or a run, when the policy values it more
        (:meth:`.abilities.Abilities.action_option` against the best attack): whether one was used,
        and the best attack when it was weighed."""
        value, do = self.match.abilities.action_option(m)
        if do is None or value < MIN_VALUE:
            return False, None
        attack = self.policy.best_attack(m, mv, stunned)
        if value <= attack.best_value:
            return False, attack
        do()
        return True, attack

    def end_activation(self, m: Model) -> None:
        m.activated = True
        if m.no_defense_after:
            m.no_defense_after = False
            m.no_defense = True
        if m.stun_at_end and m.on_board:
            m.stun_at_end = False
            self.journal.say(f"{m.name} is Stunned at the end of its activation")
            self.referee.harm(m, Harm.STUNNED if not m.moon else Harm.NONE, by=None)
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
        if (
            self.journal.round == 1
            and m.team in self.gusty
            and any(f.has("Wind Gust") for f in self.board.team_models(m.team) if f.where != OUT)
        ):
            mv += 2
        if m.slow:
            mv = (mv + 1) // 2
        return mv

    def entanglers(self, m: Model) -> list[Model]:
        """Enemies with Entangle whose two-space influence zone holds ``m`` without contact."""
        return [
            e
            for e in self.entangling
            if e.team != m.team and e.on_board and e.uid not in m.engaged and self.board.distance(m, e) <= 2
        ]

    def dodge(self, m: Model, zone: list[Model] | None = None) -> bool:
        """Leave the influence zones of the enemies ``m`` is in contact with (or of ``zone``)."""
        models = self.board.models
        holders = zone if zone is not None else [models[u] for u in m.engaged]
        if not holders or m.ignores_zones:
            return True
        say = self.journal.say
        if any(h.spirit_power or h.uid == m.allured_by for h in holders):
            say(
                f"{m.name} cannot dodge ("
                + ("Allure" if any(h.uid == m.allured_by for h in holders) else "Spirit Power")
                + ")"
            )
            if any(h.spirit_power for h in holders):
                return self.failed_dodge(m)
            return False
        test = self.journal.test
        if m.has(KW.BLINK) and test(m, "Blink"):
            return True
        if m.has("Back Flip"):
            return True
        required = 2 if any(h.has(KW.IKAS_TENTACLES) for h in holders) else 1
        foul = m.stealth and self.match.foul_weather == self.journal.round
        ok = test(m, "dodge", required=required, nimble=m.has(KW.NIMBLE) or foul)
        if ok:
            return True
        return self.failed_dodge(m)

    def failed_dodge(self, m: Model) -> bool:
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
        """Dodge out of contact if need be (and out of an Entangle zone), then move up to ``spaces``
        toward ``goal`` or the enemy (:meth:`.board.Board.move`); Spirit Senses after the move."""
        if m.engaged and not self.dodge(m):
            return
        if not m.on_board:
            return
        tangle = self.entanglers(m)
        if tangle and not self.dodge(m, tangle):
            return
        if not m.on_board:
            return
        self.board.move(m, spaces, goal)
        if m.has("Spirit Senses"):
            self.match.abilities.spirit_senses(m)

    def run(self, m: Model, mv: int) -> None:
        """Nothing to attack: run (twice Movement, +2 with Sprint) toward the challenge's goal or the
        enemy. A madoushi with Wind Walk that would have to dodge uses it instead."""
        goal = self.rules.run_goal(m)
        if m.has("Wind Walk") and m.engaged and not m.ignores_zones:
            self.match.abilities.wind_walk(m, goal)
            return
        extra = 2 if m.has(KW.SPRINT) else 0
        self.advance(m, 2 * mv + extra, goal=goal)

    def search_option(self, m: Model, stunned: bool) -> bool:
        """Search when the only enemies around are in Stealth."""
        if m.engaged:
            return False
        enemies = self.board.enemies(m)
        hidden = [e for e in enemies if e.stealth and self.board.distance(m, e) <= 2]
        if not hidden:
            return False
        reach = self.movement(m) + 1  # a visible enemy it could charge instead
        if any(not e.stealth and self.board.distance(m, e) <= reach for e in enemies):
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

    def combat_action(self, m: Model, mv: int, stunned: bool, weighed: Attack | None = None) -> bool:
        """Attack (melee or ranged) if it is worth it; False when nothing was done. ``weighed``: the
        policy's :meth:`~.policy.TargetingPolicy.best_attack` for ``mv``, if it is already known."""
        pounce = m.has("Pounce") and not stunned
        target, value, needs_move, shot = weighed if weighed is not None else self.policy.best_attack(m, mv, stunned)
        if shot.target is not None and shot.value >= value:
            self.shoot(m, shot)
            self.gust_of_heaven(m)
            return True
        if target is None or value < self.match.side_policies[m.team].attack_floor:
            return False
        if needs_move and m.engaged and not self.dodge(m):
            return True  # the failed dodge ends the activation
        if not m.on_board:
            return True
        far = attack_reach(m)
        if far > 1 and target.uid not in m.engaged:
            # Fisherman's Spear, Ika's Anchor: attack from up to ``far`` spaces, without contact
            spaces = max(0, self.board.distance(m, target) - far)
            if spaces:
                self.board.disengage(m)
                m.progress = max(0, BOARD_DEPTH - target.progress - far)
            self.board.vigilance(m)
            ctx = self.referee.context(m, target, moved=spaces > 0, spaces=spaces, back=False)
            self.journal.say(f"{m.name} attacks from {far} spaces away")
            self.melee(m, target, ctx)
            self.gust_of_heaven(m)
            return True
        spaces = max(0, self.board.distance(m, target) - 1)
        if pounce and spaces > mv:
            m.slow += 1
        before = set(m.engaged)
        back = self.board.place_adjacent(m, target)
        if back and m.has("Honor"):
            target.behind.discard(m.uid)  # Honor: never attacks from the back influence zone
            back = False
        if not target.on_board:
            return True
        self.ondoris_beak(m, before)
        if not (m.on_board and target.on_board) or self.match.score.winner is not None:
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
        if m.has(KW.WIND_IN_THE_FOREST) and moved and not target.on_board and m.on_board and not m.engaged:
            self.wind_in_the_forest(m, mv - spaces)
        self.gust_of_heaven(m)
        return True

    def shoot(self, m: Model, shot: Shot) -> None:
        """A ranged attack action (the profile's, Long Shot, shuriken, or a volley of several shots,
        each at the best target left); Redirection may turn a shot."""
        if shot.need:
            self.advance(m, shot.need)
        if not m.on_board or shot.target is None or not shot.target.on_board:
            return
        if shot.kind not in ("ranged", "shuriken"):
            self.journal.say(f"{m.name} uses {shot.kind}")
        if shot.kind in ("Firearm Flurry", "Air Dragon's Breath"):
            m.stun_at_end = True
            if shot.kind == "Firearm Flurry":
                m.no_defense_after = True
        target = shot.target
        for i in range(shot.shots):
            if i:
                target = self.policy.best_shot(m, 0, shot.range)[0]
                if target is None:
                    break
            if not m.on_board or not target.on_board or m.engaged or self.match.score.winner is not None:
                break
            extra = {"shuriken": True} if shot.kind == "shuriken" else None
            target = self.redirect(m, target, shot.range)
            ctx = self.referee.context(
                m, target, moved=shot.need > 0, spaces=shot.need, back=False, ranged=True, extra=extra
            )
            self.referee.attack(m, target, ctx)

    def redirect(self, m: Model, target: Model, reach: int) -> Model:
        """Redirection: the target of a ranged attack tests; on a success its player picks a new target
        within the attacker's range. Policy: the attacker's own friend with the lowest Defense (no
        test when there is none)."""
        if not target.has(KW.REDIRECTION) or target.moon:
            return target
        options = [
            f
            for f in self.board.on_board(m.team)
            if f is not m and abs(f.progress - m.progress) <= reach and not f.has(AB.FLASHING_SPEAR)
        ]
        if not options or not self.journal.test(target, "Redirection"):
            return target
        new = min(options, key=lambda f: (f.ninja.defense + f.defense_mod, f.uid))
        self.journal.say(f"{target.name} redirects the shot to {new.name}")
        return new

    def wind_in_the_forest(self, m: Model, left: int) -> None:
        """Wind in the Forest: the attack stopped the move; its target Injured, the model moves on
        (policy: only toward the challenge's goal, when it has one)."""
        goal = self.rules.run_goal(m)
        if left > 0 and goal is not None:
            self.journal.say(f"{m.name} moves on (Wind in the Forest)")
            self.board.move(m, left, goal)

    def gust_of_heaven(self, m: Model) -> None:
        """Gust of Heaven: after an attack with no enemy in its influence zone (or only Stunned ones),
        the chunin may move four spaces ignoring everything. Policy: only when no enemy is in contact,
        toward the challenge's goal or the enemy."""
        if m.has("Gust of Heaven") and m.on_board and not m.engaged and self.match.score.winner is None:
            self.journal.say(f"{m.name} uses Gust of Heaven")
            self.board.move(m, 4, self.rules.run_goal(m), terrain=False)

    def ondoris_beak(self, m: Model, before: set) -> None:
        """Ondori's Beak: an enemy that moved into the influence zone of an Ondori Clan Kaiken that has
        not activated this round is attacked at once (the policy always strikes when it is worth it)."""
        models = self.board.models
        for u in sorted(m.engaged - before):
            k = models[u]
            if not (k.has("Ondori's Beak") and not k.activated and k.on_board and m.on_board and k.stun == 0):
                continue
            ctx = self.referee.context(k, m, moved=False, spaces=0, back=k.uid in m.behind)
            if self.policy.expected_value(k, m, ctx) <= 0:
                continue
            self.journal.say(f"{k.name} strikes with Ondori's Beak")
            self.strike(k, m, ctx)

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
            f is not m and f.team == m.team and f.on_board and abs(f.progress - m.progress) <= 4
            for f in self.referee.holders["Tyrant"]
        )
        if tyrant and out.defender.harm is not Harm.INJURED and m.moon == 0:
            self.journal.say(f"{m.name} fails its Tyrant and is Stunned")
            self.referee.harm(m, Harm.STUNNED, by=None)
