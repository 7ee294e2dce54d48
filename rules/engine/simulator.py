"""Match simulator: plays a challenge round by round with real rosters and
returns the same :class:`~rules.engine.records.MatchRecord` a player enters.

Pure and deterministic: every random draw comes from the ``rng`` passed in,
so ``random.Random(seed)`` replays a match exactly.  What is modelled, what
is abstracted and how, is written down in docs/simulation.md; in short:

* **Board.** Each pair of teams faces each other across a board
  :data:`BOARD_DEPTH` spaces deep.  A model's position is how far it has
  advanced from its own deployment edge (``progress``); two models of
  different teams are ``|p1 - (BOARD_DEPTH - p2)|`` spaces apart.  Terrain,
  lanterns, shrines and line of sight are not modelled (everything in range
  is visible unless it is in Stealth).
* **Engagement.** Adjacency ("in each other's influence zone") is a graph
  between enemy models: an attacker that moves up to a defender becomes
  adjacent to it and, by chance, to other enemies standing close
  (:class:`Geometry`).  Assists are the rulebook's: friendly, not Stunned,
  not in Stealth, adjacent to the opponent and to no other enemy.  A back
  strike is drawn when a model walks up to a defender already busy with
  another enemy, and kept while they stay in contact.
* **Activations** alternate team by team from the initiative winner (opposed
  affinity test each round); each model moves then acts once; a Stunned
  model moves *or* acts.  Leaving contact needs a dodge (affinity test).
* **Policy.** The active team activates its engaged models first; each
  model picks the target with the best expected value from the exact combat
  odds (:mod:`.odds`), weighing the challenge's points.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from .affinity import affinity_test, opposed_affinity_test
from .challenges import BRAWL_WINNING_SCORE, starts_in_stealth
from .combat import DEFAULT_POLICY, CombatEffect, Side
from .dice import ELEMENTS, Element, roll_dice
from .keywords import (
    AB,
    KW,
    CombatantSnapshot,
    FightContext,
    FightOutcome,
    FightPolicy,
    Harm,
    attack_dice,
    defense_dice,
    fight,
    suffer,
)
from .league import UnderdogBonus
from .odds import combat_odds
from .records import MatchRecord, NinjaRecord, TeamRecord

__all__ = [
    "BOARD_DEPTH",
    "Geometry",
    "SimNinja",
    "SimTeam",
    "SimChallenge",
    "CHALLENGES",
    "DiceRecord",
    "SimResult",
    "simulate_match",
]

#: Spaces between two opposing deployment edges (abstract board depth).
BOARD_DEPTH = 18
#: Largest pool the target-choosing odds look-up distinguishes.
_ODDS_CAP = 12


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
    Stuns it).  ``sentry``: a model at a guarded objective is attacked by a
    sentry first.  ``lantern``: a model in Stealth that moves loses it to a
    lantern's light.
    """

    crowd: float = 0.3
    near: float = 0.2
    back_on_approach: float = 0.5
    back_on_turn: float = 0.3
    friend_in_zone: float = 0.5
    sentry: float = 0.5
    lantern: float = 0.15


DEFAULT_GEOMETRY = Geometry()

# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SimNinja:
    """One roster entry as it stands before the match.

    ``kind`` is the profile kind (chunin, kaiken, yajiri, madoushi,
    kunoichi, oni, hero) or ``"ronin"``; ``abilities`` the special abilities
    it has (the chosen one for chunin and madoushi, all of a hero's or
    ronin's); ``ranged``/``ranged_attack_bonus``/``ranged_text`` from the
    profile.  ``available=False``: misses the game (downtime);
    ``starts_in_healing_house``: downtime "Air" result.
    """

    ninja_id: int
    name: str
    kind: str
    movement: int
    attack: int
    defense: int
    affinities: tuple[Element, ...]
    keywords: frozenset[str] = frozenset()
    abilities: frozenset[str] = frozenset()
    ranged: int | None = None
    ranged_attack_bonus: int = 0
    ranged_text: str = ""
    available: bool = True
    starts_in_healing_house: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "affinities", tuple(Element(a) for a in self.affinities))
        object.__setattr__(self, "keywords", frozenset(self.keywords))
        object.__setattr__(self, "abilities", frozenset(self.abilities))

    @property
    def is_chunin(self) -> bool:
        return self.kind == "chunin"

    @property
    def is_hero(self) -> bool:
        """Heroes and Ronin (no XP; the app decides, this only informs)."""
        return self.kind in ("hero", "ronin") or KW.HERO in self.keywords or KW.RONIN in self.keywords

    def has(self, name: str) -> bool:
        return name in self.keywords or name in self.abilities

    @classmethod
    def from_profile(
        cls,
        entry: Mapping,
        *,
        ninja_id: int,
        name: str | None = None,
        abilities: Iterable[str] | None = None,
        extra_keywords: Iterable[str] = (),
        extra_affinities: Iterable[Element | str] = (),
        attack: int = 0,
        defense: int = 0,
        movement: int = 0,
        available: bool = True,
        starts_in_healing_house: bool = False,
    ) -> SimNinja:
        """Build from a catalog profile or ronin entry (rules/data/catalog.json
        shape) plus advancements: ``attack``/``defense``/``movement`` are
        increases, ``extra_keywords``/``extra_affinities`` gained ones.
        ``abilities``: the chosen special abilities; by default the first
        ``choose_abilities`` of them, or all when nothing is to be chosen."""
        listed = [a["name"] for a in entry.get("abilities", ())]
        if abilities is None:
            choose = entry.get("choose_abilities") or 0
            abilities = listed[:choose] if choose else listed
        kind = entry.get("kind") or ("ronin" if "upkeep" in entry else "hero")
        return cls(
            ninja_id=ninja_id,
            name=name or entry["name"],
            kind=kind,
            movement=entry["movement"] + movement,
            attack=entry["attack"] + attack,
            defense=entry["defense"] + defense,
            affinities=tuple(entry["affinities"])
            + tuple(a for a in extra_affinities if Element(a).value not in entry["affinities"]),
            keywords=frozenset(entry["keywords"]) | frozenset(extra_keywords),
            abilities=frozenset(abilities),
            ranged=entry.get("ranged"),
            ranged_attack_bonus=entry.get("ranged_attack_bonus") or 0,
            ranged_text=entry.get("ranged_text", ""),
            available=available,
            starts_in_healing_house=starts_in_healing_house,
        )


@dataclass(frozen=True)
class SimTeam:
    team_id: int
    roster: tuple[SimNinja, ...]
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "roster", tuple(self.roster))


@dataclass(frozen=True)
class SimChallenge:
    """A challenge as the simulator needs it (from the catalog entry)."""

    slug: str
    name: str
    ninjas_allowed: int
    rounds: int
    xp_award_keys: tuple[str, ...] = ()

    @classmethod
    def from_catalog(cls, entry: Mapping) -> SimChallenge:
        return cls(
            slug=entry["slug"],
            name=entry["name"],
            ninjas_allowed=int(entry["ninjas_allowed"]),
            rounds=int(entry["rounds"]),
            xp_award_keys=tuple(a["key"] for a in entry.get("xp_awards", ())),
        )


#: The eight challenges (same figures as rules/data/catalog.json; a test
#: checks they agree).
CHALLENGES: dict[str, SimChallenge] = {
    c.slug: c
    for c in (
        SimChallenge("assassination", "Assassination", 6, 7, ("injure_vip",)),
        SimChallenge(
            "intercept-the-messenger",
            "Intercept the Messenger",
            7,
            9,
            ("injure_messenger", "messenger_escapes"),
        ),
        SimChallenge("champion", "Champion", 7, 8, ("chosen_champion",)),
        SimChallenge("king-of-the-hill", "King of the Hill", 6, 8, ("team_scores_in_area",)),
        SimChallenge("infiltration", "Infiltration", 6, 8, ("pick_up_medal", "medal_to_deployment")),
        SimChallenge("brawl", "Brawl", 7, 6, ("injure_enemy",)),
        SimChallenge("search", "Search", 7, 9, ("check_crate", "find_objective")),
        SimChallenge(
            "capture-the-medal",
            "Capture the Medal",
            7,
            9,
            ("pick_up_medal", "return_own_medal", "capture_enemy_medal"),
        ),
    )
}

