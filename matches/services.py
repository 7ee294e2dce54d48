"""Writes for matches: kick-off snapshots, result submission, confirmation and the post-game
sequence (revenue, ronin upkeep, downtime, XP, advancement rolls), advancement choices, voiding.

Every write validates first, then runs in one transaction. The post-game sequence locks the
match row and checks `sequence_applied_at`, so it is applied exactly once however many times a
result is submitted or confirmed at the same moment. Dice are rolled on the server from a seed
stored on the match (every face recorded as a DiceRoll), or entered by the players when the
league's house rules say so.
"""

from __future__ import annotations

import random
import secrets
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F, Prefetch, prefetch_related_objects
from django.utils import timezone

from common import invalidation, text
from common.bulk import update_rows
from games import registry as games
from matches import hooks
from matches.models import (
    AWAITING_STATUSES,
    MAX_SIDES,
    DiceRoll,
    DowntimeResult,
    Match,
    MatchNinja,
    MatchTeam,
    UpkeepDecision,
)
from matches.snapshots import RosterRow
from rules.engine import league as rules_league
from rules.engine import postgame
from rules.engine.dice import Element
from rules.engine.house_rules import HouseRules
from rules.engine.records import MatchRecord, NinjaRecord, RosterEntry, SideSnapshot, TeamRecord, record_problems
from rules.models import Keyword
from teams import selectors as team_selectors
from teams.models import Advancement, AdvancementRoll, Ninja, Team, TreasuryEntry, XpEvent
from teams.services import (
    loaded_roster_problems,
    roster_problems,
    team_ratings_refresh,
    treasury_post,
    treasury_post_many,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def house_rules_for(match: Match) -> HouseRules:
    """The rules in force for a match: its season's frozen rules, else its league's, else the
    rulebook's (a friendly outside any league)."""
    if match.season_id:
        return match.season.rule_set()
    if match.league_id:
        return match.league.rule_set()
    return HouseRules()


def _rng(match: Match, purpose: str) -> random.Random:
    """A random source per purpose, derived from the match's stored seed (replayable)."""
    return random.Random(f"{match.seed}:{purpose}")


# --- creating and kicking off ---------------------------------------------------------------------


def match_create(
    *,
    teams: Sequence[Team],
    challenge=None,
    league=None,
    season=None,
    date=None,
    friendly: bool = False,
    round_number=None,
    stage: str = "",
    pairing_reason: str = "",
) -> Match:
    league = league or (season.league if season else None)
    game = games.get(league.game if league is not None else games.DEFAULT)
    if not game.min_players <= len(teams) <= min(game.max_players, MAX_SIDES):
        raise ValidationError(f"A match of {game.name} has {game.min_players} to {game.max_players} sides.")
    if len({t.pk for t in teams}) != len(teams):
        raise ValidationError("A team cannot play itself.")
    with transaction.atomic():
        match = Match.objects.create(
            league=league,
            season=season,
            challenge=challenge,
            date=date,
            friendly=friendly,
            round_number=round_number,
            stage=stage,
            pairing_reason=pairing_reason,
        )
        MatchTeam.objects.bulk_create([MatchTeam(match=match, team=team, slot=i + 1) for i, team in enumerate(teams)])
    return match


def roster_snapshot(team: Team) -> list[RosterRow]:
    """The roster as the match saw it (one row per active model)."""
    rows: list[RosterRow] = []
    for ninja in team.roster:
        line = team_selectors.ninja_line(ninja)
        profile = ninja.profile
        rows.append(
            RosterRow(
                id=ninja.pk,
                name=ninja.name,
                profile=profile.name,
                profile_slug=profile.slug,
                kind=profile.kind,
                koban=profile.koban,
                upkeep=profile.upkeep or 0,
                is_chunin=profile.kind == "chunin",
                is_hero=profile.kind in ("hero", "ronin"),
                is_ronin=profile.kind == "ronin",
                movement=line.movement,
                attack=line.attack,
                defense=line.defense,
                affinities=line.affinities,
                keywords=line.base_keywords + line.gained_keywords,
                ranged=line.ranged,
                abilities=line.abilities,
                xp=ninja.xp,
                level=line.level_name,
                advancements=len(line.advancements),
                misses_games=ninja.misses_games,
                starts_in_healing_house=ninja.starts_in_healing_house,
                available=ninja.misses_games == 0,
            )
        )
    return rows


def live_sides(match: Match) -> list[tuple[MatchTeam, Team, int]]:
    """Each side with its team (roster prefetched) and current rating, in a fixed number of queries."""
    return live_sides_many([match])[match.pk]


def live_sides_many(matches: Sequence[Match]) -> dict[int, list[tuple[MatchTeam, Team, int]]]:
    """:func:`live_sides` of several matches ({match id: its sides}) in the same number of queries
    as one. A team in two of the matches is loaded once (the same object in both)."""
    sides = list(
        MatchTeam.objects.filter(match_id__in=[m.pk for m in matches])
        .select_related("team")
        .order_by("match_id", "slot")
    )
    teams = {t.pk: t for t in team_selectors.teams_with_ratings(Team.objects.filter(pk__in={s.team_id for s in sides}))}
    ratings = {pk: rules_league.team_rating(team_selectors.team_snapshot(team)) for pk, team in teams.items()}
    found: dict[int, list[tuple[MatchTeam, Team, int]]] = {m.pk: [] for m in matches}
    for s in sides:
        found[s.match_id].append((s, teams[s.team_id], ratings[s.team_id]))
    return found


@dataclass(frozen=True)
class KickOffRosters:
    """What kick-off reads, loaded for several matches at once (a simulated round, whose matches
    have no team in common): each match's :func:`live_sides` and each team's roster problems.
    Load it inside the transaction that kicks the matches off, holding their rows and their
    teams' rows locked (:func:`kick_off_rosters_locked`), so no roster changes in between."""

    matches: Mapping[int, Match]
    sides: Mapping[int, list[tuple[MatchTeam, Team, int]]]
    problems: Mapping[int, list[str]]


def kick_off_rosters_locked(matches: Sequence[Match]) -> KickOffRosters:
    """Lock the matches' rows, then their teams' rows (each in id order: the order a result's
    submission takes, match then teams), and load what :func:`kick_off_locked` reads for them, in
    a fixed number of queries: the matches as locked (with their league, season, challenge and its
    XP awards), their sides and rosters, and the rosters' problems. The caller holds a
    transaction."""
    ids = [m.pk for m in matches]
    locked = {
        m.pk: m
        for m in Match.objects.select_for_update(of=("self",))
        .filter(pk__in=ids)
        .select_related("league", "season", "challenge")
        .prefetch_related("challenge__xp_awards")
        .order_by("pk")
    }
    team_ids = MatchTeam.objects.filter(match_id__in=ids).values("team_id")
    list(Team.objects.select_for_update().filter(pk__in=team_ids).order_by("pk").values_list("pk"))
    sides = live_sides_many(matches)
    teams = {team.pk: team for found in sides.values() for _, team, _ in found}
    return KickOffRosters(matches=locked, sides=sides, problems=loaded_roster_problems(list(teams.values())))


def live_underdog_bonuses(
    match: Match, sides: Sequence[tuple[MatchTeam, Team, int]]
) -> list[rules_league.UnderdogBonus]:
    """The underdog bonuses the match would get if it kicked off now (the house rules' switch and
    cap), one per side of :func:`live_sides`: what kick-off stores, and what the pre-match sheet
    shows before it."""
    rules = house_rules_for(match)
    return rules_league.underdog_bonuses(
        [rating for _, _, rating in sides],
        enabled=rules.underdog_bonuses,
        max_bonus_koban=rules.max_bonus_koban,
    )


def kicked_off_bonuses(sides: Sequence[MatchTeam]) -> list[rules_league.UnderdogBonus]:
    """The underdog bonuses recorded at kick-off, one per side in the given order."""
    top = max((s.rating or 0) for s in sides)
    return [
        rules_league.UnderdogBonus(
            rating=side.rating or 0,
            difference=top - (side.rating or 0),
            reroll_tokens=side.reroll_tokens,
            moon_power_tokens=side.moon_power_tokens,
            extra_all_star_awards=side.extra_all_stars,
            bonus_koban=side.bonus_koban,
        )
        for side in sides
    ]


class KickOffBlocked(ValidationError):
    """A team of the match has an advancement roll still to choose: it cannot kick off."""


def kick_off_blockers(match: Match) -> list[tuple[Team, list[AdvancementRoll]]]:
    """The teams of a match that cannot kick off yet, each with its unchosen advancement rolls
    (two queries): "a team cannot kick off its next match with an unchosen advancement roll"."""
    sides = list(match.sides.select_related("team"))
    rolls = team_selectors.unchosen_advancement_rolls([s.team_id for s in sides])
    return [(s.team, rolls[s.team_id]) for s in sorted(sides, key=lambda s: s.slot) if s.team_id in rolls]


def _blockers_of(sides: Sequence[tuple[MatchTeam, Team, int]]) -> list[tuple[Team, list[AdvancementRoll]]]:
    """:func:`kick_off_blockers` from :func:`live_sides`'s rosters (their active models'
    pending rolls are prefetched), without a query."""
    blockers = []
    for _, team, _ in sides:
        rolls = []
        for ninja in team.roster:
            for roll in ninja.pending_rolls:
                roll.ninja = ninja
                rolls.append(roll)
        if rolls:
            blockers.append((team, sorted(rolls, key=lambda r: r.pk)))
    return blockers


def kick_off_roster_problems(match: Match) -> list[tuple[Team, list[str]]]:
    """The teams of a match whose roster is not legal (for example after releasing their only
    chunin), each with what to fix: such a team cannot kick off (issue 14). Three queries a side."""
    blocked = []
    for side in match.sides.select_related("team__clan").order_by("slot"):
        problems = roster_problems(team=side.team)
        if problems:
            blocked.append((side.team, problems))
    return blocked


def kick_off_roster_messages(blocked: Sequence[tuple[Team, Sequence[str]]]) -> list[str]:
    return [
        f"{team.name} cannot kick off: its roster is not legal ({' '.join(problems)}) Its player fixes it first."
        for team, problems in blocked
    ]


def kick_off_blocker_messages(blockers: Sequence[tuple[Team, Sequence[AdvancementRoll]]]) -> list[str]:
    messages = []
    for team, rolls in blockers:
        names = ", ".join(f"{r.ninja.name} (level {r.level})" for r in rolls)
        messages.append(
            f"{team.name} cannot kick off: an advancement roll is still to choose for {names}. "
            "Its player chooses it first."
        )
    return messages


def match_kick_off(*, match: Match) -> Match:
    """Store ratings, underdog bonuses and roster snapshots, and the dice seed. Idempotent.
    Refused (:class:`KickOffBlocked`) while a team has an advancement roll still to choose or an
    illegal roster."""
    with transaction.atomic():
        locked = Match.objects.select_for_update(of=("self",)).select_related("season", "league").get(pk=match.pk)
        if locked.kicked_off_at is not None:
            return locked
        kick_off_locked(locked)
    match.seed, match.kicked_off_at = locked.seed, locked.kicked_off_at
    return locked


def kick_off_problems(sides: Sequence[tuple[MatchTeam, Team, int]], illegal: Mapping[int, list[str]]) -> list[str]:
    """Why the match of these :func:`live_sides` cannot kick off (empty when it can): the roster
    rules (``illegal``: :func:`loaded_roster_problems` by team), then the pending rolls, from the
    rosters as loaded (not read again)."""
    problems = kick_off_roster_messages([(team, illegal[team.pk]) for _, team, _ in sides if illegal[team.pk]])
    return problems + kick_off_blocker_messages(_blockers_of(sides))


def kick_off_locked(locked: Match, *, save: bool = True, loaded: KickOffRosters | None = None) -> list[MatchTeam]:
    """Kick off a match whose row the caller holds locked in its transaction (not kicked off yet):
    what :func:`match_kick_off` does. Returns the sides in slot order, each with its team and what
    kick-off stored, so a caller that goes on (a submission, the simulator) need not read them
    again. ``save=False``: the match's seed and kick-off time are set on ``locked`` but saved by the
    caller, with its own changes, in one update (:data:`KICK_OFF_MATCH_FIELDS`). ``loaded``: the
    rosters :func:`kick_off_rosters_locked` read for this match among others, instead of reading
    them here."""
    if locked.status == Match.Status.VOIDED:
        raise ValidationError("This match was voided.")
    if loaded is not None:
        sides, illegal = loaded.sides[locked.pk], loaded.problems
    else:
        sides = live_sides(locked)
        illegal = loaded_roster_problems([team for _, team, _ in sides])
    problems = kick_off_problems(sides, illegal)
    if problems:
        raise KickOffBlocked(problems)
    bonuses = live_underdog_bonuses(locked, sides)
    for (side, team, rating), bonus in zip(sides, bonuses, strict=True):
        side.rating = rating
        side.reroll_tokens = bonus.reroll_tokens
        side.moon_power_tokens = bonus.moon_power_tokens
        side.extra_all_stars = bonus.extra_all_star_awards
        side.bonus_koban = bonus.bonus_koban
        side.roster_snapshot = roster_snapshot(team)
        side.team_name = team.name
        side.team = team  # the same row, with its roster loaded: the caller may go on with it
    update_rows(MatchTeam, [side for side, _, _ in sides], MatchTeam.KICK_OFF_FIELDS)
    locked.seed = locked.seed if locked.seed is not None else secrets.randbits(62)
    locked.kicked_off_at = timezone.now()
    if save:
        locked.save(update_fields=KICK_OFF_MATCH_FIELDS)
    return [side for side, _, _ in sides]


#: The match's columns kick-off sets.
KICK_OFF_MATCH_FIELDS = ["seed", "kicked_off_at"]


# --- permissions used by services -----------------------------------------------------------------


def _owner_ids(match: Match) -> set[int]:
    return {side.team.owner_id for side in match.sides.all()}


def is_master_of(user, match: Match) -> bool:
    return bool(user.is_authenticated and match.league_id and match.league.master_id == user.pk)


def can_enter_result(user, match: Match) -> bool:
    return bool(user.is_authenticated and (is_master_of(user, match) or user.pk in _owner_ids(match)))


def can_confirm(user, match: Match) -> bool:
    """The master, or a player of a team in the match other than the submitter's teams."""
    if not user.is_authenticated:
        return False
    if is_master_of(user, match):
        return True
    if match.submitted_by_id is None or user.pk == match.submitted_by_id:
        return False
    submitter_teams = _submitter_team_ids(match)
    return any(s.team.owner_id == user.pk and s.team_id not in submitter_teams for s in match.sides.all())


def _submitter_team_ids(match: Match) -> set[int]:
    return {s.team_id for s in match.sides.all() if s.team.owner_id == match.submitted_by_id}


def can_counter_submit(user, match: Match) -> bool:
    """A player of a side other than the submitter's, while a result waits for confirmation: he may
    enter his own record of the game (the same record confirms it, a different one disputes it)."""
    if not user.is_authenticated or match.status != Match.Status.SUBMITTED or match.submitted_by_id is None:
        return False
    if user.pk == match.submitted_by_id:
        return False
    submitter_teams = _submitter_team_ids(match)
    return any(s.team.owner_id == user.pk and s.team_id not in submitter_teams for s in match.sides.all())


def can_settle(user, match: Match) -> bool:
    """Only the league's master settles a disputed result."""
    return match.status == Match.Status.DISPUTED and is_master_of(user, match)


#: What a decided match is, in the refusal of its challenge (issue 27, finding 5).
_DECIDED_AS = {Match.Status.SUBMITTED: "played", Match.Status.DISPUTED: "played", Match.Status.CONFIRMED: "played"}


def challenge_refusal(user, match: Match) -> str | None:
    """Why ``user`` may not set ``match``'s challenge now (None: they may). Rights come from the
    match as it is: once it is decided (played, confirmed, forfeited, voided) nobody may, and the
    reason says so to every side; once it has kicked off the challenge is fixed; before, the
    league's master may, and the player the random challenge generator named
    (``Match.chooser_side``). ``match`` should come with ``league`` and ``sides__team`` loaded."""
    if match.league_id is not None and not match.league.game_site.challenges:
        return f"{match.league.game_info.name} has no challenges."
    if match.status != Match.Status.SCHEDULED:
        decided = _DECIDED_AS.get(match.status, match.get_status_display().lower())
        return f"The match is decided ({decided}): its challenge can no longer be chosen."
    if match.kicked_off_at is not None:
        return "The match has kicked off: its challenge is fixed."
    if is_master_of(user, match):
        return None
    side = match.chooser_side()
    if side is None or not user.is_authenticated or side.team.owner_id != user.pk:
        return "Only the player the dice named (or the master) picks this challenge."
    return None


# --- result submission ----------------------------------------------------------------------------


def roster_entry(row: RosterRow) -> RosterEntry:
    """One kick-off roster snapshot row as the rules engine sees it."""
    return RosterEntry(
        ninja_id=row["id"],
        name=row.get("name", ""),
        profile_slug=row.get("profile_slug", ""),
        is_chunin=row.get("is_chunin", False),
        is_hero=row.get("is_hero", False),
        is_ronin=row.get("is_ronin", False),
        upkeep=row.get("upkeep", 0),
        available=row.get("available", True),
        misses_games=row.get("misses_games", 0),
        starts_in_healing_house=row.get("starts_in_healing_house", False),
    )


def side_snapshot(side: MatchTeam) -> SideSnapshot:
    """A side as kick-off recorded it (roster, rating, underdog bonuses), for the rules engine."""
    return SideSnapshot(
        team_id=side.team_id,
        name=side.team.name,
        roster=tuple(roster_entry(row) for row in side.roster_snapshot or []),
        rating=side.rating,
        bonus_koban=side.bonus_koban,
        extra_all_stars=side.extra_all_stars,
    )


def validate_record(
    match: Match,
    record: MatchRecord,
    *,
    upkeep: Mapping[int, str],
    downtime_faces: Mapping[int, str] | None,
    sides: Sequence[MatchTeam] | None = None,
) -> None:
    """Every rule a submitted result must satisfy (rules.engine.records.record_problems); raises
    ValidationError listing all problems. ``sides``: the match's sides with their teams, when the
    caller has them."""
    if sides is None:
        sides = match.sides.select_related("team")
    sides = [side_snapshot(s) for s in sides]
    award_keys = {a.key for a in match.challenge.xp_awards.all()} if match.challenge_id else set()
    errors = record_problems(record, sides=sides, award_keys=award_keys, upkeep=upkeep, downtime_faces=downtime_faces)
    if errors:
        raise ValidationError(errors)


def _record_to_json(record: MatchRecord) -> dict:
    return {
        "teams": [
            {"team_id": t.team_id, "points": t.points, "ninjas": [asdict(n) for n in t.ninjas]} for t in record.teams
        ]
    }


def record_from_json(data: dict) -> MatchRecord:
    return MatchRecord(
        teams=tuple(
            TeamRecord(
                team_id=t["team_id"],
                points=t["points"],
                ninjas=tuple(
                    NinjaRecord(**{**n, "challenge_feats": dict(n.get("challenge_feats", {}))}) for n in t["ninjas"]
                ),
            )
            for t in data["teams"]
        )
    )


def match_save_draft(*, match: Match, data: dict, actor: User | None) -> Match:
    if not can_enter_result(actor, match):
        raise PermissionDenied("Only a player in this match or the league's master may enter its result.")
    if match.status != Match.Status.SCHEDULED:
        raise ValidationError("The result has already been submitted.")
    with invalidation.changing():  # a draft is shown to nobody but its writers: no cached page shows it
        Match.objects.filter(pk=match.pk).update(result_draft=data)
    match.result_draft = data
    return match


def submission_json(record: MatchRecord, upkeep: Mapping[int, str], downtime_faces: Mapping[int, str] | None) -> dict:
    """A submitted result as stored on the match: the record, the upkeep choices, entered dice."""
    return {
        **_record_to_json(record),
        "upkeep": {str(k): v for k, v in upkeep.items()},
        "downtime_faces": {str(k): v for k, v in downtime_faces.items()} if downtime_faces is not None else None,
    }


def _normalised(data: Mapping[str, Any]) -> dict:
    """A stored submission in a canonical order, so two records of the same game compare equal."""
    teams = sorted(data.get("teams", []), key=lambda t: t["team_id"])
    return {
        "teams": [
            {
                "team_id": t["team_id"],
                "points": t["points"],
                "ninjas": sorted(
                    (
                        {**n, "challenge_feats": {k: v for k, v in (n.get("challenge_feats") or {}).items() if v}}
                        for n in t["ninjas"]
                    ),
                    key=lambda n: n["ninja_id"],
                ),
            }
            for t in teams
        ],
        # not the upkeep: each side decides its own ronin's (their choices are merged, not compared)
        "downtime_faces": dict(sorted((data.get("downtime_faces") or {}).items())),
    }


def same_submission(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return _normalised(a) == _normalised(b)


# --- ronin upkeep: each team decides its own ronin's ----------------------------------------------
#
# "A team must pay Ronin a fee after each game ... If a team cannot or does not want to pay a
# Ronin's upkeep, the Ronin leaves the team" (the rulebook's Ronin keyword): the choice is the
# ronin's own team's. Each owner's choice (or the master's, for any side) is kept on the match
# (``upkeep_choices``); an accepted result whose ronin an owner has not decided waits for it
# (``upkeep_waits``); by the fixture's deadline the house rule decides (league.services.upkeep).

UPKEEP_CHOICES = ("pay", "release")


def ronin_of(sides: Sequence[MatchTeam]) -> dict[int, tuple[MatchTeam, dict]]:
    """{ninja id: (side, roster row)} of every ronin on the sides' kick-off rosters."""
    return {row["id"]: (side, row) for side in sides for row in side.roster_snapshot or [] if row.get("is_ronin")}


def upkeep_decidable(user, match: Match, sides: Sequence[MatchTeam] | None = None) -> set[int]:
    """The ronin whose upkeep ``user`` decides: those of his own sides; the master, every side's
    (he enters a whole result sheet, or decides for an owner who asks him to)."""
    sides = list(match.sides.all()) if sides is None else sides
    ronin = ronin_of(sides)
    if is_master_of(user, match):
        return set(ronin)
    uid = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
    return {nid for nid, (side, _) in ronin.items() if uid is not None and side.team.owner_id == uid}


def upkeep_undecided(match: Match, sides: Sequence[MatchTeam], choices: Mapping[int, str] | None = None) -> list[dict]:
    """The roster rows of the ronin nobody has decided yet (``choices``: the match's, by default)."""
    choices = upkeep_choices_of(match) if choices is None else choices
    return [row for nid, (_, row) in ronin_of(sides).items() if nid not in choices]


def upkeep_choices_of(match: Match) -> dict[int, str]:
    return {int(k): v for k, v in (match.upkeep_choices or {}).items()}


def _take_upkeep(
    locked: Match, actor, upkeep: Mapping[int, str], sides: Sequence[MatchTeam], *, own_default: bool = True
) -> dict[int, str]:
    """Check that ``actor`` decides each of ``upkeep``'s ronin and keep the choices on the match
    (unsaved: the caller saves ``upkeep_choices``). ``own_default``: a ronin of his that he leaves
    out and nobody has decided is paid (the form's preselected choice; the master's: every side's).
    Returns the match's choices now."""
    ronin = ronin_of(sides)
    mine = upkeep_decidable(actor, locked, sides)
    if own_default:
        decided = upkeep_choices_of(locked)
        upkeep = {**{nid: "pay" for nid in mine if nid not in decided}, **upkeep}
    problems = []
    for nid, choice in upkeep.items():
        if nid not in ronin:
            problems.append(f"Model {nid} is not a ronin of this match.")
        elif nid not in mine:
            side, row = ronin[nid]
            problems.append(f"{row['name']} is a ronin of {side.team.name}: its own team decides its upkeep.")
        elif choice not in UPKEEP_CHOICES:
            problems.append(f"{ronin[nid][1]['name']}: choose to pay the upkeep or release.")
    if problems:
        raise ValidationError(problems)
    choices = {**upkeep_choices_of(locked), **upkeep}
    locked.upkeep_choices = {str(k): v for k, v in sorted(choices.items())}
    return choices


def _accept_or_wait(locked: Match, *, actor, sides: Sequence[MatchTeam], also_save: Sequence[str] = ()) -> None:
    """An accepted result (confirmed, or needing no confirmation): the post-game sequence runs
    now, or, while a ronin's owner has not decided its upkeep, the result waits for him (the
    acceptor kept as its confirmer)."""
    fields = [*also_save, "upkeep_choices"]
    if upkeep_undecided(locked, sides):
        locked.status = Match.Status.SUBMITTED
        locked.upkeep_waits = True
        locked.confirmed_by = actor if getattr(actor, "pk", None) else None
        locked.save(update_fields=list(dict.fromkeys([*fields, "status", "upkeep_waits", "confirmed_by"])))
        hooks.run_result_event(hooks.UPKEEP, locked, actor)
        return
    locked.upkeep_waits = False
    _apply_sequence(locked, actor=actor, sides=list(sides), also_save=[*fields, "upkeep_waits"])


def match_decide_upkeep(*, match: Match, actor, upkeep: Mapping[int, str]) -> Match:
    """A ronin's owner (or the master) decides its upkeep while an accepted result waits for it;
    the post-game sequence runs once no ronin waits."""
    with transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self",))
            .select_related("league", "season", "challenge", "confirmed_by")
            .prefetch_related("challenge__xp_awards")
            .get(pk=match.pk)
        )
        if locked.status != Match.Status.SUBMITTED or not locked.upkeep_waits:
            raise ValidationError("No ronin's upkeep waits for a decision in this match.")
        sides = list(locked.sides.select_related("team").order_by("slot"))
        waiting = {row["id"] for row in upkeep_undecided(locked, sides)}
        if not waiting & upkeep_decidable(actor, locked, sides):
            raise PermissionDenied("Only a waiting ronin's own player or the league's master decides its upkeep.")
        if not waiting & set(upkeep):
            raise ValidationError("Choose to pay or release each of your ronin that waits.")
        _take_upkeep(locked, actor, dict(upkeep), sides, own_default=False)
        _accept_or_wait(locked, actor=locked.confirmed_by, sides=sides)
    copy_columns(locked, match)
    return match


def upkeep_default_apply(*, match: Match) -> bool:
    """By the fixture's deadline: every ronin still undecided takes the house rule's default
    (``ronin_upkeep_default``) and the post-game sequence runs. False when nothing waited."""
    with transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self",))
            .select_related("league", "season", "challenge", "confirmed_by")
            .prefetch_related("challenge__xp_awards")
            .get(pk=match.pk)
        )
        if locked.status != Match.Status.SUBMITTED or not locked.upkeep_waits:
            return False
        sides = list(locked.sides.select_related("team").order_by("slot"))
        default = house_rules_for(locked).ronin_upkeep_default
        choices = {**upkeep_choices_of(locked), **{row["id"]: default for row in upkeep_undecided(locked, sides)}}
        locked.upkeep_choices = {str(k): v for k, v in sorted(choices.items())}
        _accept_or_wait(locked, actor=locked.confirmed_by, sides=sides)
    return True


