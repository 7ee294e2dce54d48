"""The board: where every model is (zones, positions, contacts) and the geometry between them.

The board is abstract (docs/simulation.md, "Board"): each pair of teams faces each other across a
board :data:`BOARD_DEPTH` spaces deep; a model's position is how far it has advanced from its own
deployment edge (``progress``), so two models of different teams are ``|p1 - (BOARD_DEPTH - p2)|``
spaces apart. Who is in whose influence zone is a graph of contacts between enemy models
(``engaged``), with the back zone kept per contact (``behind``). :class:`Geometry` holds the chances
that stand in for the geometry the abstraction leaves out.

A model is in one zone: on the board, in the Training Ground, in the Healing House, or out of the
game (not available); it comes onto the board and leaves it through :meth:`Board.enter` and
:meth:`Board.leave` only. :class:`Model` is one model's whole state in the match: zone and position,
status tokens, per-round effects, and what the record counts for it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from ..keywords import AB, CombatantSnapshot
from .journal import Journal
from .roster import SimNinja

#: Spaces between two opposing deployment edges (abstract board depth).
BOARD_DEPTH = 18
#: The middle of the board (King of the Hill's scoring area, Search's crates).
CENTRE = BOARD_DEPTH // 2

#: The status effects (catalog names) a model carries as tokens, and the :class:`Model` field counting
#: each. Delay is the ninth: only sentries get it here (:mod:`.challenges.objectives`).
STATUS_TOKENS = {
    "Curse": "curse",
    "Haste": "haste",
    "Lucky": "lucky",
    "Moon Power": "moon",
    "Poison": "poison",
    "Protect": "protect",
    "Slow": "slow",
    "Stun": "stun",
}

#: What lets a model move through influence zones without a dodge (as Moon Power does).
ZONES_IGNORED_WITH = frozenset(("Movement Rig", "Banzai"))

#: The zones a model can be in.
BOARD, TRAINING, HEALING, OUT = "board", "training", "healing", "out"


@dataclass(frozen=True)
class Geometry:
    """The probabilities that stand in for the board's geometry.

    ``crowd``: an enemy already in contact with the defender's side is also
    adjacent to an attacker that walks up (per enemy); ``near``: the same
    for an enemy that is free but within one space.  ``back_on_approach``:
    walking up to a defender that faces another enemy ends in its back
    influence zone.  ``back_on_turn``: when a model turns to face its
    target, each other adjacent enemy ends up behind it.  ``friend_in_zone``:
    an assisting friend stands in the attacker's own influence zone (Fire
    Stuns it).  ``lantern``: a move through a placed lantern's band (within
    one space of its depth) passes within one space of it (the board has no
    width: this is the share of the lanes its light covers); a model in
    Stealth then loses it.

    Terrain ("Terrain", rulebook lines 207-227): ``rough``: each space of a move
    is rough terrain or foliage (two movement points; Surefoot one);
    ``climb``: a move meets elevated terrain it climbs onto (three points;
    Expert Climber two; Leap and Spider Legs one); ``foliage``: a model in
    Stealth passes through foliage without ending its move there and loses
    Stealth (not with Surefoot); ``shrine``: a move through a shrine's band
    passes within one space of it; ``cover``: obscuring terrain hides a model
    from the enemies more than two spaces away when it tries to go into
    Stealth (beyond ``sight`` spaces nobody sees it anyway).
    """

    crowd: float = 0.3
    near: float = 0.2
    back_on_approach: float = 0.5
    back_on_turn: float = 0.3
    friend_in_zone: float = 0.5
    lantern: float = 0.15
    rough: float = 0.1
    climb: float = 0.15
    foliage: float = 0.1
    shrine: float = 0.3
    cover: float = 0.35
    sight: int = 10


DEFAULT_GEOMETRY = Geometry()

#: Lanterns and shrines at set-up ("Setup", rulebook lines 81-82): at least four and at most six lanterns,
#: at most four shrines, each at least two spaces from any deployment zone (the two edges).
LANTERNS_MIN, LANTERNS_MAX, SHRINES_MAX, CLEAR_OF_EDGES = 4, 6, 4, 2

#: Samurai Sentry ("Sentries", rulebook line 545): Movement 5, Attack 3, Defense 3; six of them; an
#: activated sentry attacks the closest visible model within five spaces, otherwise moves up to three.
SENTRIES, SENTRY_MOVEMENT, SENTRY_ATTACK, SENTRY_DEFENSE = 6, 5, 3, 3
SENTRY_SIGHT, SENTRY_IDLE_MOVE = 5, 3

#: The status effects a shrine may radiate ("Shrines", rulebook lines 224-227).
DETRIMENTAL_SHRINES = ("Curse", "Poison", "Slow")
POSITIVE_SHRINES = ("Haste", "Lucky", "Protect")


@dataclass(frozen=True)
class Shrine:
    """A shrine token: the status effect it radiates and its position (spaces from the first team's
    edge), placed at set-up."""

    effect: str
    position: int
    placed_by: int

    @property
    def detrimental(self) -> bool:
        return self.effect in DETRIMENTAL_SHRINES


@dataclass(eq=False)
class Sentry:
    """A Samurai Sentry (Infiltration, Search): nobody's model. ``position`` is its depth in the first
    team's frame (as shrines and lanterns); ``guards`` the index of the object it was deployed to
    guard; ``delay`` its Delay tokens while in the Healing House."""

    index: int
    where: str = TRAINING
    position: int = 0
    guards: int = 0
    stun: int = 0
    delay: int = 0
    activated: bool = False

    @property
    def name(self) -> str:
        return f"Samurai Sentry {self.index + 1}"

    @property
    def on_board(self) -> bool:
        return self.where == BOARD


@dataclass(eq=False)
class Model:
    """One model's state in the match (``uid``: its index on the board; ``team``: its team's index)."""

    uid: int
    team: int
    ninja: SimNinja
    where: str = TRAINING
    progress: int = 0
    engaged: set = field(default_factory=set)  # uids of adjacent enemy models
    behind: set = field(default_factory=set)  # uids of enemies in my back influence zone
    stun: int = 0
    slow: int = 0
    poison: int = 0
    curse: int = 0
    lucky: int = 0
    protect: int = 0
    haste: int = 0
    moon: int = 0
    stealth: bool = False
    activated: bool = False
    mastery_ready: bool = True
    tidal_ready: bool = True
    indomitable_ready: bool = True
    played: bool = False
    injuries: int = 0
    chunin_stuns: int = 0
    reveals: int = 0
    feats: Counter = field(default_factory=Counter)
    # per-round effects
    metal_to_dust: bool = False
    no_defense: bool = False
    attack_mod: int = 0
    defense_mod: int = 0
    spirit_power: bool = False  # Spirit Power used this round: dodges out of its zone fail
    allured_by: int | None = None  # Allure: cannot dodge out of this model's zone this round
    stun_at_end: bool = False  # Wind Walk, Air Dragon's Breath, Firearm Flurry: Stunned at the end of the activation
    no_defense_after: bool = False  # Firearm Flurry: no defense dice after its activation, for the round
    carrying: int | None = None  # medal id
    run_target: int | None = None  # team whose medal a runner goes for
    best_friend: int | None = None  # Best Friends: the chosen friend's uid
    at_shrine: int | None = None  # the shrine it ended its last move within one space of

    @property
    def name(self) -> str:
        return self.ninja.name

    @property
    def on_board(self) -> bool:
        return self.where == BOARD

    def has(self, name: str) -> bool:
        return name in self.ninja.traits

    @property
    def ignores_zones(self) -> bool:
        """Moves through influence zones without a dodge (Moon Power, Movement Rig, Banzai)."""
        return self.moon > 0 or not self.ninja.traits.isdisjoint(ZONES_IGNORED_WITH)

    @property
    def shooting_range(self) -> int:
        """Range of its ranged attack (the profile's, or Mountain Flute's 10); 0 without one."""
        if self.ninja.ranged:
            return self.ninja.ranged
        return 10 if self.has("Mountain Flute") else 0

    @property
    def shoots_stealthily(self) -> bool:
        """Its shots keep it in Stealth (a Stealthy ranged profile, Mountain Flute)."""
        return "Stealthy" in self.ninja.ranged_text or (not self.ninja.ranged and self.has("Mountain Flute"))

    def new_round(self) -> None:
        """Clear what lasts one round (activation, once-a-round keywords, round effects)."""
        self.activated = False
        self.mastery_ready = self.tidal_ready = self.indomitable_ready = True
        self.metal_to_dust = False
        self.no_defense = False
        self.spirit_power = False
        self.allured_by = None
        self.attack_mod = self.defense_mod = 0

    def reset_statuses(self) -> None:
        """Every status token off, and out of Stealth."""
        self.clear_tokens()
        self.stealth = False

    def clear_tokens(self) -> None:
        """Every status token off (:data:`STATUS_TOKENS`)."""
        for token in STATUS_TOKENS.values():
            setattr(self, token, 0)

    def snapshot(self) -> CombatantSnapshot:
        """The model as :func:`~rules.engine.keywords.fight` sees it now. A snapshot is frozen, so
        the one made for the same state it copies is given again (the policy asks for one per
        target it weighs; tokens come and go and the same states come back)."""
        state = (
            self.stun,
            self.stealth,
            self.moon,
            self.lucky,
            self.curse,
            self.protect,
            self.mastery_ready,
            self.tidal_ready,
            self.indomitable_ready,
            self.activated,
            self.no_defense,
            self.metal_to_dust,
            self.attack_mod,
            self.defense_mod,
        )
        made = self.__dict__.get("_snapshots")
        if made is None:
            made = self.__dict__["_snapshots"] = {}
        snap = made.get(state)
        if snap is None:
            snap = made[state] = self._new_snapshot()
        return snap

    def _new_snapshot(self) -> CombatantSnapshot:
        return CombatantSnapshot(
            name=self.name,
            attack=self.ninja.attack,
            defense=self.ninja.defense,
            affinities=self.ninja.affinities,
            keywords=self.ninja.keywords,
            abilities=self.ninja.abilities,
            is_chunin=self.ninja.is_chunin,
            stun_tokens=self.stun,
            in_stealth=self.stealth,
            moon_powered=self.moon > 0,
            lucky_tokens=self.lucky,
            curse_tokens=self.curse,
            protect_tokens=self.protect,
            mastery_ready=self.mastery_ready,
            tidal_wave_ready=self.tidal_ready,
            indomitable_ready=self.indomitable_ready,
            has_activated=self.activated,
            no_defense_dice=self.no_defense,
            metal_to_dust=self.metal_to_dust,
            attack_bonus=self.attack_mod,
            defense_bonus=self.defense_mod,
        )


class Board:
    """Every model of the match, the zones they are in, and the geometry between them.

    ``rng`` and ``geometry`` decide the contacts the abstraction draws by chance; ``journal``
    logs what a move reveals (lanterns, Vigilance).
    """

    def __init__(
        self, models: list[Model], *, teams: int, rng: random.Random, geometry: Geometry, journal: Journal
    ) -> None:
        self.models = models
        # each team's models in board order (the look-ups below run in every target choice)
        self.by_team = [[m for m in models if m.team == t] for t in range(teams)]
        # Who is on the board, in board order: everybody, per team, and each team's enemies. Kept
        # until a model enters or leaves (:meth:`enter` and :meth:`leave`, the only ways on and off).
        self._present: tuple[Model, ...] | None = None
        self._team_present: list[tuple[Model, ...] | None] = [None] * teams
        self._enemies: list[tuple[Model, ...] | None] = [None] * teams
        # the models with Binding Bride, in board order (keywords and abilities do not change in a match)
        self.brides = [m for m in models if m.has("Binding Bride")]
        self.rng = rng
        self.geo = geometry
        self.journal = journal
        self.shrines: list[Shrine] = []
        self.lanterns: list[int] = []  # depths in the first team's frame
        self.sentries: list[Sentry] = []  # the challenge's sentries (Infiltration, Search)

    # -- who is where --------------------------------------------------------

    def team_models(self, t: int) -> list[Model]:
        return list(self.by_team[t])

    def on_board(self, t: int | None = None) -> tuple[Model, ...]:
        """The models on the board (of team ``t``), in board order."""
        if t is None:
            present = self._present
            if present is None:
                present = self._present = tuple(m for m in self.models if m.where == BOARD)
            return present
        team = self._team_present[t]
        if team is None:
            team = self._team_present[t] = tuple(m for m in self.by_team[t] if m.where == BOARD)
        return team

    def enemies(self, m: Model) -> tuple[Model, ...]:
        """The models of the other teams on the board, in board order."""
        found = self._enemies[m.team]
        if found is None:
            found = self._enemies[m.team] = tuple(o for o in self.models if o.where == BOARD and o.team != m.team)
        return found

    def _zones_changed(self) -> None:
        """A model entered or left the board: who is on it is read again on the next look-up."""
        self._present = None
        self._team_present = [None] * len(self.by_team)
        self._enemies = [None] * len(self.by_team)

    def distance(self, a: Model, b: Model) -> int:
        if b.uid in a.engaged:
            return 1
        d = abs(a.progress - (BOARD_DEPTH - b.progress))
        return d if d > 1 else 1

    def visible(self, viewer: Model, target: Model) -> bool:
        return not target.stealth or viewer.has(AB.UNCANNY_AWARENESS)

    def in_centre(self, m: Model) -> bool:
        """Within two spaces of the middle of the board (King of the Hill's scoring area)."""
        return abs(m.progress - CENTRE) <= 2

    # -- zones ---------------------------------------------------------------

    def enter(self, m: Model) -> None:
        """Deploy ``m`` at its own edge."""
        m.where = BOARD
        self._zones_changed()
        m.progress = 0
        m.played = True
        m.engaged.clear()
        m.behind.clear()

    def leave(self, m: Model, where: str) -> None:
        """Take ``m`` off the board to ``where`` with every status token removed."""
        self.disengage(m)
        m.where = where
        self._zones_changed()
        m.reset_statuses()

    # -- contacts ------------------------------------------------------------

    def disengage(self, m: Model) -> None:
        for uid in m.engaged:
            other = self.models[uid]
            other.engaged.discard(m.uid)
            other.behind.discard(m.uid)
        m.engaged.clear()
        m.behind.clear()

    def place_adjacent(self, m: Model, target: Model) -> bool:
        """Move ``m`` into contact with ``target``; returns the back strike."""
        if target.uid in m.engaged:
            return m.uid in target.behind
        self.disengage(m)
        m.progress = max(0, min(BOARD_DEPTH, BOARD_DEPTH - target.progress - 1))
        busy = bool(target.engaged)
        m.engaged.add(target.uid)
        target.engaged.add(m.uid)
        back = busy and self.rng.random() < self.geo.back_on_approach
        if back:
            target.behind.add(m.uid)
        for z in self.enemies(m):
            if z is target or z.stealth or z.uid in m.engaged:
                continue
            if abs(z.progress - target.progress) > 1:
                continue
            p = self.geo.crowd if z.engaged else self.geo.near
            if self.rng.random() < p:
                m.engaged.add(z.uid)
                z.engaged.add(m.uid)
        self.vigilance(m)
        return back

    def turn_to(self, m: Model, target: Model) -> None:
        """``m`` faces ``target``; each other enemy in contact may end up behind it."""
        m.behind.discard(target.uid)
        for u in list(m.engaged):
            if u != target.uid and self.rng.random() < self.geo.back_on_turn:
                m.behind.add(u)

    def vigilance(self, m: Model) -> None:
        if m.stealth and any(self.models[u].has("Vigilance") for u in m.engaged):
            m.stealth = False
            self.journal.say(f"{m.name} loses Stealth (Vigilance)")

    # -- moves ---------------------------------------------------------------

    def terrain_walk(self, m: Model, spaces: int, wanted: int) -> int:
        """How many of the ``wanted`` spaces ``spaces`` movement points cover over the terrain: a climb
        onto elevated terrain (by chance) and rough spaces cost more (``Geometry``)."""
        points = spaces
        if wanted > 0 and self.rng.random() < self.geo.climb:
            if m.has("Leap") or m.has("Spider Legs"):
                cost = 1
            elif m.has("Expert Climber"):
                cost = 2
            else:
                cost = 3
            points -= cost - 1
        covered = 0
        surefoot = m.has("Surefoot")
        while covered < wanted and points > 0:
            cost = 2 if (not surefoot and self.rng.random() < self.geo.rough) else 1
            if cost > points:
                break
            points -= cost
            covered += 1
        return covered

    def move(self, m: Model, spaces: int, goal: int | None = None, *, terrain: bool = True) -> None:
        """Move ``m`` (already free of contacts it had to dodge) up to ``spaces`` toward ``goal``
        (a position) or, with no goal, toward the enemy: it stops two spaces short of the nearest
        visible enemy and next to the nearest hidden one (players know roughly where a model went
        into Stealth)."""
        self.disengage(m)
        if goal is None:
            limit = BOARD_DEPTH
            for e in self.enemies(m):
                gap = 2 if self.visible(m, e) else 1
                limit = min(limit, BOARD_DEPTH - e.progress - gap)
            new = min(m.progress + spaces, max(limit, m.progress))
        elif goal >= m.progress:
            new = min(m.progress + spaces, goal)
        else:
            new = max(m.progress - spaces, goal)
        new = max(0, min(BOARD_DEPTH, new))
        start = m.progress
        if terrain and new != start:
            covered = self.terrain_walk(m, spaces, abs(new - start))
            new = start + covered if new > start else start - covered
        bride = self.binding_bride(m, new)
        if bride is not None:
            new = BOARD_DEPTH - bride.progress - 1
        m.progress = new
        if bride is not None:
            m.engaged.add(bride.uid)
            bride.engaged.add(m.uid)
            self.journal.say(f"{m.name} is caught by {bride.name}'s Binding Bride")
        if m.stealth and self.lanterns and new != start:
            self.pass_lanterns(m, start, new)
        if m.stealth and new != start and not m.has("Surefoot") and self.rng.random() < self.geo.foliage:
            m.stealth = False
            self.journal.say(f"{m.name} moves through foliage and loses Stealth")
        m.at_shrine = None
        if self.shrines and new != start:
            self.pass_shrines(m, start, new)

    def frame(self, m: Model, progress: int) -> int:
        """``progress`` of a model of ``m``'s team in the first team's frame (shrines, lanterns and
        sentries are placed in it), and back: the map is its own inverse. With three or four teams
        every team faces the first across the same depth."""
        return progress if m.team == 0 else BOARD_DEPTH - progress

    def spot(self, m: Model) -> int:
        """``m``'s depth in the first team's frame."""
        return m.progress if m.team == 0 else BOARD_DEPTH - m.progress

    def sentry_distance(self, s: Sentry, m: Model) -> int:
        """Spaces between a sentry and a model (depth only: the board has no width; 1 when adjacent)."""
        d = abs(s.position - (m.progress if m.team == 0 else BOARD_DEPTH - m.progress))  # self.spot(m)
        return d if d > 1 else 1

    def pass_lanterns(self, m: Model, start: int, new: int) -> None:
        """ "Lanterns" (rulebook line 222): a model in Stealth that moves within one space of a lantern
        loses Stealth. A move through a lantern's band (within one space of its depth) passes within
        one space of it with chance ``Geometry.lantern`` (the lanes its light covers)."""
        lo, hi = sorted((self.frame(m, start), self.frame(m, new)))
        for depth in self.lanterns:
            if lo - 1 <= depth <= hi + 1 and self.rng.random() < self.geo.lantern:
                m.stealth = False
                self.journal.say(f"{m.name} loses Stealth to a lantern")
                return

    def pass_shrines(self, m: Model, start: int, new: int) -> None:
        """A move from ``start`` to ``new`` through a shrine's band (within one space of its position)
        passes within one space of it with chance ``Geometry.shrine``: a detrimental shrine tests the
        model (failure: one token); ending the move there keeps it at a positive shrine (its action may
        take the shrine's token)."""
        lo, hi = sorted((self.frame(m, start), self.frame(m, new)))
        end = self.frame(m, new)
        for i, shrine in enumerate(self.shrines):
            if not (lo - 1 <= shrine.position <= hi + 1) or self.rng.random() >= self.geo.shrine:
                continue
            if shrine.detrimental:
                if m.moon == 0 and not self.journal.test(m, f"{shrine.effect} shrine"):
                    setattr(m, STATUS_TOKENS[shrine.effect], getattr(m, STATUS_TOKENS[shrine.effect]) + 1)
                    self.journal.say(f"{m.name} passes a {shrine.effect} shrine and gets its token")
            elif abs(end - shrine.position) <= 1:
                m.at_shrine = i

    def binding_bride(self, m: Model, new: int) -> Model | None:
        """Binding Bride: the first enemy with it whose influence zone ``m`` enters moving forward to
        ``new`` (it must stop there, in contact)."""
        if m.ignores_zones:
            return None
        caught = None
        for j in self.brides:
            if j.team == m.team or j.where != BOARD:
                continue
            front = BOARD_DEPTH - j.progress - 1
            if m.progress < front <= new and (caught is None or front < BOARD_DEPTH - caught.progress - 1):
                caught = j
        return caught

    def push_back(self, target: Model) -> None:
        """Air: the defender is pushed three spaces back, out of every contact."""
        self.disengage(target)
        target.progress = max(0, target.progress - 3)

    def place_in_front(self, attacker: Model, target: Model, *, pulled_back: bool) -> None:
        """Water: both leave their contacts and the defender is placed in contact in front of the
        attacker (which is pulled back two spaces first when the defender chose Water)."""
        self.disengage(attacker)
        self.disengage(target)
        if pulled_back:
            attacker.progress = max(0, attacker.progress - 2)
        target.progress = max(0, BOARD_DEPTH - attacker.progress - 1)
        attacker.engaged.add(target.uid)
        target.engaged.add(attacker.uid)
