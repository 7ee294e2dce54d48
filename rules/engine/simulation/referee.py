"""The referee: one attack on the board, and the harm that follows.

:meth:`Referee.context` reads the board into a :class:`~rules.engine.keywords.FightContext`
(assists, back strike, the bonuses of friendly and enemy abilities, the tokens in hand);
:meth:`Referee.attack` has :func:`~rules.engine.keywords.fight` resolve it and applies the outcome
(tokens spent, Stealth lost, Fire in the influence zone, Air and Water moving models, Poison and
Curse); :meth:`Referee.harm` and :meth:`Referee.injure` apply Stuns and Injuries with their credit
(who scores, who earns the XP) and what they set off (Ink Attack, Healing Herbs, Soul Capture, Net,
the challenge's objectives).

Rulings (docs/simulation.md, "Rulings the simulator makes"): the defender's side is harmed by the
attacker, the attacker by the defender (Spirit always, Fire only when the defender chose it); the
third Stun is an Injury credited to whoever gave it; harm from Poison, a failed dodge, a sentry or
one's own Fire is credited to nobody.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..combat import CombatEffect, Side
from ..dice import Element
from ..keywords import AB, KW, FightContext, FightOutcome, Harm, fight, suffer
from .board import BOARD, HEALING, Model
from .part import Part

if TYPE_CHECKING:
    from .match import Match


def ranged_profile(m: Model) -> tuple[int, frozenset[Element], bool, bool]:
    """``m``'s ranged attack as a :class:`~rules.engine.keywords.FightContext` has it: the profile's
    Attack bonus, the results that do something (Earth and Void; Air when the profile says it may be
    chosen), whether a Spirit rolled Poisons the target (the profile, Deadly Poison) and whether
    Earth and Void only Stun (Mountain Flute: no bonus either)."""
    text = m.ninja.ranged_text
    effects = {Element.EARTH, Element.VOID}
    if "Air may be chosen" in text:
        effects.add(Element.AIR)
    spirit_poisons = "target is Poisoned" in text or m.has("Deadly Poison")
    if not m.ninja.ranged and m.has("Mountain Flute"):
        return 0, frozenset(effects), spirit_poisons, True
    return m.ninja.ranged_attack_bonus, frozenset(effects), spirit_poisons, False


def is_rival(yobuko: Model, target: Model) -> bool:
    """Supreme Master of the Fist: a rival has Attack or Defense at least the Yobuko's Attack."""
    return max(target.ninja.attack, target.ninja.defense) >= yobuko.ninja.attack