def match_submit_result(
    *,
    match: Match,
    record: MatchRecord,
    actor: User | None,
    upkeep: Mapping[int, str] | None = None,
    downtime_faces: Mapping[int, str] | None = None,
    simulated: bool = False,
) -> Match:
    """Submit a result. Runs the post-game sequence at once when no confirmation is needed (or the
    master submits); otherwise waits for an opponent or the master to confirm.

    While a result waits for confirmation, a player of the other side may submit his own record:
    the same record confirms the result; a different one makes the match disputed, both records
    kept, for the master to settle (:func:`match_settle`)."""
    upkeep = dict(upkeep or {})
    with transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self",))
            .select_related("league", "season", "challenge")
            .prefetch_related("challenge__xp_awards")  # read by the check and by the sequence
            .get(pk=match.pk)
        )
        if not simulated and not can_enter_result(actor, locked):
            raise PermissionDenied("Only a player in this match or the league's master may enter its result.")
        if not simulated and can_counter_submit(actor, locked):
            _counter_submit(locked, record, actor=actor, upkeep=upkeep, downtime_faces=downtime_faces)
            match.refresh_from_db()
            return match
        if locked.status != Match.Status.SCHEDULED:
            raise ValidationError(f"This match is already {locked.get_status_display().lower()}.")
        sides, kicked_off = None, []
        if locked.kicked_off_at is None:  # kicked off now, saved with the submission
            sides, kicked_off = kick_off_locked(locked, save=False), KICK_OFF_MATCH_FIELDS
        submit_locked(
            locked,
            record,
            actor=actor,
            upkeep=upkeep,
            downtime_faces=downtime_faces,
            simulated=simulated,
            sides=sides,
            also_save=kicked_off,
        )
    # ``locked`` holds every column as this transaction wrote it: no need to read the row again.
    copy_columns(locked, match)
    return match