_SENTRIES = {"infiltration", "search"}

# ---------------------------------------------------------------------------
# outputs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DiceRecord:
    """Every die rolled in the match: round, what for, who, the faces."""

    round: int
    kind: str
    model: str
    faces: tuple[str, ...]


@dataclass(frozen=True)
class InjuryEvent:
    """One model Injured: who (ninja ids; ``by_id`` None for Poison, a
    failed dodge, its own Fire or a sentry), and the points it scored."""

    round: int
    victim_id: int
    by_id: int | None
    points: int


@dataclass(frozen=True)
class SimResult:
    """``record``: the match record for the post-game sequence; ``log``: one
    line per event; ``dice``: every die rolled, in order; ``injuries``: every
    Injury; ``winner_team_ids``: the teams with the most points."""

    record: MatchRecord
    log: tuple[str, ...]
    dice: tuple[DiceRecord, ...]
    rounds_played: int = 0
    ended_early: bool = False
    injuries: tuple[InjuryEvent, ...] = ()

    @property
    def winner_team_ids(self) -> tuple[int, ...]:
        top = max(t.points for t in self.record.teams)
        return tuple(t.team_id for t in self.record.teams if t.points == top)


# ---------------------------------------------------------------------------
# state
# ---------------------------------------------------------------------------

BOARD, TRAINING, HEALING, OUT = "board", "training", "healing", "out"


@dataclass(eq=False)
class _Model:
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
    carrying: int | None = None  # medal id
    run_target: int | None = None  # team whose medal a runner goes for

    @property
    def name(self) -> str:
        return self.ninja.name

    @property
    def on_board(self) -> bool:
        return self.where == BOARD

    def has(self, name: str) -> bool:
        return self.ninja.has(name)

    def reset_statuses(self) -> None:
        self.stun = self.slow = self.poison = self.curse = self.lucky = self.protect = 0
        self.haste = self.moon = 0
        self.stealth = False


@cache
def _odds_float(attack: int, defense: int) -> tuple[float, ...]:
    """P(Spirit, Void, Earth, Air, Water, Fire, no result) as floats."""
    odds = combat_odds(min(attack, _ODDS_CAP), min(defense, _ODDS_CAP), policy=DEFAULT_POLICY)
    return (*tuple(float(odds[e]) for e in ELEMENTS), float(odds[None]))