class Referee(Part):
    """Resolves attacks on the board and applies Stuns and Injuries with their consequences."""

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        self.rng = match.rng
        self.sides = match.sides
        self.rules = match.rules
        # The models that hold a trait :meth:`context` looks for around every fight (a model's
        # keywords and abilities do not change during a match), in board order.
        self.holders = {
            name: [m for m in self.board.models if m.has(name)]
            for name in ("Tyrant", "Resolute Melody", KW.SENSEI, "Healing Herbs")
        }
        # Each model's ranged attack as a context has it, by uid (its profile does not change).
        self.ranged_profiles = [ranged_profile(m) for m in self.board.models]
        # The contexts made in this match, by what they were made from: a context is frozen, so the
        # one made for the same situation is given again (the policy weighs many targets in the same).
        self.made: dict[tuple, FightContext] = {}

    # -- the situation -------------------------------------------------------

    def assistants(self, friends: Sequence[Model], opponent: Model, exclude: Model) -> list[Model]:
        """The ``friends`` (a team's models; those on the board count) that assist against
        ``opponent``: not Stunned, not in Stealth, in contact with the opponent and with no other
        enemy."""
        uid = opponent.uid
        return [
            f
            for f in friends
            if len(f.engaged) == 1
            and uid in f.engaged
            and f is not exclude
            and not f.stun
            and not f.stealth
            and f.where == BOARD
        ]

    def context(self, attacker: Model, target: Model, **how) -> FightContext:
        """One fight's context: :meth:`contexts` for one target (``how``: its keywords, ``moved``,
        ``spaces``, ``back``, ``ranged``, ``extra``)."""
        return self.contexts(attacker)(target, **how)

    def contexts(self, attacker: Model) -> Callable[..., FightContext]:
        """:meth:`context` for ``attacker`` against any target, the board read once for all of them:
        what depends on the attacker alone (its team's assistants against each enemy, Tyrant, its
        side's tokens) now, the defending team's assistants against it on first use. Valid while
        the board does not change (the policy weighs every target with one)."""
        t_a = attacker.team
        side_a = self.sides[t_a]
        # the attacker's friends that assist against each enemy, by the enemy's uid, in board order
        helpers: dict[int, list[Model]] = {}
        for f in self.board.by_team[t_a]:
            if len(f.engaged) == 1 and f is not attacker and not f.stun and not f.stealth and f.where == BOARD:
                helpers.setdefault(next(iter(f.engaged)), []).append(f)
        # ``friends`` and ``foes`` are the teams' models on the board: the holders among them.
        tyrant = False
        for chunin in self.holders["Tyrant"]:
            if (
                chunin.team == t_a
                and chunin.where == BOARD
                and chunin is not attacker
                and abs(chunin.progress - attacker.progress) <= 4
            ):
                tyrant = True
                break
        attacker_sensei = side_a.sensei_ready and self._holds_on_board(KW.SENSEI, t_a)
        supreme = attacker.has(AB.SUPREME_MASTER)
        melody = self.holders["Resolute Melody"]
        # per defending team: its models that assist against the attacker, its tokens
        defending: dict[int, tuple[list[Model], int, bool]] = {}

        def make(
            target: Model,
            *,
            moved: bool,
            spaces: int,
            back: bool,
            ranged: bool = False,
            extra: dict | None = None,
        ) -> FightContext:
            t_d = target.team
            d_team = defending.get(t_d)
            if d_team is None:
                side_d = self.sides[t_d]
                d_team = defending[t_d] = (
                    self.assistants(self.board.by_team[t_d], attacker, attacker),
                    side_d.reroll_tokens,
                    side_d.sensei_ready and self._holds_on_board(KW.SENSEI, t_d),
                )
            # close combat: the assists on either side (Combined Attack, Guard, Best Friends), the back strike
            n_a = n_d = combined = guard = bonus_a = bonus_d = 0
            if not ranged:
                a_help = helpers.get(target.uid, [])
                d_help = [] if target.no_defense else [f for f in d_team[0] if f is not target]
                n_a, n_d = len(a_help), len(d_help)
                if a_help:
                    combined = sum(1 for f in a_help if f.has(KW.COMBINED_ATTACK))
                    bonus_a = self.best_friends(attacker, a_help)
                if d_help:
                    guard = sum(1 for f in d_help if f.has(KW.GUARD))
                    bonus_d = self.best_friends(target, d_help)
            bonus, notes = bonus_a, ["Best Friends +1"] if bonus_a else []
            if tyrant:
                bonus += 1
                notes.append("Tyrant +1")
            d_bonus = bonus_d
            if bonus_d:
                notes.append("Best Friends +1 Defense")
            if not ranged and melody:
                for k in melody:
                    if k.team == t_d and k.where == BOARD and k is not target and (k.engaged & target.engaged):
                        d_bonus += 1
                        notes.append("Resolute Melody +1")
                        break
            rival = supreme and is_rival(attacker, target)
            bonus_notes = tuple(notes)
            # what the attack itself brings: the attacker's ranged profile, or the assists and the back strike
            shape = self.ranged_profiles[attacker.uid] if ranged else (n_a, n_d, combined, guard, back)
            # everything the context is made from
            key = (
                ranged,
                shape,
                moved,
                spaces,
                bonus,
                d_bonus,
                bonus_notes,
                rival,
                side_a.reroll_tokens,
                attacker_sensei,
                d_team[1],
                d_team[2],
                tuple(extra.items()) if extra else (),
            )
            ctx = self.made.get(key)
            if ctx is None:
                kw: dict = dict(
                    attacker_moved=moved,
                    spaces_moved=spaces,
                    attack_bonus=bonus,
                    defense_bonus=d_bonus,
                    bonus_notes=bonus_notes,
                    rival=rival,
                    attacker_reroll_tokens=side_a.reroll_tokens,
                    defender_reroll_tokens=d_team[1],
                    attacker_sensei=attacker_sensei,
                    defender_sensei=d_team[2],
                )
                if ranged:
                    ranged_bonus, effects, spirit_poisons, earth_void_stun = shape
                    kw.update(
                        ranged=True,
                        ranged_bonus=ranged_bonus,
                        ranged_effects=effects,
                        spirit_poisons=spirit_poisons,
                        earth_void_stun=earth_void_stun,
                    )
                else:
                    kw.update(
                        assists_attacker=n_a,
                        assists_defender=n_d,
                        combined_attack_assists=combined,
                        guard_assists=guard,
                        back_strike=back,
                    )
                if extra:
                    kw.update(extra)
                ctx = self.made[key] = FightContext(**kw)
            return ctx

        return make

    def _holds_on_board(self, name: str, team: int) -> bool:
        """Does a model of ``team`` on the board hold ``name`` (one of :attr:`holders`)?"""
        return any(m.team == team and m.where == BOARD for m in self.holders[name])

    def best_friends(self, m: Model, helpers: list[Model]) -> int:
        """Best Friends: +1 more (the assist is +2) when the Inu Clan Kaiken's chosen friend assists it,
        or the kaiken assists its chosen friend."""
        for h in helpers:
            if (m.best_friend == h.uid and m.has("Best Friends")) or (h.best_friend == m.uid and h.has("Best Friends")):
                return 1
        return 0

    # -- the attack ----------------------------------------------------------

    def attack(self, attacker: Model, target: Model, ctx: FightContext) -> FightOutcome:
        out = fight(attacker.snapshot(), target.snapshot(), context=ctx, rng=self.rng, policy=self.match.fight_policy)
        c = out.combat
        say, record_dice = self.journal.say, self.journal.record_dice
        record_dice("attack", attacker.name, c.attack_initial)
        record_dice("defense", target.name, c.defense_initial)
        for ev in c.attack_rerolls:
            record_dice("attack reroll", attacker.name, (ev.after,))
        for ev in c.defense_rerolls:
            record_dice("defense reroll", target.name, (ev.after,))
        for s in (out.attacker, out.defender):
            self.journal.record_protection(s)
        mods = f" [{', '.join(out.modifiers)}]" if out.modifiers else ""
        res = c.result.value if c.result else "no result"
        who = f" ({c.chooser.value} chose)" if c.chooser else ""
        kind = "shoots" if ctx.ranged else "attacks"
        say(f"{attacker.name} {kind} {target.name}: {out.attack_dice} v {out.defense_dice} dice{mods}; {res}{who}")
        self.spend(out, attacker, target)
        if not (ctx.ranged and (attacker.shoots_stealthily or ctx.shuriken)):
            attacker.stealth = False
        # Fire: the other models in the attacker's influence zone
        zone: list[tuple[Model, bool]] = []
        if out.zone_stun_enemies:
            zone += [(self.board.models[u], True) for u in attacker.engaged if u != target.uid]
        if out.zone_stun_friends:
            for f in self.assistants(self.board.on_board(attacker.team), target, attacker):
                if self.rng.random() < self.match.geo.friend_in_zone:
                    zone.append((f, False))
        # the defender's side is harmed by the attacker, the attacker's side by the defender
        d_by = attacker
        a_by = target if (c.chooser is Side.DEFENDER or out.attacker.incoming is Harm.INJURED) else None
        self.apply_effect(out, attacker, target, a_by, d_by)
        for m, enemy_of_attacker in zone:
            if not m.on_board:
                continue
            by = attacker if enemy_of_attacker else (target if c.chooser is Side.DEFENDER else None)
            self.inflict(m, Harm.STUNNED, by=by, by_enemy=by is not None)
        if out.defender_poisoned and target.on_board and not target.moon:
            target.poison += 1
            say(f"{target.name} is Poisoned")
        if out.defender_cursed and target.on_board:
            target.curse += 1
            say(f"{target.name} is Cursed")
        return out

    def spend(self, out: FightOutcome, attacker: Model, target: Model) -> None:
        """Take away the tokens and once-a-round keywords the fight used."""
        for side, name in out.spent:
            m = attacker if side is Side.ATTACKER else target
            team = self.sides[m.team]
            if name == "reroll token":
                team.reroll_tokens -= 1
                self.journal.say(f"{team.name} spends a reroll token")
            elif name == "Lucky":
                m.lucky -= 1
            elif name == "Curse":
                enemy = target if side is Side.ATTACKER else attacker
                enemy.curse -= 1
            elif name == "Mastery":
                m.mastery_ready = False
            elif name == "Sensei":
                team.sensei_ready = False
            elif name == "Tidal Wave":
                m.tidal_ready = False
            elif name == "Protect":
                m.protect -= 1
            elif name == "Indomitable":
                m.indomitable_ready = False

    def apply_effect(self, out: FightOutcome, attacker: Model, target: Model, a_by: Model | None, d_by: Model) -> None:
        self.harm(attacker, out.attacker.harm, by=a_by)
        self.harm(target, out.defender.harm, by=d_by)
        if out.effect is CombatEffect.DEFENDER_MOVED and target.on_board and attacker.on_board:
            self.board.push_back(target)
            self.journal.say(f"{target.name} is pushed away")
        elif out.effect is CombatEffect.ATTACKER_MOVED and target.on_board and attacker.on_board:
            self.board.place_in_front(attacker, target, pulled_back=out.combat.chooser is Side.DEFENDER)
            self.journal.say(f"{attacker.name} is moved; {target.name} placed in front of it")

    # -- harm ----------------------------------------------------------------

    def inflict(self, victim: Model, incoming: Harm, *, by: Model | None, by_enemy: bool = True, counts: bool = True):
        """``incoming`` harm through the victim's protections (Moon Power, Resilient, Indomitable,
        Protect), then applied."""
        s = suffer(victim.snapshot(), incoming, by_enemy=by_enemy, rng=self.rng)
        self.journal.record_protection(s)
        self.harm(victim, s.harm, by=by, counts=counts)

    def harm(self, victim: Model, harm: Harm, *, by: Model | None, counts: bool = True) -> None:
        """Apply a final (post-protection) Stun or Injury to ``victim``.
        ``by`` is the enemy credited (None: self or poison); ``counts=False``
        for Poison (no XP, no points)."""
        if harm is Harm.NONE or not victim.on_board:
            return
        credited = by if (by is not None and by.team != victim.team and counts) else None
        if harm is Harm.STUNNED:
            victim.stun += 1
            self.journal.say(f"{victim.name} is Stunned ({victim.stun})")
            if credited is not None:
                if victim.ninja.is_chunin and not credited.ninja.is_chunin:
                    credited.chunin_stuns += 1
                self.rules.score_stun(victim, credited)
            if victim.has("Ink Attack") and victim.engaged:
                self.ink_attack(victim)
            if victim.stun >= 3:
                self.injure(victim, by=credited)
        else:
            self.injure(victim, by=credited)

    def injure(self, victim: Model, *, by: Model | None) -> None:
        if not victim.on_board:
            return
        say = self.journal.say
        # Healing Herbs: an adjacent friendly madoushi Stuns itself instead
        for herb in self.holders["Healing Herbs"]:
            if (
                herb.team == victim.team
                and herb.where == BOARD
                and herb is not victim
                and herb.stun == 0
                and (herb.engaged & victim.engaged)
            ):
                say(f"{herb.name} uses Healing Herbs: {victim.name} ignores the Injury")
                herb.stun += 1
                return
        say(f"{victim.name} is Injured" + (f" by {by.name}" if by else ""))
        if victim.has("Ink Attack") and victim.engaged:
            self.ink_attack(victim)
        self.rules.drop(victim, by)
        self.board.leave(victim, HEALING)
        points = 0
        if by is not None:
            by.injuries += 1
            points = self.rules.score_injury(victim, by)
        self.journal.record_injury(victim, by, points)
        if by is not None:
            if by.has("Soul Capture"):
                by.haste += 1
            if by.has("Net"):
                targets = [e for e in self.board.enemies(by) if self.board.distance(by, e) <= 3 and e.moon == 0]
                if targets:
                    t = max(targets, key=lambda e: (e.stun, e.ninja.attack, -e.uid))
                    say(f"{by.name}'s Net")
                    self.inflict(t, Harm.STUNNED, by=by)
        self.rules.on_removed(victim)

    def ink_attack(self, oni: Model) -> None:
        models = self.board.models
        targets = [models[u] for u in oni.engaged if models[u].on_board]
        if not targets:
            return
        t = max(targets, key=lambda e: (e.stun, e.ninja.attack, -e.uid))
        self.journal.say(f"{oni.name}'s Ink Attack")
        s = suffer(t.snapshot(), Harm.STUNNED, by_enemy=True, rng=self.rng)
        self.journal.record_protection(s)
        if s.harm is Harm.STUNNED:
            t.stun += 1
            if t.ninja.is_chunin and not oni.ninja.is_chunin:
                oni.chunin_stuns += 1
            if t.stun >= 3:
                self.injure(t, by=oni)