def submit_locked(
    locked: Match,
    record: MatchRecord,
    *,
    actor: User | None,
    upkeep: Mapping[int, str],
    downtime_faces: Mapping[int, str] | None = None,
    simulated: bool = False,
    sides: list[MatchTeam] | None = None,
    also_save: Sequence[str] = (),
) -> None:
    """Submit a result for a scheduled, kicked-off match whose row the caller holds locked (what
    :func:`match_submit_result` does after its checks; the simulator calls it directly). ``sides``:
    the match's sides in slot order with their teams, when the caller has them (not read again).
    ``also_save``: the match's columns the caller changed and left unsaved (kick-off's, the
    simulator's seed): saved in the same update as the submission, or the confirmation."""
    rules = house_rules_for(locked)
    entered = rules.dice_entered and not simulated
    if sides is None:
        sides = list(locked.sides.select_related("team").order_by("slot"))
    validate_record(locked, record, upkeep=upkeep, downtime_faces=downtime_faces if entered else None, sides=sides)
    if simulated:  # the simulator's policy decides every side's (matches.simulation.upkeep_policy)
        locked.upkeep_choices = {str(k): v for k, v in sorted(upkeep.items())}
    else:
        _take_upkeep(locked, actor, upkeep, sides)
    locked.submitted_record = submission_json(record, upkeep, (downtime_faces or {}) if entered else None)
    locked.status = Match.Status.SUBMITTED
    locked.submitted_by = actor if getattr(actor, "pk", None) else None
    locked.submitted_at = timezone.now()
    locked.simulated = locked.simulated or simulated
    locked.result_draft = None
    fields = [
        *also_save,
        "submitted_record",
        "status",
        "submitted_by",
        "submitted_at",
        "simulated",
        "result_draft",
        "upkeep_choices",
    ]
    needs_confirmation = rules.results_need_confirmation and not simulated and not is_master_of(actor, locked)
    if not needs_confirmation:  # one update of the match row: submitted and confirmed at once
        _accept_or_wait(locked, actor=actor, sides=sides, also_save=fields)
    else:
        locked.save(update_fields=fields)
        hooks.run_result_event(hooks.SUBMITTED, locked, actor)


