"""Keywords and special abilities that are not part of a fight: actions a model may take instead
of attacking, and effects that trigger on a move, an activation or an attack.

Each action ability has an *option* (:meth:`Abilities.action_option`): its expected value for the
side from where the model stands (affinity tests succeed with :data:`P_TEST`), and what doing it
does. :meth:`~.actions.Actions.activate` takes the best option when it is worth more than the
model's best attack (the policy's rule, docs/simulation.md "Special abilities"). The texts are the
rulebook's (rules/data/catalog.json); where the abstract board cannot follow a text literally the
approximation is written in docs/simulation.md and the ruling in docs/rulings.md.

"Influence zone" on the abstract board: an enemy's is its contacts (``engaged``); a friend is in a
model's influence zone when it stands within one space of it (``abs(progress difference) <= 1``, the
two measured from the same edge) or shares an enemy contact with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..keywords import KW, Harm
from .board import STATUS_TOKENS, Model
from .part import Part

if TYPE_CHECKING:
    from .match import Match

#: Chance that an affinity test with one affinity succeeds (at least one icon on three dice).
P_TEST = 1 - (5 / 6) ** 3
#: Value of one Stun token on an enemy (of its own Injury's worth), as the targeting policy counts it.
STUN_SHARE = 0.35
#: Value of a Poison token on an enemy: a Water (Stun) or a Spirit (Injury, but no points) in six.
POISON_VALUE = (STUN_SHARE + 1) / 6
#: Least value for an ability to replace a run (a run brings the model closer; nothing is lost).
MIN_VALUE = 0.05

Option = tuple[float, Callable[[], None] | None]
NOTHING: Option = (0.0, None)


def friend_in_zone(m: Model, f: Model) -> bool:
    """``f`` (a friend) is in ``m``'s influence zone on the abstract board."""
    return f is not m and f.team == m.team and (abs(f.progress - m.progress) <= 1 or bool(f.engaged & m.engaged))


def best_of(candidates: Iterable[Model], value: Callable[[Model], float]) -> tuple[float, Model | None]:
    """(value, model) of the first candidate worth the most, if any is worth more than nothing."""
    best: tuple[float, Model | None] = (0.0, None)
    for e in candidates:
        worth = value(e)
        if worth > best[0]:
            best = (worth, e)
    return best