class _Match:
    def __init__(
        self,
        teams: Sequence[SimTeam],
        challenge: SimChallenge,
        rng: random.Random,
        underdog: Sequence[UnderdogBonus] | None,
        policy: FightPolicy,
        geometry: Geometry,
    ) -> None:
        if len(teams) < 2:
            raise ValueError("a match needs at least two teams")
        self.teams = list(teams)
        self.challenge = challenge
        self.rng = rng
        self.policy = policy
        self.geo = geometry
        self.n = len(teams)
        self.log: list[str] = []
        self.dice: list[DiceRecord] = []
        self.injury_events: list[InjuryEvent] = []
        self.round = 0
        self.points = [0] * self.n
        self.models: list[_Model] = []
        for t, team in enumerate(teams):
            for ninja in team.roster:
                m = _Model(uid=len(self.models), team=t, ninja=ninja)
                if not ninja.available:
                    m.where = OUT
                elif ninja.starts_in_healing_house:
                    m.where = HEALING
                self.models.append(m)
        bonuses = list(underdog or [])
        if bonuses and len(bonuses) != self.n:
            raise ValueError("one UnderdogBonus per team, in team order")
        self.reroll_tokens = [b.reroll_tokens for b in bonuses] or [0] * self.n
        self.moon_tokens = [b.moon_power_tokens for b in bonuses] or [0] * self.n
        self.extra_all_stars = [b.extra_all_star_awards for b in bonuses] or [0] * self.n
        self.sensei_ready = [True] * self.n
        self.initiative = 0
        self.winner_now: int | None = None
        self.moon_phase = ELEMENTS[rng.randrange(6)]
        # challenge state
        self.vip: list[int | None] = [None] * self.n
        self.champion: list[int | None] = [None] * self.n
        self.messenger: list[int | None] = [None] * self.n
        self.attacker_team = 0  # Intercept the Messenger
        self.medals_home: dict[int, bool] = {}
        self.crates: list[dict] = []
        self.sentries_down: list[int] = []  # rounds left in the Healing House per injured sentry

    # -- helpers -----------------------------------------------------------

    def tname(self, t: int) -> str:
        return self.teams[t].name or f"team {self.teams[t].team_id}"

    def say(self, text: str) -> None:
        self.log.append(f"R{self.round}: {text}")

    def record_dice(self, kind: str, model: str, faces) -> None:
        self.dice.append(DiceRecord(self.round, kind, model, tuple(str(Element(f).value) for f in faces)))

    def test(self, m: _Model, kind: str, *, required: int = 1, nimble: bool = False) -> bool:
        """An affinity test for ``m`` (Nimble: reroll the dice that failed)."""
        t = affinity_test(m.ninja.affinities, rng=self.rng, required=required)
        self.record_dice(kind, m.name, t.faces)
        ok = t.success
        if not ok and nimble:
            keep = t.matches
            again = roll_dice(3 - keep, rng=self.rng)
            self.record_dice(kind + " (Nimble reroll)", m.name, again)
            ok = keep + sum(1 for f in again if f is t.element) >= required
        return ok

    def team_models(self, t: int) -> list[_Model]:
        return [m for m in self.models if m.team == t]

    def on_board(self, t: int | None = None) -> list[_Model]:
        return [m for m in self.models if m.on_board and (t is None or m.team == t)]

    def enemies(self, m: _Model) -> list[_Model]:
        return [o for o in self.models if o.on_board and o.team != m.team]

    def distance(self, a: _Model, b: _Model) -> int:
        if b.uid in a.engaged:
            return 1
        return max(1, abs(a.progress - (BOARD_DEPTH - b.progress)))

    def visible(self, viewer: _Model, target: _Model) -> bool:
        return not target.stealth or viewer.has(AB.UNCANNY_AWARENESS)

    def snapshot(self, m: _Model) -> CombatantSnapshot:
        return CombatantSnapshot(
            name=m.name,
            attack=m.ninja.attack,
            defense=m.ninja.defense,
            affinities=m.ninja.affinities,
            keywords=m.ninja.keywords,
            abilities=m.ninja.abilities,
            is_chunin=m.ninja.is_chunin,
            stun_tokens=m.stun,
            in_stealth=m.stealth,
            moon_powered=m.moon > 0,
            lucky_tokens=m.lucky,
            curse_tokens=m.curse,
            protect_tokens=m.protect,
            mastery_ready=m.mastery_ready,
            tidal_wave_ready=m.tidal_ready,
            indomitable_ready=m.indomitable_ready,
            has_activated=m.activated,
            no_defense_dice=m.no_defense,
            metal_to_dust=m.metal_to_dust,
            attack_bonus=m.attack_mod,
            defense_bonus=m.defense_mod,
        )

    def disengage(self, m: _Model) -> None:
        for uid in m.engaged:
            other = self.models[uid]
            other.engaged.discard(m.uid)
            other.behind.discard(m.uid)
        m.engaged.clear()
        m.behind.clear()

    # -- setup ---------------------------------------------------------------

    def strength(self, m: _Model) -> float:
        n = m.ninja
        return n.attack + n.defense + 0.3 * len(n.keywords) + (1 if n.is_chunin else 0)

    def deploy(self, t: int, *, start: bool) -> None:
        allowed = self.challenge.ninjas_allowed
        while len(self.on_board(t)) < allowed:
            pool = [m for m in self.team_models(t) if m.where == TRAINING]
            if not pool:
                return
            m = max(pool, key=lambda x: (self.strength(x), -x.uid))
            m.where = BOARD
            m.progress = 0
            m.played = True
            m.engaged.clear()
            m.behind.clear()
            if start and starts_in_stealth(self.challenge.slug, keywords=m.ninja.keywords):
                m.stealth = True
            self.say(f"{m.name} ({self.tname(t)}) deploys")
            self.on_deployed(m)

    def setup(self) -> None:
        for t in range(self.n):
            self.deploy(t, start=True)
        slug = self.challenge.slug
        first = self.roll_initiative("setup initiative")
        self.initiative = first
        if slug == "assassination":
            for t in range(self.n):
                self.choose_vip(t)
        elif slug == "champion":
            for t in range(self.n):
                self.choose_champion(t)
        elif slug == "intercept-the-messenger":
            self.attacker_team = first
            for t in range(self.n):
                if t != first:
                    self.choose_messenger(t)
        elif slug == "infiltration":
            self.medals_home = {0: True, 1: True}
        elif slug == "capture-the-medal":
            self.medals_home = dict.fromkeys(range(self.n), True)
        elif slug == "search":
            faces = list(ELEMENTS)
            self.rng.shuffle(faces)
            self.crates = [{"element": f, "face_up": False, "gone": False} for f in faces]

    def on_deployed(self, m: _Model) -> None:
        t = m.team
        if self.challenge.slug == "assassination" and self.vip[t] is None:
            self.choose_vip(t)
        elif self.challenge.slug == "champion" and self.champion[t] is None:
            self.choose_champion(t)
        elif self.challenge.slug == "intercept-the-messenger" and t != self.attacker_team and self.messenger[t] is None:
            self.choose_messenger(t)

    def choose_vip(self, t: int) -> None:
        """The player to the left picks the VIP: the easiest model to Injure."""
        cands = self.on_board(t)
        if not cands:
            self.vip[t] = None
            return
        vip = min(cands, key=lambda m: (m.ninja.defense + (1 if m.has(KW.RESILIENT) else 0), m.uid))
        self.vip[t] = vip.uid
        self.say(f"{vip.name} is the VIP of {self.tname(t)}")

    def choose_champion(self, t: int) -> None:
        cands = [m for m in self.on_board(t) if not m.ninja.is_chunin]
        if not cands:
            self.champion[t] = None
            return
        champ = max(cands, key=lambda m: (m.ninja.attack, m.ninja.defense, -m.uid))
        self.champion[t] = champ.uid
        champ.feats["chosen_champion"] += 1
        self.say(f"{champ.name} is the Champion of {self.tname(t)}")

    def choose_messenger(self, t: int) -> None:
        cands = [m for m in self.on_board(t) if m.progress == 0 and m.carrying is None]
        if not cands:
            self.messenger[t] = None
            return
        mess = max(cands, key=lambda m: (m.ninja.movement, m.has(KW.NIMBLE), -m.uid))
        self.messenger[t] = mess.uid
        self.say(f"{mess.name} is the messenger of {self.tname(t)}")

    def roll_initiative(self, kind: str) -> int:
        """Opposed affinity test between the teams (multi-way: most icons
        wins, ties among the leaders roll again)."""
        contenders = [t for t in range(self.n) if self.on_board(t)] or list(range(self.n))
        if len(contenders) == 1:
            return contenders[0]
        reps = {
            t: max(self.on_board(t) or self.team_models(t), key=lambda m: (len(m.ninja.affinities), -m.uid))
            for t in contenders
        }
        if len(contenders) == 2:
            a, b = contenders
            res = opposed_affinity_test(reps[a].ninja.affinities, reps[b].ninja.affinities, rng=self.rng)
            for rnd in res.rounds:
                self.record_dice(kind, reps[a].name, rnd.first.faces)
                self.record_dice(kind, reps[b].name, rnd.second.faces)
            return a if res.winner == "first" else b
        while True:
            scores = {}
            for t in contenders:
                test = affinity_test(reps[t].ninja.affinities, rng=self.rng)
                self.record_dice(kind, reps[t].name, test.faces)
                scores[t] = test.matches
            top = max(scores.values())
            contenders = [t for t in contenders if scores[t] == top]
            if len(contenders) == 1:
                return contenders[0]

    # -- harm ----------------------------------------------------------------

    def harm(
        self,
        victim: _Model,
        harm: Harm,
        *,
        by: _Model | None,
        counts: bool = True,
    ) -> None:
        """Apply a final (post-protection) Stun or Injury to ``victim``.
        ``by`` is the enemy credited (None: self or poison); ``counts=False``
        for Poison (no XP, no points)."""
        if harm is Harm.NONE or not victim.on_board:
            return
        credited = by if (by is not None and by.team != victim.team and counts) else None
        if harm is Harm.STUNNED:
            victim.stun += 1
            self.say(f"{victim.name} is Stunned ({victim.stun})")
            if credited is not None:
                if victim.ninja.is_chunin and not credited.ninja.is_chunin:
                    credited.chunin_stuns += 1
                self.score_stun(victim, credited)
            if victim.has("Ink Attack") and victim.engaged:
                self.ink_attack(victim)
            if victim.stun >= 3:
                self.injure(victim, by=credited)
        else:
            self.injure(victim, by=credited)

    def injure(self, victim: _Model, *, by: _Model | None) -> None:
        if not victim.on_board:
            return
        # Healing Herbs: an adjacent friendly madoushi Stuns itself instead
        for herb in self.on_board(victim.team):
            if herb is not victim and herb.has("Healing Herbs") and herb.stun == 0 and (herb.engaged & victim.engaged):
                self.say(f"{herb.name} uses Healing Herbs: {victim.name} ignores the Injury")
                herb.stun += 1
                return
        self.say(f"{victim.name} is Injured" + (f" by {by.name}" if by else ""))
        if victim.has("Ink Attack") and victim.engaged:
            self.ink_attack(victim)
        self.drop_carried(victim, by)
        self.disengage(victim)
        victim.where = HEALING
        victim.reset_statuses()
        points = 0
        if by is not None:
            by.injuries += 1
            points = self.score_injury(victim, by)
        self.injury_events.append(
            InjuryEvent(self.round, victim.ninja.ninja_id, by.ninja.ninja_id if by else None, points)
        )
        if by is not None:
            if by.has("Soul Capture"):
                by.haste += 1
            if by.has("Net"):
                targets = [e for e in self.enemies(by) if self.distance(by, e) <= 3 and e.moon == 0]
                if targets:
                    t = max(targets, key=lambda e: (e.stun, e.ninja.attack, -e.uid))
                    self.say(f"{by.name}'s Net")
                    s = suffer(self.snapshot(t), Harm.STUNNED, by_enemy=True, rng=self.rng)
                    self.record_protection(s)
                    self.harm(t, s.harm, by=by)
        self.after_removal(victim)

    def ink_attack(self, oni: _Model) -> None:
        targets = [self.models[u] for u in oni.engaged if self.models[u].on_board]
        if not targets:
            return
        t = max(targets, key=lambda e: (e.stun, e.ninja.attack, -e.uid))
        self.say(f"{oni.name}'s Ink Attack")
        s = suffer(self.snapshot(t), Harm.STUNNED, by_enemy=True, rng=self.rng)
        self.record_protection(s)
        if s.harm is Harm.STUNNED:
            t.stun += 1
            if t.ninja.is_chunin and not oni.ninja.is_chunin:
                oni.chunin_stuns += 1
            if t.stun >= 3:
                self.injure(t, by=oni)

    def record_protection(self, s) -> None:
        for roll in s.rolls:
            self.record_dice("resilient", roll.model, roll.faces)

    def after_removal(self, victim: _Model) -> None:
        t = victim.team
        slug = self.challenge.slug
        if slug == "assassination" and self.vip[t] == victim.uid:
            self.choose_vip(t)
        elif slug == "champion" and self.champion[t] == victim.uid:
            self.choose_champion(t)
        elif slug == "intercept-the-messenger" and self.messenger[t] == victim.uid:
            self.choose_messenger(t)

    def drop_carried(self, carrier: _Model, by: _Model | None) -> None:
        if carrier.carrying is None:
            return
        medal = carrier.carrying
        carrier.carrying = None
        self.medals_home[medal] = True
        if self.challenge.slug == "capture-the-medal" and by is not None and by.team == medal:
            by.feats["return_own_medal"] += 1
            self.say(f"{by.name} returns its team's medal")
        else:
            self.say("the medal goes back to its goal space")

    # -- scoring -----------------------------------------------------------

    def add_points(self, t: int, pts: int, why: str) -> None:
        if pts <= 0:
            return
        self.points[t] += pts
        self.say(f"{self.tname(t)} scores {pts} ({why}); points {self.points}")
        if self.challenge.slug == "brawl" and self.points[t] >= BRAWL_WINNING_SCORE and self.winner_now is None:
            self.winner_now = t

    def score_injury(self, victim: _Model, by: _Model) -> int:
        """Points (and challenge feats) for ``by`` Injuring ``victim``."""
        slug = self.challenge.slug
        pts = 0
        if slug == "brawl":
            pts = 2 if (victim.ninja.is_chunin and not by.ninja.is_chunin) else 1
            self.add_points(by.team, pts, f"{by.name} Injures {victim.name}")
            if not (by.ninja.is_chunin and not victim.ninja.is_chunin):
                by.feats["injure_enemy"] += 1
        elif slug == "assassination" and self.vip[victim.team] == victim.uid:
            pts = 3
            self.add_points(by.team, pts, "VIP Injured")
            by.feats["injure_vip"] += 1
        elif slug == "champion" and self.champion[by.team] == by.uid:
            pts = 3
            self.add_points(by.team, pts, "Champion Injures")
        elif (
            slug == "intercept-the-messenger"
            and by.team == self.attacker_team
            and self.messenger[victim.team] == victim.uid
        ):
            pts = 1
            self.add_points(by.team, pts, "messenger Injured")
            by.feats["injure_messenger"] += 1
        return pts

    def score_stun(self, victim: _Model, by: _Model) -> None:
        slug = self.challenge.slug
        if slug == "assassination" and self.vip[victim.team] == victim.uid:
            self.add_points(by.team, 1, "VIP Stunned")
        elif slug == "champion" and self.champion[by.team] == by.uid:
            self.add_points(by.team, 1, "Champion Stuns")

    # -- values --------------------------------------------------------------

    def injury_value(self, attacker: _Model, target: _Model) -> float:
        """What Injuring ``target`` is worth to ``attacker``'s team (points
        plus removing an enemy)."""
        slug = self.challenge.slug
        base = 1.0
        if slug == "brawl":
            base += 2.0 if (target.ninja.is_chunin and not attacker.ninja.is_chunin) else 1.0
        elif slug == "assassination" and self.vip[target.team] == target.uid:
            base += 3.0
        elif slug == "champion":
            if self.champion[attacker.team] == attacker.uid:
                base += 3.0
            if self.champion[target.team] == target.uid:
                base += 1.5
        elif slug == "intercept-the-messenger" and self.messenger[target.team] == target.uid:
            base += 3.0
        if target.carrying is not None:
            base += 2.0
        return base

    def expected_value(self, attacker: _Model, target: _Model, ctx: FightContext) -> float:
        a_snap, d_snap = self.snapshot(attacker), self.snapshot(target)
        n_att, _ = attack_dice(a_snap, d_snap, ctx)
        n_def, _, _ = defense_dice(a_snap, d_snap, ctx, n_att)
        p = _odds_float(n_att, n_def)
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

    # -- contexts ------------------------------------------------------------

    def assistants(self, helper_team: int, opponent: _Model, exclude: _Model) -> list[_Model]:
        out = []
        for f in self.on_board(helper_team):
            if f is exclude or f.stun or f.stealth:
                continue
            if opponent.uid in f.engaged and f.engaged <= {opponent.uid}:
                out.append(f)
        return out

    def context(
        self,
        attacker: _Model,
        target: _Model,
        *,
        moved: bool,
        spaces: int,
        back: bool,
        ranged: bool = False,
        extra: dict | None = None,
    ) -> FightContext:
        kw: dict = dict(attacker_moved=moved, spaces_moved=spaces)
        t_a, t_d = attacker.team, target.team
        if ranged:
            kw.update(ranged=True, ranged_bonus=attacker.ninja.ranged_attack_bonus)
            text = attacker.ninja.ranged_text
            effects = {Element.EARTH, Element.VOID}
            if "Air may be chosen" in text:
                effects.add(Element.AIR)
            kw["ranged_effects"] = frozenset(effects)
            if "target is Poisoned" in text or attacker.has("Deadly Poison"):
                kw["spirit_poisons"] = True
            if not attacker.ninja.ranged and attacker.has("Mountain Flute"):
                kw.update(ranged_bonus=0, earth_void_stun=True)
        else:
            a_help = self.assistants(t_a, target, attacker)
            d_help = [] if target.no_defense else self.assistants(t_d, attacker, target)
            kw.update(
                assists_attacker=len(a_help),
                assists_defender=len(d_help),
                combined_attack_assists=sum(1 for f in a_help if f.has(KW.COMBINED_ATTACK)),
                guard_assists=sum(1 for f in d_help if f.has(KW.GUARD)),
                back_strike=back,
            )
        bonus, notes = 0, []
        for chunin in self.on_board(t_a):
            if chunin is not attacker and chunin.has("Tyrant") and abs(chunin.progress - attacker.progress) <= 4:
                bonus += 1
                notes.append("Tyrant +1")
                break
        d_bonus = 0
        for k in self.on_board(t_d):
            if k is not target and k.has("Resolute Melody") and not ranged and (k.engaged & target.engaged):
                d_bonus += 1
                notes.append("Resolute Melody +1")
                break
        if attacker.has(AB.SUPREME_MASTER) and self.is_rival(attacker, target):
            kw["rival"] = True
        kw.update(attack_bonus=bonus, defense_bonus=d_bonus, bonus_notes=tuple(notes))
        kw.update(
            attacker_reroll_tokens=self.reroll_tokens[t_a],
            defender_reroll_tokens=self.reroll_tokens[t_d],
            attacker_sensei=self.sensei_ready[t_a] and any(f.has(KW.SENSEI) for f in self.on_board(t_a)),
            defender_sensei=self.sensei_ready[t_d] and any(f.has(KW.SENSEI) for f in self.on_board(t_d)),
        )
        if extra:
            kw.update(extra)
        return FightContext(**kw)

    def is_rival(self, yobuko: _Model, target: _Model) -> bool:
        return max(target.ninja.attack, target.ninja.defense) >= yobuko.ninja.attack

    # -- the attack ----------------------------------------------------------

    def attack(self, attacker: _Model, target: _Model, ctx: FightContext) -> FightOutcome:
        out = fight(self.snapshot(attacker), self.snapshot(target), context=ctx, rng=self.rng, policy=self.policy)
        c = out.combat
        self.record_dice("attack", attacker.name, c.attack_initial)
        self.record_dice("defense", target.name, c.defense_initial)
        for ev in c.attack_rerolls:
            self.record_dice("attack reroll", attacker.name, (ev.after,))
        for ev in c.defense_rerolls:
            self.record_dice("defense reroll", target.name, (ev.after,))
        for s in (out.attacker, out.defender):
            self.record_protection(s)
        mods = f" [{', '.join(out.modifiers)}]" if out.modifiers else ""
        res = c.result.value if c.result else "no result"
        who = f" ({c.chooser.value} chose)" if c.chooser else ""
        kind = "shoots" if ctx.ranged else "attacks"
        self.say(f"{attacker.name} {kind} {target.name}: {out.attack_dice} v {out.defense_dice} dice{mods}; {res}{who}")
        # resources spent
        for side, name in out.spent:
            m = attacker if side is Side.ATTACKER else target
            team = m.team
            if name == "reroll token":
                self.reroll_tokens[team] -= 1
                self.say(f"{self.tname(team)} spends a reroll token")
            elif name == "Lucky":
                m.lucky -= 1
            elif name == "Curse":
                enemy = target if side is Side.ATTACKER else attacker
                enemy.curse -= 1
            elif name == "Mastery":
                m.mastery_ready = False
            elif name == "Sensei":
                self.sensei_ready[team] = False
            elif name == "Tidal Wave":
                m.tidal_ready = False
            elif name == "Protect":
                m.protect -= 1
            elif name == "Indomitable":
                m.indomitable_ready = False
        if not (ctx.ranged and self.stealthy_shot(attacker)):
            attacker.stealth = False
        # Fire: the other models in the attacker's influence zone
        zone: list[tuple[_Model, bool]] = []
        if out.zone_stun_enemies:
            zone += [(self.models[u], True) for u in attacker.engaged if u != target.uid]
        if out.zone_stun_friends:
            for f in self.assistants(attacker.team, target, attacker):
                if self.rng.random() < self.geo.friend_in_zone:
                    zone.append((f, False))
        # the defender's side is harmed by the attacker, the attacker's side by the defender
        d_by = attacker
        a_by = target if (c.chooser is Side.DEFENDER or out.attacker.incoming is Harm.INJURED) else None
        self.apply_effect(out, attacker, target, a_by, d_by)
        for m, enemy_of_attacker in zone:
            if not m.on_board:
                continue
            by = attacker if enemy_of_attacker else (target if c.chooser is Side.DEFENDER else None)
            s = suffer(self.snapshot(m), Harm.STUNNED, by_enemy=by is not None, rng=self.rng)
            self.record_protection(s)
            self.harm(m, s.harm, by=by)
        if out.defender_poisoned and target.on_board and not target.moon:
            target.poison += 1
            self.say(f"{target.name} is Poisoned")
        if out.defender_cursed and target.on_board:
            target.curse += 1
            self.say(f"{target.name} is Cursed")
        return out

    def apply_effect(
        self, out: FightOutcome, attacker: _Model, target: _Model, a_by: _Model | None, d_by: _Model
    ) -> None:
        c = out.combat
        self.harm(attacker, out.attacker.harm, by=a_by)
        self.harm(target, out.defender.harm, by=d_by)
        if out.effect is CombatEffect.DEFENDER_MOVED and target.on_board and attacker.on_board:
            self.disengage(target)
            target.progress = max(0, target.progress - 3)
            self.say(f"{target.name} is pushed away")
        elif out.effect is CombatEffect.ATTACKER_MOVED and target.on_board and attacker.on_board:
            self.disengage(attacker)
            self.disengage(target)
            if c.chooser is Side.DEFENDER:
                attacker.progress = max(0, attacker.progress - 2)
            target.progress = max(0, BOARD_DEPTH - attacker.progress - 1)
            attacker.engaged.add(target.uid)
            target.engaged.add(attacker.uid)
            self.say(f"{attacker.name} is moved; {target.name} placed in front of it")

    # -- movement ------------------------------------------------------------

    def movement(self, m: _Model) -> int:
        mv = m.ninja.movement
        if self.round == 1 and any(f.has("Wind Gust") for f in self.team_models(m.team) if f.where != OUT):
            mv += 2
        if m.slow:
            mv = (mv + 1) // 2
        return mv

    def free_mover(self, m: _Model) -> bool:
        """Ignores influence zones when moving (no dodge needed)."""
        return m.moon > 0 or m.has("Movement Rig") or m.has("Banzai")

    def dodge(self, m: _Model) -> bool:
        """Leave the influence zones of the enemies ``m`` is in contact with."""
        if not m.engaged or self.free_mover(m):
            return True
        if m.has(KW.BLINK) and self.test(m, "Blink"):
            return True
        if m.has("Back Flip"):
            return True
        required = 2 if any(self.models[u].has(KW.IKAS_TENTACLES) for u in m.engaged) else 1
        ok = self.test(m, "dodge", required=required, nimble=m.has(KW.NIMBLE))
        if ok:
            return True
        if m.stealth:
            m.stealth = False
            self.say(f"{m.name} fails to dodge and loses Stealth")
            return False
        m.stun += 1
        self.say(f"{m.name} fails to dodge and is Stunned ({m.stun})")
        if m.stun >= 3:
            self.injure(m, by=None)
        return False

    def move_stealthy(self, m: _Model) -> None:
        if m.stealth and self.rng.random() < self.geo.lantern:
            m.stealth = False
            self.say(f"{m.name} loses Stealth to a lantern")

    def place_adjacent(self, m: _Model, target: _Model, *, moved: bool) -> bool:
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

    def vigilance(self, m: _Model) -> None:
        if m.stealth and any(self.models[u].has("Vigilance") for u in m.engaged):
            m.stealth = False
            self.say(f"{m.name} loses Stealth (Vigilance)")

    def in_scoring_area(self, m: _Model) -> bool:
        return abs(m.progress - BOARD_DEPTH // 2) <= 2

    def advance(self, m: _Model, spaces: int, goal: int | None = None) -> None:
        """Move ``m`` up to ``spaces`` toward ``goal`` (a position) or, with
        no goal, toward the enemy: it stops two spaces short of the nearest
        visible enemy and next to the nearest hidden one (players know
        roughly where a model went into Stealth)."""
        if m.engaged and not self.dodge(m):
            return
        if not m.on_board:
            return
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
        m.progress = max(0, min(BOARD_DEPTH, new))
        self.move_stealthy(m)

    # -- activation -----------------------------------------------------------

    def start_activation(self, m: _Model) -> None:
        """Moon Power token, Stun tokens off, Tough/Fortune/Lucky/Blood Lust."""
        t = m.team
        if self.moon_tokens[t] > 0 and m.moon == 0 and self.wants_moon_power(m):
            self.moon_tokens[t] -= 1
            m.moon += 1
            m.stun = 0
            self.say(f"{self.tname(t)} gives {m.name} a Moon Power token")
        stunned = m.stun > 0
        if stunned:
            self.say(f"{m.name} removes {m.stun} Stun token(s)")
        m.stun = 0
        if m.has(KW.TOUGH) and self.test(m, "Tough"):
            m.protect += 1
        if m.has(KW.FORTUNE) and self.test(m, "Fortune"):
            m.lucky += 1
        if m.has("Lucky"):
            m.lucky += 1
        if m.has(KW.BLOOD_LUST) and self.test(m, "Blood Lust"):
            m.haste += 1
        if m.has("Blood Frenzy") and self.test(m, "Blood Frenzy"):
            friends = [f for f in self.on_board(t) if f is not m and not f.activated]
            if friends:
                max(friends, key=lambda f: (f.ninja.attack, -f.uid)).haste += 1

    def wants_moon_power(self, m: _Model) -> bool:
        """Underdog's Moon Power token: given to a model about to fight."""
        return bool(m.engaged) or any(self.distance(m, e) <= self.movement(m) + 1 for e in self.enemies(m))

    def end_activation(self, m: _Model) -> None:
        m.activated = True
        if m.slow:
            m.slow -= 1
        if m.moon:
            m.moon -= 1
        if m.on_board and m.poison:
            face = roll_dice(1, rng=self.rng)[0]
            self.record_dice("poison", m.name, (face,))
            m.poison -= 1
            if face is Element.WATER:
                s = suffer(self.snapshot(m), Harm.STUNNED, by_enemy=True, rng=self.rng)
                self.record_protection(s)
                self.harm(m, s.harm, by=None, counts=False)
            elif face is Element.SPIRIT:
                s = suffer(self.snapshot(m), Harm.INJURED, by_enemy=True, rng=self.rng)
                self.record_protection(s)
                self.harm(m, s.harm, by=None, counts=False)

    def targets(self, m: _Model, reach: int) -> list[_Model]:
        out = []
        for e in self.enemies(m):
            if not self.visible(m, e):
                continue
            if e.uid in m.engaged or self.distance(m, e) - 1 <= reach:
                out.append(e)
        return out

    def best_target(self, m: _Model, reach: int, *, stunned: bool) -> tuple[_Model | None, float, bool]:
        """(target, expected value, needs_move)."""
        best: tuple[_Model | None, float, bool] = (None, 0.0, False)
        rivals = []
        if m.has(AB.SUPREME_MASTER):
            rivals = [e for e in self.enemies(m) if self.is_rival(m, e)]
        p_dodge = 1.0 if self.free_mover(m) else (0.66 if m.has(KW.NIMBLE) else 0.42)
        for e in self.targets(m, reach):
            adjacent = e.uid in m.engaged
            needs_move = not adjacent
            if needs_move and stunned:
                continue
            back = (m.uid in e.behind) if adjacent else False
            ctx = self.context(m, e, moved=needs_move, spaces=3 if needs_move else 0, back=back)
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

    def activate(self, m: _Model) -> None:
        stunned = m.stun > 0
        self.start_activation(m)
        if not m.on_board:
            return
        self.say(f"{m.name} activates" + (" (Stunned: move or act)" if stunned else ""))
        actions = 2 if m.haste else 1
        if m.haste:
            m.haste -= 1
        if self.challenge_action(m, stunned):
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

    def run(self, m: _Model, mv: int) -> None:
        extra = 2 if m.has(KW.SPRINT) else 0
        if self.challenge.slug == "king-of-the-hill" and not self.in_scoring_area(m):
            self.advance(m, 2 * mv + extra, goal=BOARD_DEPTH // 2)
        else:
            self.advance(m, 2 * mv + extra)

    def range_of(self, m: _Model) -> int:
        if m.ninja.ranged:
            return m.ninja.ranged
        return 10 if m.has("Mountain Flute") else 0

    def stealthy_shot(self, m: _Model) -> bool:
        return "Stealthy" in m.ninja.ranged_text or (not m.ninja.ranged and m.has("Mountain Flute"))

    def ranged_option(self, m: _Model, mv: int) -> tuple[_Model | None, float, int]:
        """Best ranged target: (target, value, spaces to move first).  The
        model may first move closer (never into contact); Shuriken (one die,
        range 3) are never thrown by the policy."""
        rng_ = self.range_of(m)
        if not rng_ or m.engaged:
            return None, 0.0, 0
        best: tuple[_Model | None, float, int] = (None, 0.0, 0)
        for e in self.enemies(m):
            if not self.visible(m, e) or e.has(AB.FLASHING_SPEAR):
                continue
            need = max(0, self.distance(m, e) - rng_)
            if need > mv or self.distance(m, e) - need < 2:
                continue
            ctx = self.context(m, e, moved=need > 0, spaces=need, back=False, ranged=True)
            v = self.expected_value(m, e, ctx)
            if v > best[1]:
                best = (e, v, need)
        return best

    def combat_action(self, m: _Model, mv: int, stunned: bool) -> bool:
        """Attack (melee or ranged) if it is worth it; False when nothing was done."""
        pounce = m.has("Pounce") and not stunned
        reach = mv + (3 if pounce else 0)
        target, value, needs_move = self.best_target(m, reach, stunned=stunned)
        r_target, r_value, need = self.ranged_option(m, 0 if stunned else mv)
        if r_target is not None and r_value >= value:
            if need:
                self.advance(m, need)
            if not m.on_board or not r_target.on_board:
                return True
            ctx = self.context(m, r_target, moved=need > 0, spaces=need, back=False, ranged=True)
            self.attack(m, r_target, ctx)
            return True
        if target is None or value < -0.05:
            return False
        if needs_move and m.engaged and not self.dodge(m):
            return True  # the failed dodge ends the activation
        if not m.on_board:
            return True
        spaces = max(0, self.distance(m, target) - 1)
        if pounce and spaces > mv:
            m.slow += 1
        back = self.place_adjacent(m, target, moved=needs_move)
        if not target.on_board:
            return True
        # facing: the attacker turns to its target; the rest may end up behind it
        m.behind.discard(target.uid)
        for u in list(m.engaged):
            if u != target.uid and self.rng.random() < self.geo.back_on_turn:
                m.behind.add(u)
        moved = needs_move
        extra: dict = {}
        if m.has("Tiger Strike") and target.ninja.defense >= m.ninja.attack - 1 and not m.no_defense:
            m.no_defense = True
            m.attack_mod += 3
            extra["_tiger"] = True
            self.say(f"{m.name} uses Tiger Strike")
        if m.has("Yama Fist") and m.attack_mod == 0 and target.ninja.defense >= m.ninja.attack - 1:
            m.attack_mod += 2
            m.defense_mod -= 2
            self.say(f"{m.name} uses Yama Fist")
        ctx = self.context(m, target, moved=moved, spaces=max(spaces, 3 if moved else 0) if moved else 0, back=back)
        if m.has("Whirlwind") and len(m.engaged) >= 2:
            self.whirlwind(m, ctx)
        else:
            self.melee(m, target, ctx)
        if extra.get("_tiger"):
            m.attack_mod -= 3  # +3 Attack until the end of the turn
        return True

    def melee(self, m: _Model, target: _Model, ctx: FightContext) -> None:
        out = self.attack(m, target, ctx)
        self.after_attack(m, target, out)
        if self.winner_now is not None:
            return
        if m.has(KW.FRENZY) and m.on_board and target.on_board:
            out = self.attack(
                m, target, self.context(m, target, moved=ctx.attacker_moved, spaces=0, back=m.uid in target.behind)
            )
            self.after_attack(m, target, out)
        if m.has(KW.FRENZY) and m.on_board:
            m.defense_mod -= (m.ninja.defense + m.defense_mod) - (m.ninja.defense + m.defense_mod) // 2
        # Gale of Blows: more attacks at -2 each while worth it
        if m.has(KW.GALE_OF_BLOWS):
            penalty = 2
            while m.on_board and m.ninja.attack - penalty > 0 and m.stun == 0 and self.winner_now is None:
                cands = [self.models[u] for u in m.engaged if self.models[u].on_board]
                if not cands:
                    break
                m.attack_mod -= penalty
                best = max(
                    cands,
                    key=lambda e: self.expected_value(
                        m, e, self.context(m, e, moved=False, spaces=0, back=m.uid in e.behind)
                    ),
                )
                ctx2 = self.context(m, best, moved=False, spaces=0, back=m.uid in best.behind)
                if self.expected_value(m, best, ctx2) <= 0:
                    m.attack_mod += penalty
                    break
                self.say(f"{m.name}: Gale of Blows (-{penalty})")
                out = self.attack(m, best, ctx2)
                m.attack_mod += penalty
                self.after_attack(m, best, out)
                penalty += 2
        # Wind of Blades: Stun itself for a second attack
        if (
            m.has("Wind of Blades")
            and m.on_board
            and target.on_board
            and m.stun == 0
            and m.moon == 0
            and self.winner_now is None
        ):
            m.stun += 1
            self.say(f"{m.name} Stuns itself for Wind of Blades")
            out = self.attack(m, target, self.context(m, target, moved=False, spaces=0, back=m.uid in target.behind))
            self.after_attack(m, target, out)

    def whirlwind(self, m: _Model, ctx: FightContext) -> None:
        self.say(f"{m.name} uses Whirlwind")
        for u in sorted(m.engaged):
            e = self.models[u]
            if not (m.on_board and e.on_board) or m.stun or self.winner_now is not None:
                break
            c = self.context(m, e, moved=False, spaces=0, back=m.uid in e.behind, extra={"void_stuns": True})
            out = self.attack(m, e, c)
            self.after_attack(m, e, out)

    def after_attack(self, m: _Model, target: _Model, out: FightOutcome) -> None:
        if not m.on_board:
            return
        tyrant = any(
            f is not m and f.has("Tyrant") and abs(f.progress - m.progress) <= 4 for f in self.on_board(m.team)
        )
        if tyrant and out.defender.harm is not Harm.INJURED and m.moon == 0:
            self.say(f"{m.name} fails its Tyrant and is Stunned")
            self.harm(m, Harm.STUNNED, by=None)

    # -- challenge actions ---------------------------------------------------

    def challenge_action(self, m: _Model, stunned: bool) -> bool:
        slug = self.challenge.slug
        mv = self.movement(m)
        if slug == "intercept-the-messenger" and self.messenger[m.team] == m.uid:
            return self.messenger_move(m, mv, stunned)
        if m.carrying is not None:
            return self.carry_medal(m, mv, stunned)
        if slug == "capture-the-medal":
            return self.medal_run(m, mv, stunned)
        if slug == "infiltration":
            return self.infiltrate(m, mv, stunned)
        if slug == "search":
            return self.search_crate(m, mv, stunned)
        if slug == "king-of-the-hill" and not self.in_scoring_area(m) and not m.engaged:
            _target, value, _ = self.best_target(m, mv, stunned=stunned)
            if value < 0.6:
                self.advance(m, mv if stunned else 2 * mv, goal=BOARD_DEPTH // 2)
                return True
        return bool(self.search_option(m, stunned))

    def search_option(self, m: _Model, stunned: bool) -> bool:
        """Search when the only enemies around are in Stealth."""
        hidden = [e for e in self.enemies(m) if e.stealth and self.distance(m, e) <= 2]
        visible = [e for e in self.enemies(m) if not e.stealth and self.distance(m, e) - 1 <= self.movement(m)]
        if not hidden or visible or m.engaged:
            return False
        ok = self.test(m, "search")
        m.stealth = False
        if ok:
            for e in hidden:
                e.stealth = False
            m.reveals += 1
            self.say(f"{m.name} searches and reveals {', '.join(e.name for e in hidden)}")
        else:
            self.say(f"{m.name} searches and finds nothing")
        return True

    def sentry_attack(self, m: _Model) -> bool:
        """A sentry guarding the objective attacks ``m`` first (with the
        :attr:`Geometry.sentry` chance).  True if ``m`` may go on."""
        active = 6 - len(self.sentries_down)
        if active <= 0 or self.rng.random() >= self.geo.sentry:
            return True
        enemy_team = (m.team + 1) % self.n
        affs = self.teams[enemy_team].roster[0].affinities if self.teams[enemy_team].roster else (Element.EARTH,)
        sentry = CombatantSnapshot("Samurai Sentry", 3, 3, affs)
        out = fight(sentry, self.snapshot(m), context=FightContext(), rng=self.rng, policy=self.policy)
        self.record_dice("sentry attack", "Samurai Sentry", out.combat.attack_initial)
        self.record_dice("defense", m.name, out.combat.defense_initial)
        self.record_protection(out.defender)
        res = out.result.value if out.result else "no result"
        self.say(f"a Samurai Sentry attacks {m.name}: {res}")
        if out.attacker.harm is Harm.INJURED:
            m.injuries += 1  # sentries are enemy models
            self.sentries_down.append(2)
            self.say("the sentry is Injured (two Delay tokens)")
        self.harm(m, out.defender.harm, by=None)
        return m.on_board and out.defender.harm is Harm.NONE

    def objective_reach(self, m: _Model, at: int, mv: int) -> bool:
        """Move toward position ``at``; True once adjacent to it."""
        if abs(m.progress - at) <= 1:
            return True
        self.advance(m, mv, goal=at)
        return m.on_board and abs(m.progress - at) <= 1

    def infiltrate(self, m: _Model, mv: int, stunned: bool) -> bool:
        # medal 0 is 8 spaces up from team 0's edge, medal 1 is 13 spaces up
        spots = {0: 8, 1: 13}
        side = m.team % 2
        options = []
        for medal, home in self.medals_home.items():
            if not home:
                continue
            at = spots[medal] if side == 0 else BOARD_DEPTH - spots[medal]
            options.append((abs(m.progress - at), medal, at))
        if not options or m.engaged:
            return False
        _target, value, _ = self.best_target(m, mv, stunned=stunned)
        if value > 1.0:
            return False
        _, medal, at = min(options)
        moved = abs(m.progress - at) > 1
        if not self.objective_reach(m, at, mv if stunned else 2 * mv) or (stunned and moved):
            return True
        if not self.sentry_attack(m):
            return True
        m.carrying = medal
        self.medals_home[medal] = False
        m.feats["pick_up_medal"] += 1
        self.add_points(m.team, 1, f"{m.name} picks up a medal")
        return True

    def carry_medal(self, m: _Model, mv: int, stunned: bool) -> bool:
        slug = self.challenge.slug
        goal = 0 if slug == "infiltration" else 4
        self.advance(m, mv if stunned or m.engaged else 2 * mv, goal=goal)
        if not m.on_board or m.carrying is None:
            return True
        if m.progress <= goal + (1 if slug == "capture-the-medal" else 0):
            medal = m.carrying
            m.carrying = None
            self.medals_home[medal] = True
            if slug == "infiltration":
                m.feats["medal_to_deployment"] += 1
                self.add_points(m.team, 2, f"{m.name} brings a medal home")
            else:
                m.feats["capture_enemy_medal"] += 1
                self.add_points(m.team, 4, f"{m.name} captures a medal")
        return True

    def medal_run(self, m: _Model, mv: int, stunned: bool) -> bool:
        """Capture the Medal: the fastest free models go for an enemy medal."""
        if m.engaged:
            return False
        runners = [r for r in self.on_board(m.team) if r.run_target is not None]
        if m.run_target is None:
            if len(runners) >= 2 or (m.ninja.movement < 6 and len(runners) >= 1):
                return False
            homes = [t for t, home in self.medals_home.items() if home and t != m.team]
            if not homes:
                return False
            m.run_target = max(homes, key=lambda t: (self.points[t], -t))
        medal = m.run_target
        if not self.medals_home.get(medal, False):
            m.run_target = None
            return False
        at = BOARD_DEPTH - 4
        moved = abs(m.progress - at) > 1
        if not self.objective_reach(m, at, mv if stunned else 2 * mv) or (stunned and moved):
            return True
        m.carrying = medal
        m.run_target = None
        self.medals_home[medal] = False
        m.feats["pick_up_medal"] += 1
        self.add_points(m.team, 1, f"{m.name} picks up the medal of {self.tname(medal)}")
        return True

    def search_crate(self, m: _Model, mv: int, stunned: bool) -> bool:
        crates = [c for c in self.crates if not c["gone"]]
        if not crates or m.engaged:
            return False
        _target, value, _ = self.best_target(m, mv, stunned=stunned)
        if value > 1.0:
            return False
        at = BOARD_DEPTH // 2
        if abs(m.progress - at) > 1:
            self.advance(m, mv if stunned else 2 * mv, goal=at)
            return True
        if not self.sentry_attack(m):
            return True
        crate = next((c for c in crates if not c["face_up"]), crates[0])
        m.feats["check_crate"] += 1
        m.stealth = False
        if not crate["face_up"]:
            crate["face_up"] = True
            self.add_points(m.team, 1, f"{m.name} turns a crate face up")
        face = roll_dice(1, rng=self.rng)[0]
        self.record_dice("crate", m.name, (face,))
        if face is crate["element"]:
            crate["gone"] = True
            m.feats["find_objective"] += 1
            self.add_points(m.team, 3, f"{m.name} finds an objective")
        return True

    def messenger_move(self, m: _Model, mv: int, stunned: bool) -> bool:
        spaces = mv if (stunned or m.engaged) else 2 * mv + (2 if m.has(KW.SPRINT) else 0)
        self.advance(m, spaces, goal=BOARD_DEPTH)
        if m.on_board and m.progress >= BOARD_DEPTH:
            m.feats["messenger_escapes"] += 1
            self.add_points(m.team, 2, f"{m.name} gets off the board")
            self.disengage(m)
            m.where = TRAINING
            m.reset_statuses()
            self.messenger[m.team] = None
            self.choose_messenger(m.team)
        return True

    # -- rounds ----------------------------------------------------------------

    def start_round(self) -> None:
        self.round += 1
        self.sensei_ready = [True] * self.n
        for m in self.models:
            m.activated = False
            m.mastery_ready = m.tidal_ready = m.indomitable_ready = True
            m.metal_to_dust = False
            m.no_defense = False
            m.attack_mod = m.defense_mod = 0
        if self.round > 1:
            self.initiative = self.roll_initiative("initiative")
        self.say(f"{self.tname(self.initiative)} has the initiative")
        for m in self.on_board():
            if m.has("Metal to Dust") and self.test(m, "Metal to Dust"):
                m.metal_to_dust = True
            if m.has("9 Tails") and m.slow == 0:
                m.moon += 1
                m.stun = 0
                self.say(f"{m.name} becomes Moon Powered (9 Tails)")
            if m.has("Yopparai"):
                m.attack_mod += 2
            if m.has("Zenith") and self.moon_phase is Element.SPIRIT:
                m.moon += 1
                m.stun = 0
            if m.has("Dark Curse"):
                foes = sorted(self.enemies(m), key=lambda e: (-e.ninja.attack, e.uid))[:2]
                for e in foes:
                    e.curse += 1

    def activation_order_key(self, m: _Model) -> tuple:
        return (0 if m.engaged else 1 if m.progress > 0 else 2, -m.ninja.attack, m.uid)

    def play_round(self) -> None:
        order = [(self.initiative + i) % self.n for i in range(self.n)]
        while True:
            any_active = False
            for t in order:
                cands = [m for m in self.on_board(t) if not m.activated]
                if not cands:
                    continue
                any_active = True
                m = min(cands, key=self.activation_order_key)
                self.activate(m)
                if self.winner_now is not None:
                    return
            if not any_active:
                break
        for m in self.on_board():
            if m.has("9 Tails"):
                m.slow += 2

    def end_of_round_scoring(self) -> None:
        if self.challenge.slug != "king-of-the-hill":
            return
        counts = [sum(1 for m in self.on_board(t) if self.in_scoring_area(m)) for t in range(self.n)]
        top = max(counts)
        if top == 0 or counts.count(top) > 1:
            return
        t = counts.index(top)
        self.add_points(t, 1, "more models in the scoring area")
        inside = [m for m in self.on_board(t) if self.in_scoring_area(m)]
        pick = max(inside, key=lambda m: (not m.ninja.is_hero, -sum(m.feats.values()), -m.uid))
        pick.feats["team_scores_in_area"] += 1

    def upkeep(self) -> None:
        self.sentries_down = [d - 1 for d in self.sentries_down if d - 1 > 0]
        for t in [(self.initiative + i) % self.n for i in range(self.n)]:
            healing = [m for m in self.team_models(t) if m.where == HEALING]
            for m in healing:
                if m.has(KW.REGENERATION) and self.test(m, "Regeneration"):
                    m.where = TRAINING
                    self.say(f"{m.name} regenerates")
            healing = sorted(
                (m for m in self.team_models(t) if m.where == HEALING), key=lambda m: (-self.strength(m), m.uid)
            )
            if healing:
                healing.pop(0).where = TRAINING
            if healing:
                healing.pop(0).where = TRAINING
            else:
                stunned = [m for m in self.on_board(t) if m.stun >= 2]
                if stunned:
                    max(stunned, key=lambda m: (m.stun, -m.uid)).stun = 0
            self.deploy(t, start=False)
        self.moon_phase = ELEMENTS[(ELEMENTS.index(self.moon_phase) + 1) % 6]

    def play(self) -> SimResult:
        self.setup()
        ended_early = False
        for _ in range(self.challenge.rounds):
            self.start_round()
            self.play_round()
            if self.winner_now is not None:
                self.say(f"{self.tname(self.winner_now)} reaches nine points and wins")
                ended_early = True
                break
            self.end_of_round_scoring()
            self.upkeep()
        return SimResult(
            record=self.build_record(),
            log=tuple(self.log),
            dice=tuple(self.dice),
            rounds_played=self.round,
            ended_early=ended_early,
            injuries=tuple(self.injury_events),
        )

    # -- the record ------------------------------------------------------------

    def all_stars(self, t: int) -> Counter:
        """One All-Star per team plus the underdog's extra awards, among the
        models that were on the board: most feats first, XP earners before
        Heroes/Ronin (who earn no XP), never the same model twice while
        another candidate is left."""
        played = [m for m in self.team_models(t) if m.played]
        awards: Counter = Counter()
        if not played:
            return awards

        def merit(m: _Model) -> tuple:
            feats = 2 * m.injuries + m.chunin_stuns + m.reveals + sum(m.feats.values())
            return (not m.ninja.is_hero, feats, m.ninja.attack, -m.uid)

        ranked = sorted(played, key=merit, reverse=True)
        for i in range(1 + self.extra_all_stars[t]):
            awards[ranked[i % len(ranked)].uid] += 1
        return awards

    def build_record(self) -> MatchRecord:
        teams = []
        for t, team in enumerate(self.teams):
            stars = self.all_stars(t)
            ninjas = []
            for m in self.team_models(t):
                ninjas.append(
                    NinjaRecord(
                        ninja_id=m.ninja.ninja_id,
                        played=m.played,
                        injuries=m.injuries,
                        chunin_stuns=m.chunin_stuns,
                        reveals=m.reveals,
                        challenge_feats={k: v for k, v in sorted(m.feats.items()) if v},
                        in_healing_house=m.where == HEALING,
                        all_star_awards=stars.get(m.uid, 0),
                    )
                )
            teams.append(TeamRecord(team_id=team.team_id, points=self.points[t], ninjas=tuple(ninjas)))
        notes = (f"simulated {self.challenge.name}", f"rounds played: {self.round}")
        return MatchRecord(teams=tuple(teams), notes=notes)


def simulate_match(
    teams: Sequence[SimTeam],
    challenge: SimChallenge,
    *,
    rng: random.Random,
    underdog: Sequence[UnderdogBonus] | None = None,
    policy: FightPolicy | None = None,
    geometry: Geometry = DEFAULT_GEOMETRY,
) -> SimResult:
    """Play ``challenge`` between ``teams`` (two to four) and return the
    match record, a readable log and every die rolled.

    ``underdog``: one :class:`~rules.engine.league.UnderdogBonus` per team in
    the same order (from :func:`~rules.engine.league.underdog_bonuses`);
    reroll and Moon Power tokens are spent in the game, extra All-Star awards
    are handed out in the record (bonus koban is the app's business).
    Deterministic for a given ``rng`` state.
    """
    return _Match(teams, challenge, rng, underdog, policy or FightPolicy(), geometry).play()