# --- the games whose entrants are players (issue 17) ----------------------------------------------


def players_game(match: Match) -> bool:
    """Whether the match's league is for a game whose entrants are players, not team scrolls: no
    kick-off, no roster, no post-game sequence (its league is loaded with it by the callers)."""
    return match.league_id is not None and not games.game_of(match.league.game).team_scrolls


def game_result_enterable(match: Match) -> bool:
    """A players' game whose result the site can take (its Game has a result form, a check and
    what a record writes on the sides), in a season still being played (not finished: its league
    and season are loaded with it by the callers)."""
    if not players_game(match):
        return False
    game = games.game_of(match.league.game)
    if not game.can_enter_results or game.side_results is None:
        return False
    return match.season_id is None or match.season.status != FINISHED_SEASON


#: ``league.models.Season.Status.FINISHED`` (league sits above this app: its value, not its import).
FINISHED_SEASON = "finished"


def _prefetch_game_sides(match: Match) -> None:
    """A players' game's sides with their entrants (the rights read each side's owner), one query."""
    prefetch_related_objects(
        [match], Prefetch("sides", queryset=MatchTeam.objects.select_related("team").order_by("slot"))
    )


def game_result_check(match: Match, record: Mapping[str, Any]) -> None:
    """Every rule a players' game record must satisfy for this match (the site's form, the API and
    a settlement call it): its game's, the season's time limit (Ninjutsu), one line a side of the
    match (Kage Masters). Raises ValidationError. Reads the match's sides (prefetched or one query)."""
    games.game_of(match.league.game).validate_result(
        record,
        game=match.league.game,
        # a table's players present: one who dropped out has no line (league.services.tables)
        slots=[side.slot for side in match.sides.all() if not side.dropped_out],
        # the season's rules, the game's own among them (HouseRule.of: Ninjutsu's time limit)
        rules=house_rules_for(match),
    )


