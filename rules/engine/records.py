"""The match record: what a player enters after a game, or what the simulator produces, and the
kick-off snapshot of each side it is checked against.

Both go through the same post-game sequence (:mod:`.postgame`), so they share this shape.
Ids are opaque (the app uses Ninja/Team primary keys). :func:`record_problems` is every rule a
submitted result must satisfy.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from .challenges import CHAMPION_AWARD
from .dice import Element

__all__ = [
    "NinjaRecord",
    "TeamRecord",
    "MatchRecord",
    "RosterEntry",
    "SideSnapshot",
    "MAX_POINTS",
    "MAX_FEAT_COUNT",
    "MAX_ALL_STAR_AWARDS_PER_MODEL",
    "UPKEEP_CHOICES",
    "record_problems",
]

#: Most points a team can be recorded with (an input limit, not a rule of the game).
MAX_POINTS = 99
#: Most Injuries, stuns, reveals or challenge feats one model can be recorded with (an input limit).
MAX_FEAT_COUNT = 50
#: "each player selects one friendly model as the game's Ninja All-Star": a model gets at most one.
MAX_ALL_STAR_AWARDS_PER_MODEL = 1
#: What a player decides for each ronin after the game (Appendix "Ronin").
UPKEEP_CHOICES = ("pay", "release")


@dataclass(frozen=True)
class NinjaRecord:
    ninja_id: int
    played: bool = True
    injuries: int = 0
    chunin_stuns: int = 0
    reveals: int = 0
    challenge_feats: dict[str, int] = field(default_factory=dict)
    in_healing_house: bool = False
    all_star_awards: int = 0


@dataclass(frozen=True)
class TeamRecord:
    team_id: int
    points: int
    ninjas: tuple[NinjaRecord, ...] = ()


@dataclass(frozen=True)
class MatchRecord:
    teams: tuple[TeamRecord, ...]
    notes: tuple[str, ...] = ()

    def outcome_for(self, team_id: int) -> str:
        """win / draw / loss from points: the most points wins; equal top points draw."""
        top = max(t.points for t in self.teams)
        mine = next(t.points for t in self.teams if t.team_id == team_id)
        leaders = sum(1 for t in self.teams if t.points == top)
        if mine < top:
            return "loss"
        return "draw" if leaders > 1 else "win"

    def team(self, team_id: int) -> TeamRecord:
        return next(t for t in self.teams if t.team_id == team_id)


@dataclass(frozen=True)
class RosterEntry:
    """One model of a side's roster as the match saw it at kick-off.

    ``is_hero`` is true for heroes and ronin (they earn no XP); ``upkeep`` is a ronin's fee;
    ``misses_games``/``starts_in_healing_house`` the downtime it was serving at kick-off
    (``available`` is false while it misses games).
    """

    ninja_id: int
    name: str
    profile_slug: str = ""
    is_chunin: bool = False
    is_hero: bool = False
    is_ronin: bool = False
    upkeep: int = 0
    available: bool = True
    misses_games: int = 0
    starts_in_healing_house: bool = False


@dataclass(frozen=True)
class SideSnapshot:
    """A team in a match as kick-off recorded it: its roster, rating and underdog bonuses."""

    team_id: int
    name: str
    roster: tuple[RosterEntry, ...]
    rating: int | None = None
    bonus_koban: int = 0
    extra_all_stars: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "roster", tuple(self.roster))


def _all_star_problem(side: SideSnapshot, *, picked: int, played: int) -> str | None:
    """Ninja All-Stars: one per team ("each player selects one friendly model ... Players cannot
    select a model that was never on the board"), plus up to one more per underdog award ("the
    lower rated team *may* award one additional All-Star Award"): the extras are optional."""
    most = min(1 + side.extra_all_stars, played)
    least = min(1, played)
    if least <= picked <= most:
        return None
    count = str(most) if least == most else f"{least} to {most}"
    extra = side.extra_all_stars
    extras = f" plus up to {extra} underdog award{'s' if extra != 1 else ''}" if extra else ""
    return (
        f"{side.name}: pick {count} Ninja All-Star{'s' if most != 1 else ''} (one per team{extras}) "
        f"from models that were on the board; {picked} picked."
    )


def record_problems(
    record: MatchRecord,
    *,
    sides: Sequence[SideSnapshot],
    award_keys: Collection[str] = (),
    upkeep: Mapping[int, str] | None = None,
    downtime_faces: Mapping[int, str] | None = None,
) -> list[str]:
    """Every reason this record cannot be applied to a match between ``sides`` (empty: it can).

    ``award_keys``: the challenge's XP awards; ``upkeep``: {ronin id: "pay" | "release"} (missing
    means pay); ``downtime_faces``: the downtime dice entered by the players ({ninja id: face}),
    or ``None`` when the server rolls them.
    """
    upkeep = upkeep or {}
    by_team = {s.team_id: s for s in sides}
    if {t.team_id for t in record.teams} != set(by_team) or len(record.teams) != len(by_team):
        return ["The result must cover exactly the teams in the match."]
    champion = CHAMPION_AWARD in award_keys
    faces = {e.value for e in Element}
    errors: list[str] = []
    for team_record in record.teams:
        side = by_team[team_record.team_id]
        roster = {entry.ninja_id: entry for entry in side.roster}
        if not 0 <= team_record.points <= MAX_POINTS:
            errors.append(f"{side.name}: points must be between 0 and {MAX_POINTS}.")
        seen: set[int] = set()
        all_stars = played = 0
        for nr in team_record.ninjas:
            entry = roster.get(nr.ninja_id)
            if entry is None:
                errors.append(f"{side.name}: model #{nr.ninja_id} is not on this team's match roster.")
                continue
            if nr.ninja_id in seen:
                errors.append(f"{entry.name} is listed twice.")
            seen.add(nr.ninja_id)
            counts = [nr.injuries, nr.chunin_stuns, nr.reveals, *nr.challenge_feats.values()]
            if any(c < 0 or c > MAX_FEAT_COUNT for c in counts):
                errors.append(f"{entry.name}: counts must be between 0 and {MAX_FEAT_COUNT}.")
            unknown = set(nr.challenge_feats) - set(award_keys)
            if unknown:
                errors.append(f"{entry.name}: {', '.join(sorted(unknown))} is not an XP award of this challenge.")
            if not entry.available and nr.played:
                errors.append(f"{entry.name} is serving a downtime absence and cannot have played.")
            feats = nr.injuries or nr.chunin_stuns or nr.reveals or any(nr.challenge_feats.values())
            if not nr.played and (feats or nr.all_star_awards):
                errors.append(f"{entry.name} was never on the board: it cannot have feats or an All-Star award.")
            if not nr.played and nr.in_healing_house and not entry.starts_in_healing_house:
                errors.append(
                    f"{entry.name} was never on the board: only a model that started in the Healing House can end there without playing."
                )
            if nr.chunin_stuns and entry.is_chunin:
                errors.append(f"{entry.name} is a chunin: only a non-chunin earns XP for stunning a chunin.")
            if champion and entry.is_chunin and nr.challenge_feats.get(CHAMPION_AWARD):
                errors.append(f"{entry.name} is a chunin: a Champion must be a non-chunin model.")
            if not 0 <= nr.all_star_awards <= MAX_ALL_STAR_AWARDS_PER_MODEL:
                errors.append(f"{entry.name}: a model receives at most one All-Star award.")
            played += nr.played
            all_stars += nr.all_star_awards
        problem = _all_star_problem(side, picked=all_stars, played=played)
        if problem:
            errors.append(problem)
        for entry in side.roster:
            if entry.is_ronin and upkeep.get(entry.ninja_id, "pay") not in UPKEEP_CHOICES:
                errors.append(f"{entry.name}: pay or release.")
        if downtime_faces is not None:
            for nr in team_record.ninjas:
                if nr.in_healing_house and nr.ninja_id in roster and downtime_faces.get(nr.ninja_id) not in faces:
                    errors.append(f"{roster[nr.ninja_id].name}: enter the downtime die as rolled.")
    return errors