class Abilities(Part):
    """Action abilities (options and their effects) and the triggered ones."""

    ACTION_ABILITIES = (
        KW.HEALING,
        KW.SICKEN,
        "Drown",
        "Volcano Pots",
        "Dragon's Breath",
        "Healing Mist",
        "Wanderlust",
        "Amazing Awareness",
        "Spirit Power",
        "Blessing of the Tengu",
        "Skull Hex",
        "Foul Weather",
    )
    #: Actions every model has: going into Stealth, taking a positive shrine's token.
    COMMON_ACTIONS = ("Stealth", "shrine")
    #: What a positive shrine's token is worth to the policy.
    SHRINE_TOKEN_VALUE = {"Protect": 0.3, "Lucky": 0.25, "Haste": 0.4}
    #: What going into Stealth is worth when an enemy could charge the model next.
    HIDE_VALUE = 0.3

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        self.referee = match.referee
        self.policy = match.policy
        # each model's action abilities, by uid (keywords and abilities do not change during a match)
        self.own_actions = [tuple(n for n in self.ACTION_ABILITIES if m.has(n)) for m in self.board.models]
        self.options: dict[str, Callable[[Model], Option]] = {
            KW.HEALING: self.healing,
            KW.SICKEN: self.sicken,
            "Drown": self.drown,
            "Volcano Pots": self.volcano_pots,
            "Dragon's Breath": self.dragons_breath,
            "Healing Mist": self.healing_mist,
            "Wanderlust": self.wanderlust,
            "Amazing Awareness": self.amazing_awareness,
            "Spirit Power": self.spirit_power,
            "Blessing of the Tengu": self.blessing_of_the_tengu,
            "Skull Hex": self.skull_hex,
            "Foul Weather": self.foul_weather,
            "Stealth": self.go_into_stealth,
            "shrine": self.take_shrine_token,
        }

    # -- helpers ---------------------------------------------------------------

    def action_option(self, m: Model) -> Option:
        """The best action ``m`` can take instead of attacking, from where it stands: its action
        abilities, going into Stealth, a positive shrine's token. (value, do)."""
        best = NOTHING
        for name in self.own_actions[m.uid]:
            value, do = self.options[name](m)
            if do is not None and value > best[0]:
                best = (value, do)
        for name in self.COMMON_ACTIONS:
            value, do = self.options[name](m)
            if do is not None and value > best[0]:
                best = (value, do)
        return best

    # -- actions every model has ---------------------------------------------------

    def go_into_stealth(self, m: Model) -> Option:
        """Stealth ("Stealth", line 192): a model not in any enemy's LoS may use its action to go into
        Stealth. On the abstract board it is out of sight when no enemy is within two spaces and either
        none is within ``Geometry.sight`` or obscuring terrain hides it (``Geometry.cover``, rolled when
        it tries). Policy (``SidePolicy.hide``): when an enemy could charge it next activation."""
        if m.stealth or m.engaged or not self.match.side_policies[m.team].hide:
            return NOTHING
        enemies = self.board.enemies(m)
        gaps = []
        for e in enemies:
            gap = self.board.distance(m, e)
            if gap <= 2:
                return NOTHING  # too close to be out of its sight
            gaps.append(gap)
        if not gaps:
            return NOTHING
        threat = any(g - 1 <= self.match.actions.movement(e) for e, g in zip(enemies, gaps) if not e.activated)
        if not threat:
            return NOTHING
        far = min(gaps) > self.match.geo.sight

        def do() -> None:
            if far or self.board.rng.random() < self.match.geo.cover:
                m.stealth = True
                self.journal.say(f"{m.name} goes into Stealth")
            else:
                self.journal.say(f"{m.name} finds no cover to go into Stealth")

        return self.HIDE_VALUE * (1.0 if far else self.match.geo.cover), do

    def take_shrine_token(self, m: Model) -> Option:
        """A positive shrine (line 227): within one space of it, the action's affinity test gives its token."""
        if m.at_shrine is None:
            return NOTHING
        shrine = self.board.shrines[m.at_shrine]
        if shrine.detrimental:
            return NOTHING
        token = STATUS_TOKENS[shrine.effect]

        def do() -> None:
            if self.test(m, f"the {shrine.effect} shrine"):
                setattr(m, token, getattr(m, token) + 1)

        return P_TEST * self.SHRINE_TOKEN_VALUE[shrine.effect], do

    def friends_in_zone(self, m: Model) -> list[Model]:
        return [f for f in self.board.on_board(m.team) if friend_in_zone(m, f)]

    def zone_enemies(self, m: Model) -> list[Model]:
        """The enemies in ``m``'s influence zone (its contacts)."""
        models = self.board.models
        return [models[u] for u in sorted(m.engaged) if models[u].on_board]

    def within(self, m: Model, spaces: int, *, visible: bool = True) -> list[Model]:
        """Enemies within ``spaces`` of ``m`` (seen by it unless ``visible=False``: "No LoS is required")."""
        return [
            e
            for e in self.board.enemies(m)
            if self.board.distance(m, e) <= spaces and (not visible or self.board.visible(m, e))
        ]

    def stun_value(self, victim: Model, for_team: int) -> float:
        """A Stun on ``victim`` for team ``for_team``: + for an enemy, - for a friend; the third Stun
        counts as the Injury; nothing against Moon Power."""
        if victim.moon:
            return 0.0
        worth = 1.0 if victim.stun >= 2 else STUN_SHARE
        return -worth if victim.team == for_team else worth

    def test(self, m: Model, name: str) -> bool:
        ok = self.journal.test(m, name)
        self.journal.say(f"{m.name} uses {name}: " + ("success" if ok else "the test fails"))
        return ok

    # -- action abilities (keywords) --------------------------------------------

    def healing(self, m: Model) -> Option:
        """Healing: test; all status tokens off one friendly model in the influence zone."""

        def harmful(f: Model) -> float:
            stun = 0.9 if f.stun >= 2 else STUN_SHARE * f.stun
            good = 0.2 * (f.lucky + f.protect) + 0.4 * f.haste + 0.5 * f.moon
            return stun + POISON_VALUE * f.poison + 0.05 * f.slow + 0.15 * f.curse - good

        friends = [f for f in self.friends_in_zone(m) if harmful(f) > 0]
        if not friends:
            return NOTHING
        f = max(friends, key=lambda x: (harmful(x), -x.uid))

        def do() -> None:
            if self.test(m, KW.HEALING):
                f.clear_tokens()
                self.journal.say(f"{m.name} heals {f.name}: every status token removed")

        return P_TEST * harmful(f), do

    def sicken(self, m: Model) -> Option:
        """Sicken: test; every enemy in the influence zone is Poisoned."""
        foes = [e for e in self.zone_enemies(m) if not e.moon]
        if not foes:
            return NOTHING

        def do() -> None:
            if self.test(m, KW.SICKEN):
                for e in foes:
                    if e.on_board and not e.moon:
                        e.poison += 1
                        self.journal.say(f"{e.name} is Poisoned")

        return P_TEST * POISON_VALUE * len(foes), do

    def drown(self, m: Model) -> Option:
        """Drown: test; every enemy in the influence zone is Slowed."""
        foes = self.zone_enemies(m)
        if not foes:
            return NOTHING

        def do() -> None:
            if self.test(m, "Drown"):
                for e in foes:
                    if e.on_board:
                        e.slow += 1
                        self.journal.say(f"{e.name} is Slowed")

        return P_TEST * 0.08 * len(foes), do

    # -- action abilities (special) ----------------------------------------------

    def adjacent_to(self, e: Model) -> list[Model]:
        """The models adjacent to ``e``: its contacts and its friends sharing one of them."""
        models = self.board.models
        out = [models[u] for u in sorted(e.engaged) if models[u].on_board]
        out += [f for f in self.board.on_board(e.team) if f is not e and f.engaged & e.engaged]
        return out

    def volcano_pots(self, m: Model) -> Option:
        """Volcano Pots: test; one enemy within six spaces and every model adjacent to it Stunned."""
        value, target = best_of(
            self.within(m, 6),
            lambda e: sum(self.stun_value(v, m.team) for v in [e, *self.adjacent_to(e)] if v is not m),
        )
        if target is None:
            return NOTHING

        def do() -> None:
            if not self.test(m, "Volcano Pots") or not target.on_board:
                return
            for v in [target, *self.adjacent_to(target)]:
                if v.on_board:
                    enemy = v.team != m.team
                    self.referee.inflict(v, Harm.STUNNED, by=m if enemy else None, by_enemy=enemy)

        return P_TEST * value, do

    def dragons_breath(self, m: Model) -> Option:
        """Dragon's Breath: every model in the front influence zone takes a test; failing it Stuns."""
        front = [e for e in self.zone_enemies(m) if e.uid not in m.behind]
        if not front:
            return NOTHING

        def do() -> None:
            self.journal.say(f"{m.name} uses Dragon's Breath")
            for e in front:
                if e.on_board and not self.journal.test(e, "Dragon's Breath"):
                    self.referee.inflict(e, Harm.STUNNED, by=m)

        return sum((1 - P_TEST) * self.stun_value(e, m.team) for e in front), do

    def healing_mist(self, m: Model) -> Option:
        """Healing Mist: the madoushi Stuns itself; every Stun token off up to two friends within four."""
        friends = [
            f for f in self.board.on_board(m.team) if f is not m and f.stun and abs(f.progress - m.progress) <= 4
        ]
        friends = sorted(friends, key=lambda f: (-f.stun, f.uid))[:2]
        if not friends:
            return NOTHING
        gain = sum(0.9 if f.stun >= 2 else STUN_SHARE * f.stun for f in friends)
        cost = 0.0 if m.moon else STUN_SHARE

        def do() -> None:
            self.journal.say(f"{m.name} uses Healing Mist on {', '.join(f.name for f in friends)}")
            self.referee.harm(m, Harm.STUNNED if not m.moon else Harm.NONE, by=None)
            for f in friends:
                f.stun = 0

        return gain - cost, do

    def wanderlust(self, m: Model) -> Option:
        """Wanderlust: test; an enemy within six moves up to four spaces ignoring influence zones.
        Policy: the enemy in contact with the friend in most danger (most Stun tokens) is moved four
        spaces back, out of every contact; a medal carrier first."""

        def worth(e: Model) -> float:
            value = 1.0 if e.carrying is not None else 0.0
            friends = [self.board.models[u] for u in e.engaged]
            if friends:
                value = max(value, 0.15 + 0.3 * max(f.stun for f in friends))
            return value

        value, target = best_of(self.within(m, 6, visible=False), worth)
        if target is None:
            return NOTHING

        def do() -> None:
            if self.test(m, "Wanderlust") and target.on_board:
                self.board.disengage(target)
                target.progress = max(0, target.progress - 4)
                self.journal.say(f"{target.name} is moved away")

        return P_TEST * value, do

    def amazing_awareness(self, m: Model) -> Option:
        """Amazing Awareness: every enemy within eight spaces loses Stealth (no LoS needed)."""
        hidden = [e for e in self.within(m, 8, visible=False) if e.stealth]
        if not hidden:
            return NOTHING

        def do() -> None:
            for e in hidden:
                e.stealth = False
            self.journal.say(f"{m.name} uses Amazing Awareness: {', '.join(e.name for e in hidden)} lose Stealth")

        return 0.15 * len(hidden), do

    def spirit_power(self, m: Model) -> Option:
        """Spirit Power: until the end of the round, dodges out of its influence zone fail."""
        foes = [e for e in self.zone_enemies(m) if not e.activated and not e.ignores_zones]
        if not foes or m.spirit_power:
            return NOTHING

        def do() -> None:
            m.spirit_power = True
            self.journal.say(f"{m.name} uses Spirit Power")

        carrier = any(e.carrying is not None or self.match.rules.injury_bonus(m, e) >= 2 for e in foes)
        return 0.1 * len(foes) + (0.5 if carrier else 0.0), do

    def blessing_of_the_tengu(self, m: Model) -> Option:
        """Blessing of the Tengu: test; friends in the influence zone +1 Attack until the end of the round."""
        friends = [f for f in self.friends_in_zone(m) if not f.activated and f.engaged]
        if not friends:
            return NOTHING

        def do() -> None:
            if self.test(m, "Blessing of the Tengu"):
                for f in friends:
                    f.attack_mod += 1

        return P_TEST * 0.15 * len(friends), do

    def skull_hex(self, m: Model) -> Option:
        """Skull Hex: test; an enemy within six and the enemies in its influence zone get -1 Defense
        (to a minimum of 1) until the end of the round."""
        best: tuple[float, list[Model]] = (0.0, [])
        for e in self.within(m, 6):
            group = [e] + [f for f in self.board.on_board(e.team) if friend_in_zone(e, f)]
            value = sum(
                0.1
                for g in group
                if g.ninja.defense + g.defense_mod > 1 and any(not self.board.models[u].activated for u in g.engaged)
            )
            if value > best[0]:
                best = (value, group)
        value, group = best
        if not group:
            return NOTHING

        def do() -> None:
            if self.test(m, "Skull Hex"):
                for g in group:
                    g.defense_mod = max(g.defense_mod - 1, 1 - g.ninja.defense)

        return P_TEST * value, do

    def foul_weather(self, m: Model) -> Option:
        """Foul Weather: test; until the end of the round no LoS beyond four spaces (ranged attacks
        reach at most four) and models in Stealth reroll failed dodges."""
        shooters = [e for e in self.board.enemies(m) if e.shooting_range > 4 and not e.activated]
        if not shooters or self.match.foul_weather == self.journal.round:
            return NOTHING

        def do() -> None:
            if self.test(m, "Foul Weather"):
                self.match.foul_weather = self.journal.round

        return P_TEST * 0.2 * len(shooters), do

    # -- triggered abilities -------------------------------------------------------

    def undertow(self, m: Model) -> None:
        """Undertow (when the madoushi activates): test; a friend within four spaces in danger
        (in contact and Stunned) is moved into the madoushi's influence zone, out of its contacts."""
        if not self.journal.test(m, "Undertow"):
            return
        friends = [
            f
            for f in self.board.on_board(m.team)
            if f is not m and f.engaged and f.stun and abs(f.progress - m.progress) <= 4
        ]
        if not friends:
            return
        f = max(friends, key=lambda x: (x.stun, -x.uid))
        self.board.disengage(f)
        f.progress = m.progress
        self.journal.say(f"{m.name}'s Undertow pulls {f.name} away")

    def spirit_senses(self, m: Model) -> None:
        """Spirit Senses (after moving): test; the enemies in its influence zone lose Stealth."""
        hidden = [e for e in self.board.enemies(m) if e.stealth and self.board.distance(m, e) <= 1]
        if hidden and self.journal.test(m, "Spirit Senses"):
            for e in hidden:
                e.stealth = False
            self.journal.say(f"{m.name}'s Spirit Senses reveal {', '.join(e.name for e in hidden)}")

    def allure(self, m: Model) -> None:
        """Allure (round start): one enemy cannot dodge out of Tamamo no Mae's influence zone this
        round. Policy: an enemy in contact with her (the strongest), else the nearest one."""
        foes = self.zone_enemies(m) or self.board.enemies(m)
        if not foes:
            return
        e = min(foes, key=lambda x: (self.board.distance(m, x), -x.ninja.attack, x.uid))
        e.allured_by = m.uid

    def elixir_of_courage(self, m: Model) -> None:
        """Elixir of Courage (after a successful Tough test): the Protect token may go to another
        model within four spaces. Policy: to the strongest friend in contact when the Komuso is not."""
        if m.engaged:
            return
        friends = [
            f for f in self.board.on_board(m.team) if f is not m and f.engaged and abs(f.progress - m.progress) <= 4
        ]
        if not friends:
            return
        f = max(friends, key=lambda x: (self.policy.strength(x), -x.uid))
        m.protect -= 1
        f.protect += 1
        self.journal.say(f"{m.name} gives its Protect token to {f.name} (Elixir of Courage)")

    def wind_walk(self, m: Model, goal: int | None) -> None:
        """Wind Walk (instead of moving): the madoushi and the friends in its influence zone move five
        spaces ignoring models and influence zones, ending in its influence zone; the madoushi is
        Stunned at the end of its turn."""
        friends = [f for f in self.friends_in_zone(m) if not f.activated]
        self.board.disengage(m)
        self.board.move(m, 5, goal, terrain=False)
        for f in friends:
            self.board.disengage(f)
            f.progress = m.progress
        names = ", ".join(f.name for f in friends)
        self.journal.say(f"{m.name} uses Wind Walk" + (f" with {names}" if names else ""))
        m.stun_at_end = True