def match_submit_game_result(*, match: Match, record: Mapping[str, Any], actor: User | None) -> Match:
    """Submit the result of a players' game (the record its result form gives). As for All-Stars:
    it waits for an opponent's or the master's confirmation when the league's rules say so (not
    when the master enters it); another player's own record while one waits confirms it when it
    is the same and disputes it when it differs. Who may do what: docs/leagues.md, "Results of the
    players' games"."""
    with transaction.atomic():
        locked = Match.objects.select_for_update(of=("self",)).select_related("league", "season").get(pk=match.pk)
        if players_game(locked):
            _prefetch_game_sides(locked)
        if not can_enter_result(actor, locked):
            raise PermissionDenied("Only a player in this match or the league's master may enter its result.")
        if not game_result_enterable(locked):
            raise ValidationError("This match's result is not entered with a players' game form.")
        game_result_check(locked, record)
        record = dict(record)
        if can_counter_submit(actor, locked):
            if record == locked.submitted_record:
                _apply_sequence(locked, actor=actor)
            else:
                locked.counter_record, locked.counter_by, locked.counter_at = record, actor, timezone.now()
                locked.status = Match.Status.DISPUTED
                locked.save(update_fields=["counter_record", "counter_by", "counter_at", "status"])
                hooks.run_result_event(hooks.DISPUTED, locked, actor)
        else:
            if locked.status != Match.Status.SCHEDULED:
                raise ValidationError(f"This match is already {locked.get_status_display().lower()}.")
            locked.submitted_record = record
            locked.status = Match.Status.SUBMITTED
            locked.submitted_by = actor if getattr(actor, "pk", None) else None
            locked.submitted_at = timezone.now()
            locked.result_draft = None
            fields = ["submitted_record", "status", "submitted_by", "submitted_at", "result_draft"]
            if house_rules_for(locked).results_need_confirmation and not is_master_of(actor, locked):
                locked.save(update_fields=fields)
                hooks.run_result_event(hooks.SUBMITTED, locked, actor)
            else:
                _apply_sequence(locked, actor=actor, also_save=fields)
    copy_columns(locked, match)
    return match


def _apply_game_result(
    match: Match, *, actor: User | None, data: Mapping[str, Any] | None, also_save: Sequence[str] = ()
) -> None:
    """Confirm a players' game: each side's outcome, points and the league points its game gives
    it under the season's house rules, from the record (no post-game sequence: nothing persists
    between games); each side's entrant's name frozen as the match saw it (``team_name``, so a
    played page reads no entrant for names); the league table's rows; the result's events."""
    game = games.game_of(match.league.game)
    sides = list(match.sides.select_related("team").order_by("slot"))
    # A table's players who dropped out (league.services.tables): only a game at tables has them.
    dropped = [side.slot for side in sides if side.dropped_out]
    results = game.side_results(
        data if data is not None else match.submitted_record,
        house_rules_for(match),
        **({"dropped": dropped} if dropped else {}),
    )
    for side in sides:
        side.outcome, side.points, side.league_points = results[side.slot]
        side.koban_earned = 0
        side.team_name = side.team.name
    update_rows(MatchTeam, sides, ["points", "outcome", "league_points", "koban_earned", "team_name"])
    now = timezone.now()
    _mark_confirmed(match, actor=actor, now=now, also_save=also_save)
    hooks.run_result_written(match)
    hooks.run_result_event(hooks.CONFIRMED, match, actor)
    transaction.on_commit(lambda: _after_confirm(match))


def _mark_confirmed(match: Match, *, actor: User | None, now, also_save: Sequence[str]) -> None:
    """Mark a match confirmed, its result applied (one update, with the caller's unsaved columns)."""
    match.status = Match.Status.CONFIRMED
    match.confirmed_by = actor if getattr(actor, "pk", None) else None
    match.confirmed_at = now
    match.sequence_applied_at = now
    match.save(
        update_fields=list(dict.fromkeys([*also_save, "status", "confirmed_by", "confirmed_at", "sequence_applied_at"]))
    )


def copy_columns(source: Match, target: Match) -> None:
    """Give ``target`` every column value of ``source`` (the same row, read and written under its
    lock): what ``target.refresh_from_db()`` would read, without the query. As a refresh does, it
    drops what ``target`` had prefetched (its sides, say, now with points); a changed foreign key
    drops its cached object."""
    if target is source:
        return
    for field in Match._meta.concrete_fields:
        setattr(target, field.attname, getattr(source, field.attname))
    target._prefetched_objects_cache = {}
    for relation in Match._meta.related_objects:
        if relation.one_to_one and relation.is_cached(target):
            relation.delete_cached_value(target)


def _counter_submit(
    locked: Match,
    record: MatchRecord,
    *,
    actor,
    upkeep: Mapping[int, str],
    downtime_faces: Mapping[int, str] | None,
) -> None:
    """The other side's record while one waits (the caller holds the match lock and has checked
    :func:`can_counter_submit`): the same record confirms, a different one disputes."""
    rules = house_rules_for(locked)
    entered = rules.dice_entered
    sides = list(locked.sides.select_related("team").order_by("slot"))
    validate_record(locked, record, upkeep=upkeep, downtime_faces=downtime_faces if entered else None, sides=sides)
    _take_upkeep(locked, actor, upkeep, sides)  # his own ronin's, whatever becomes of the record
    data = submission_json(record, upkeep, (downtime_faces or {}) if entered else None)
    if same_submission(data, locked.submitted_record or {}):
        _accept_or_wait(locked, actor=actor, sides=sides)
        return
    locked.counter_record = data
    locked.counter_by = actor
    locked.counter_at = timezone.now()
    locked.status = Match.Status.DISPUTED
    locked.save(update_fields=["counter_record", "counter_by", "counter_at", "status", "upkeep_choices"])
    hooks.run_result_event(hooks.DISPUTED, locked, actor)


def match_settle(
    *,
    match: Match,
    actor: User | None,
    pick: str | None = None,
    record: MatchRecord | None = None,
    upkeep: Mapping[int, str] | None = None,
    downtime_faces: Mapping[int, str] | None = None,
) -> Match:
    """The master settles a disputed result: by picking one of the two records (``pick``: "first"
    or "second"), or with a record he edited (``record``, checked like any submission). Both
    submitted records stay on the match; the post-game sequence applies the settled one."""
    if (pick is None) == (record is None):
        raise ValidationError("Pick one of the two records, or enter an edited record.")
    if pick is not None and pick not in (Match.Settlement.FIRST, Match.Settlement.SECOND):
        raise ValidationError("Pick the first or the second record.")
    with transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self",))
            .select_related("league", "season", "challenge")
            .get(pk=match.pk)
        )
        if not is_master_of(actor, locked):
            raise PermissionDenied("Only the league's ninja master may settle a disputed result.")
        if locked.status != Match.Status.DISPUTED:
            raise ValidationError("There is no disputed result to settle.")
        sides = list(locked.sides.select_related("team").order_by("slot"))
        if pick is not None:
            data = locked.submitted_record if pick == Match.Settlement.FIRST else locked.counter_record
            settlement = pick
        else:
            upkeep = dict(upkeep or {})
            entered = house_rules_for(locked).dice_entered
            validate_record(locked, record, upkeep=upkeep, downtime_faces=downtime_faces if entered else None)
            _take_upkeep(locked, actor, upkeep, sides)
            data = submission_json(record, upkeep, (downtime_faces or {}) if entered else None)
            settlement = Match.Settlement.EDITED
        locked.settlement = settlement
        if upkeep_undecided(locked, sides):
            # the record is settled; a ronin's owner still decides its upkeep (applied then)
            locked.submitted_record, locked.counter_record = data, None
            _accept_or_wait(
                locked, actor=actor, sides=sides, also_save=["settlement", "submitted_record", "counter_record"]
            )
        else:
            _apply_sequence(locked, actor=actor, data=data, sides=sides, also_save=["settlement", "upkeep_choices"])
    match.refresh_from_db()
    return match


def match_confirm(*, match: Match, actor: User | None, upkeep: Mapping[int, str] | None = None) -> Match:
    """An opponent or the master confirms a submitted result: the post-game sequence runs (once).
    ``upkeep``: the confirmer's choices for his own ronin (the master's: for any); one of his own
    he leaves undecided is paid (the form's choice), another side's waits for its owner."""
    with transaction.atomic():
        locked = (
            Match.objects.select_for_update(of=("self",))
            .select_related("league", "season", "challenge")
            .get(pk=match.pk)
        )
        if locked.sequence_applied_at is not None:
            return locked  # already applied: confirming twice is harmless
        if locked.status != Match.Status.SUBMITTED:
            raise ValidationError("There is no submitted result to confirm.")
        if players_game(locked):
            if not game_result_enterable(locked):
                raise ValidationError("This season is finished: its results are final.")
            _prefetch_game_sides(locked)
        if locked.upkeep_waits:
            raise ValidationError("The result is accepted: it waits only for a ronin's upkeep decision.")
        if not can_confirm(actor, locked):
            raise PermissionDenied("Only an opposing player or the league's master may confirm this result.")
        if players_game(locked):
            _apply_sequence(locked, actor=actor)
        else:
            sides = list(locked.sides.select_related("team").order_by("slot"))
            _take_upkeep(locked, actor, dict(upkeep or {}), sides)
            _accept_or_wait(locked, actor=actor, sides=sides)
    match.refresh_from_db()
    return match


def match_reject(*, match: Match, actor: User | None, reason: str = "") -> Match:
    """Send a submitted result back for correction (the opponent or the master)."""
    reason = text.clean_single_line(reason, field="reason", max_length=200)
    with transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        if locked.status != Match.Status.SUBMITTED or locked.sequence_applied_at is not None or locked.upkeep_waits:
            raise ValidationError("Only a submitted, unconfirmed result can be rejected.")
        if players_game(locked):
            _prefetch_game_sides(locked)
        if not can_confirm(actor, locked):
            raise PermissionDenied("Only an opposing player or the league's master may reject this result.")
        submitted_by_id = locked.submitted_by_id
        locked.result_draft = {"rejected_record": locked.submitted_record, "reason": reason}
        locked.submitted_record = None
        locked.status = Match.Status.SCHEDULED
        locked.submitted_by = None
        locked.submitted_at = None
        locked.save(update_fields=["result_draft", "submitted_record", "status", "submitted_by", "submitted_at"])
        hooks.run_result_event(hooks.REJECTED, locked, actor, submitted_by_id=submitted_by_id, reason=reason)
    return locked


# --- the post-game sequence -----------------------------------------------------------------------


def _apply_sequence(
    match: Match,
    *,
    actor: User | None,
    data: Mapping[str, Any] | None = None,
    sides: list[MatchTeam] | None = None,
    also_save: Sequence[str] = (),
) -> None:
    """Revenue, ronin upkeep, downtime, XP and advancement rolls, in the rulebook's order.

    The rules are one pure function (rules.engine.postgame.postgame); this locks what the
    sequence changes, builds the function's inputs and writes its outcome. The caller holds the
    match row lock inside a transaction. Rows are written in bulk so the number of queries does not
    grow with roster size. ``data``: the record to apply (a settled dispute's), else the submitted one.
    ``sides``: the match's sides in slot order with their teams, when the caller has them.
    ``also_save``: the match's columns the caller changed and left unsaved, saved with the confirmation.
    """
    if match.sequence_applied_at is not None:
        return
    if players_game(match):
        _apply_game_result(match, actor=actor, data=data, also_save=also_save)
        return
    rules = house_rules_for(match)
    data = data if data is not None else match.submitted_record
    record = record_from_json(data)
    # the record's (an older submission's, whose submitter chose for every side), then each owner's
    upkeep = {**{int(k): v for k, v in (data.get("upkeep") or {}).items()}, **upkeep_choices_of(match)}
    entered_faces = (
        {int(k): v for k, v in (data.get("downtime_faces") or {}).items()} if data.get("downtime_faces") else None
    )
    if sides is None:
        sides = list(match.sides.select_related("team").order_by("slot"))
    team_ids = [s.team_id for s in sides]
    # The teams' rows locked once here (in id order): the ledger and the stored ratings below read
    # their treasuries and ratings from this lock.
    locked_teams = {
        pk: (treasury, rating)
        for pk, treasury, rating in Team.objects.select_for_update()
        .filter(pk__in=team_ids)
        .order_by("pk")
        .values_list("pk", "treasury", "rating")
    }
    treasuries = {pk: treasury for pk, (treasury, _) in locked_teams.items()}
    ninjas = {n.pk: n for n in Ninja.objects.select_for_update().filter(team_id__in=team_ids)}
    challenge_xp = {a.key: a.xp for a in match.challenge.xp_awards.all()} if match.challenge_id else {}
    roll_advancements = not rules.dice_entered or match.simulated
    outcome = postgame.postgame(
        record=record,
        sides=[side_snapshot(s) for s in sides],
        models={
            n.pk: postgame.ModelNow(
                ninja_id=n.pk,
                name=n.name,
                xp=n.xp,
                misses_games=n.misses_games,
                starts_in_healing_house=n.starts_in_healing_house,
                active=n.status == Ninja.Status.ACTIVE,
            )
            for n in ninjas.values()
        },
        treasuries=treasuries,
        rules=rules.postgame(),
        challenge_xp=challenge_xp,
        upkeep=upkeep,
        downtime_dice=entered_faces if entered_faces is not None else _rng(match, "downtime"),
        advancement_rng=_rng(match, "advancement") if roll_advancements else None,
    )
    _write_outcome(
        match,
        sides,
        ninjas,
        outcome,
        actor=actor,
        treasuries=treasuries,
        ratings={pk: rating for pk, (_, rating) in locked_teams.items()},
        also_save=also_save,
    )


NINJA_CHANGE_COLUMNS = ("xp", "misses_games", "starts_in_healing_house", "status", "released_at", "release_reason")


def _write_outcome(
    match: Match,
    sides: list[MatchTeam],
    ninjas: dict[int, Ninja],
    outcome: postgame.PostgameOutcome,
    *,
    actor,
    treasuries: Mapping[int, int],
    ratings: Mapping[int, int],
    also_save: Sequence[str] = (),
) -> None:
    """Write what the post-game sequence did, in bulk, and mark the match confirmed.
    ``treasuries`` and ``ratings``: the teams' stored values, read under the caller's lock."""
    now = timezone.now()
    side_of = {s.team_id: s for s in sides}
    for result in outcome.sides:
        side = side_of[result.team_id]
        side.points, side.outcome, side.koban_earned = result.points, result.outcome, result.koban_earned
    update_rows(MatchTeam, sides, ["points", "outcome", "koban_earned"])
    MatchNinja.objects.bulk_create(
        MatchNinja(
            side=side_of[m.team_id],
            ninja_id=m.entry.ninja_id,
            name=m.entry.name,
            played=m.record.played,
            injuries=m.record.injuries,
            chunin_stuns=m.record.chunin_stuns,
            reveals=m.record.reveals,
            challenge_feats=m.record.challenge_feats,
            in_healing_house=m.record.in_healing_house,
            all_star_awards=m.record.all_star_awards,
            xp_gained=m.xp_gained,
        )
        for m in outcome.models
    )
    treasury_post_many(
        posts=[
            (side_of[line.team_id].team, line.amount, TreasuryEntry.Reason(line.reason.value), line.note)
            for line in outcome.ledger
        ],
        match=match,
        actor=actor,
        locked_balances=treasuries,
    )
    UpkeepDecision.objects.bulk_create(
        UpkeepDecision(match=match, ninja_id=u.ninja_id, fee=u.fee, paid=u.paid, forced_release=u.forced_release)
        for u in outcome.upkeep
    )
    DowntimeResult.objects.bulk_create(
        DowntimeResult(
            match=match,
            ninja_id=d.ninja_id,
            face=d.face.value,
            spared_by_id=d.spared_by,
            misses_games=d.misses_games,
            starts_in_healing_house=d.starts_in_healing_house,
            xp_bonus=d.xp_bonus,
            effect=d.effect,
        )
        for d in outcome.downtime
    )
    XpEvent.objects.bulk_create(
        XpEvent(ninja_id=x.ninja_id, match=match, amount=x.amount, reason=x.reason) for x in outcome.xp
    )
    AdvancementRoll.objects.bulk_create(
        AdvancementRoll(ninja_id=a.ninja_id, match=match, level=a.level, faces=list(a.faces))
        for a in outcome.advancements
    )
    DiceRoll.objects.bulk_create(
        DiceRoll(
            match=match,
            ninja_id=d.ninja_id,
            purpose=DiceRoll.Purpose(d.purpose),
            faces=list(d.faces),
            entered_by_player=d.entered_by_player,
        )
        for d in outcome.dice
    )
    changed = []
    columns: set[str] = set()  # the columns some model's change touches (most often only the XP)
    for change in outcome.changes:
        ninja = ninjas[change.ninja_id]
        values = {
            "xp": change.xp,
            "misses_games": change.misses_games,
            "starts_in_healing_house": change.starts_in_healing_house,
        }
        if change.released:
            values.update(status=Ninja.Status.RELEASED, released_at=now, release_reason=change.release_reason)
        for name, value in values.items():
            if getattr(ninja, name) != value:
                setattr(ninja, name, value)
                columns.add(name)
        changed.append(ninja)
    if columns:
        update_rows(Ninja, changed, [c for c in NINJA_CHANGE_COLUMNS if c in columns])

    _mark_confirmed(match, actor=actor, now=now, also_save=also_save)
    # The read model, in this transaction: the league table's rows (a hook: the league's) and the
    # teams' ratings (in a simulated round, once at its end: results_written_once).
    hooks.run_result_written(match)
    pending = getattr(_round, "ratings", None)
    if pending is not None:
        pending.update(ratings)
    else:
        team_ratings_refresh(team_ids=side_of, locked_ratings=ratings)
    hooks.run_result_event(hooks.CONFIRMED, match, actor)
    transaction.on_commit(lambda: _after_confirm(match))


_round = threading.local()


@contextmanager
def results_written_once() -> Iterator[None]:
    """Several results confirmed in one transaction (a simulated round, in which no team plays
    twice): the read model is brought up to date once for all of them when the block ends, not
    after each result: the written hooks (the league table's rows,
    :func:`matches.hooks.results_written_once`) and the teams' stored ratings, from the values
    each result's sequence read under its lock of the team rows. Open it inside the transaction;
    an error leaves both unrun (the transaction it aborts writes nothing). Nested blocks run with
    the outermost."""
    if getattr(_round, "ratings", None) is not None:
        yield
        return
    _round.ratings = {}
    try:
        with hooks.results_written_once():
            yield
        ratings = _round.ratings
    finally:
        _round.ratings = None
    if ratings:
        team_ratings_refresh(team_ids=ratings, locked_ratings=ratings)


def _after_confirm(match: Match) -> None:
    """Hooks outside the sequence (the playoff bracket, then the ratings: registered in
    matches/hooks.py), given the match as this transaction wrote and committed it (not read
    again); failures never undo a confirmed result."""
    try:
        if hooks.confirmed_hooks():
            hooks.run_confirmed(match)
    finally:
        hooks.result_changed(match.pk)


# --- advancements --------------------------------------------------------------------------------


def advancement_options_for(roll: AdvancementRoll) -> list[rules_league.AdvancementOption]:
    return advancement_offer(roll)[0]


def advancement_offer(roll: AdvancementRoll) -> tuple[list[rules_league.AdvancementOption], dict[str, str]]:
    """The options of a pending roll, and the rule text of each keyword offered (the choice's page
    shows it next to the option), from one read of the keywords."""
    ninja = roll.ninja
    line = team_selectors.ninja_line(ninja)
    keywords = {
        name: (category, text) for name, category, text in Keyword.objects.values_list("name", "category", "text")
    }
    options = rules_league.advancement_options(
        roll.faces,
        affinities=line.affinities,
        current_keywords=line.base_keywords + line.gained_keywords,
        keyword_categories={name: category for name, (category, _text) in keywords.items()},
    )
    return options, {o.keyword: keywords[o.keyword][1] for o in options if o.kind == "keyword"}


def option_key(option: rules_league.AdvancementOption) -> str:
    if option.kind == "keyword":
        return f"keyword:{option.keyword}"
    if option.kind == "attribute":
        return f"attribute:{option.attribute}"
    return f"affinity:{option.affinity.value if option.affinity else ''}"


def advancement_enter_faces(*, roll: AdvancementRoll, faces: Sequence[str], actor: User | None) -> AdvancementRoll:
    """Leagues that roll at the table: the player enters the two faces as rolled (once)."""
    valid = {e.value for e in Element}
    if len(faces) != 2 or any(f not in valid for f in faces):
        raise ValidationError("Enter both dice as rolled.")
    with transaction.atomic():
        locked = AdvancementRoll.objects.select_for_update().get(pk=roll.pk)
        if locked.faces:
            raise ValidationError("The dice for this roll are already recorded.")
        locked.faces = list(faces)
        locked.save(update_fields=["faces"])
        if locked.match_id:
            DiceRoll.objects.create(
                match_id=locked.match_id,
                ninja_id=locked.ninja_id,
                purpose=DiceRoll.Purpose.ADVANCEMENT,
                faces=list(faces),
                entered_by_player=True,
            )
    return locked


def advancement_choose(*, roll: AdvancementRoll, choice: str, actor: User | None = None) -> Advancement:
    """Take one option of a pending advancement roll (each chosen advancement is +1 team rating)."""
    with transaction.atomic():
        # The team first (the order the post-game sequence locks in), then the roll.
        team_id = Ninja.objects.filter(advancement_rolls=roll.pk).values_list("team_id", flat=True).first()
        list(Team.objects.select_for_update().filter(pk=team_id).values_list("pk", flat=True))
        locked = (
            AdvancementRoll.objects.select_for_update(of=("self",)).select_related("ninja__profile").get(pk=roll.pk)
        )
        if locked.status != AdvancementRoll.Status.PENDING:
            raise ValidationError("This advancement roll has already been used.")
        if not locked.faces:
            raise ValidationError("Enter the dice first.")
        if locked.ninja.status != Ninja.Status.ACTIVE:
            raise ValidationError(f"{locked.ninja.name} has left the team.")
        options = {option_key(o): o for o in advancement_options_for(locked)}
        option = options.get(choice)
        if option is None:
            raise ValidationError("That is not one of this roll's options.")
        if option.kind == "keyword":
            adv = Advancement(
                ninja=locked.ninja,
                kind=Advancement.Kind.KEYWORD,
                keyword=Keyword.objects.get(name=option.keyword),
                roll=locked,
            )
        elif option.kind == "attribute":
            adv = Advancement(ninja=locked.ninja, kind=option.attribute, roll=locked)
        else:
            adv = Advancement(
                ninja=locked.ninja, kind=Advancement.Kind.AFFINITY, affinity=option.affinity.value, roll=locked
            )
        adv.save()
        locked.status = AdvancementRoll.Status.CHOSEN
        locked.save(update_fields=["status"])
        team_ratings_refresh(team_ids=[locked.ninja.team_id])
    return adv


# --- voiding -------------------------------------------------------------------------------------


def void_refusal(match: Match) -> str | None:
    """Why this result cannot be voided (None when it can).

    A forfeit can always be voided (it changed nothing but the winner's treasury, which the void
    checks): the fixture can then be replayed."""
    if match.status == Match.Status.FORFEITED:
        return None
    if match.status != Match.Status.CONFIRMED:
        return "Only a confirmed result (or a forfeit) can be voided."
    for side in match.sides.select_related("team"):
        later = (
            MatchTeam.objects.filter(
                team_id=side.team_id, match__status__in=[Match.Status.CONFIRMED, *AWAITING_STATUSES]
            )
            .filter(match__sequence_applied_at__gt=match.sequence_applied_at)
            .exclude(match=match)
        )
        if (
            later.exists()
            or MatchTeam.objects.filter(team_id=side.team_id, match__status__in=AWAITING_STATUSES)
            .exclude(match=match)
            .exists()
        ):
            return f"{side.team.name} has played since; only a team's most recent result can be voided."
    return None


def match_void(*, match: Match, actor: User | None, reason: str) -> Match:
    """Void the most recent result of its teams: every effect reversed by compensating rows."""
    if not is_master_of(actor, match) and not getattr(actor, "is_superuser", False):
        raise PermissionDenied("Only the league's ninja master may void a result.")
    reason = text.clean_single_line(reason, field="reason", max_length=200)
    if not reason:
        raise ValidationError("Say why the result is voided.")
    # What voiding writes with update() (the models' XP, availability) belongs to the match's pages.
    with invalidation.changing(("match", match.pk)), transaction.atomic():
        locked = Match.objects.select_for_update().get(pk=match.pk)
        refusal = void_refusal(locked)
        if refusal:
            raise ValidationError(refusal)
        # Treasury: one compensating row per ledger row of the match.
        for entry in list(
            TreasuryEntry.objects.filter(match=locked).exclude(reason=TreasuryEntry.Reason.VOID).order_by("id")
        ):
            try:
                treasury_post(
                    team=entry.team,
                    amount=-entry.amount,
                    reason=TreasuryEntry.Reason.VOID,
                    match=locked,
                    note=f"Reverses: {entry.get_reason_display()}",
                    actor=actor,
                )
            except ValidationError as exc:
                raise ValidationError(
                    f"{entry.team.name} has spent the koban since; the result cannot be voided without a correction first."
                ) from exc
        # XP: compensating negative events.
        for event in list(XpEvent.objects.filter(match=locked, amount__gt=0)):
            XpEvent.objects.create(ninja_id=event.ninja_id, match=locked, amount=-event.amount, reason="Voided result")
            Ninja.objects.filter(pk=event.ninja_id).update(xp=F("xp") - event.amount)
        # Advancements made from the match's rolls are removed; the rolls are marked voided.
        rolls = AdvancementRoll.objects.filter(match=locked)
        Advancement.objects.filter(roll__in=rolls).delete()
        rolls.update(status=AdvancementRoll.Status.VOIDED)
        # Availability and ronin back to how the match found them.
        for side in locked.sides.all():
            for row in side.roster_snapshot or []:
                Ninja.objects.filter(pk=row["id"]).update(
                    misses_games=row["misses_games"], starts_in_healing_house=row["starts_in_healing_house"]
                )
        for decision in UpkeepDecision.objects.filter(match=locked, paid=False):
            Ninja.objects.filter(pk=decision.ninja_id).update(
                status=Ninja.Status.ACTIVE, released_at=None, release_reason=""
            )
        locked.status = Match.Status.VOIDED
        locked.voided_at = timezone.now()
        locked.void_reason = reason
        locked.save(update_fields=["status", "voided_at", "void_reason"])
        hooks.run_result_written(locked)
        team_ratings_refresh(team_ids=locked.sides.values_list("team_id", flat=True))
        transaction.on_commit(lambda: hooks.result_changed(locked.pk))
    return locked
