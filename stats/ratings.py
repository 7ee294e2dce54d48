"""Strength ratings as a service: recomputed from the whole confirmed match history (docs/ratings.md).

``ratings_recompute`` reads every confirmed match, groups the results into rating periods (a round
of a season's schedule; a calendar week for games without a round), rates them with
``ratings.history.rate_history`` (Glicko-2 for two-team matches, Plackett-Luce for 3- and 4-team
ones), once with the teams as subjects and once with their coaches, and writes
``teams.StrengthRating`` rows. It is idempotent: the ratings are a function of the history, a
rerun on the same history writes nothing, and runs are serialised by a row lock so the last one
always reads the latest history. It runs in a Celery task after every confirmed or voided result
(``stats.apps``: a hook registered with matches.hooks).

Reads for the pages (``ratings_for_teams``, ``predicted_chances``) live here too.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from common.bulk import update_rows
from league.models import SeasonEntry
from matches.models import Match, MatchTeam
from ratings.history import Period, RatedHistory, Result, placements, rate_history
from stats.models import RatingsState
from teams import selectors as team_selectors
from teams.models import StrengthRating

CONFIRMED = Match.Status.CONFIRMED
GLICKO2, PLACKETT_LUCE = StrengthRating.System.GLICKO2, StrengthRating.System.PLACKETT_LUCE


@dataclass(frozen=True)
class Recomputed:
    matches: int
    periods: int
    created: int
    updated: int
    deleted: int
    skipped: bool = False


def history_fingerprint() -> str:
    """Which history the ratings would come from: the confirmed matches' count and ids, the last
    confirmation and the last void, in one query."""
    summary = Match.objects.filter(status__in=[CONFIRMED, Match.Status.VOIDED]).aggregate(
        confirmed=Count("id", filter=Q(status=CONFIRMED)),
        last_id=Max("id"),
        last_confirmed=Max("confirmed_at"),
        last_voided=Max("voided_at"),
    )
    return hashlib.sha256(repr(sorted(summary.items())).encode()).hexdigest()


def _periods(rows: Sequence[tuple], entries: Iterable[tuple[int, int, int]]) -> tuple[list[Period], list[Period]]:
    """The team periods and the coach periods, in order, from the confirmed sides (ordered by
    confirmation, match and slot) and the season entries ``(season, team, owner)``."""
    matches: dict[int, dict] = {}
    for match_id, season_id, stage, round_number, confirmed_at, slot, team_id, owner_id, outcome, points in rows:
        match = matches.setdefault(
            match_id,
            {"season": season_id, "stage": stage, "round": round_number, "at": confirmed_at, "sides": []},
        )
        match["sides"].append((slot, team_id, owner_id, outcome, points or 0))
    entered: dict[int, tuple[set[int], set[int]]] = defaultdict(lambda: (set(), set()))
    for season_id, team_id, owner_id in entries:
        entered[season_id][0].add(team_id)
        entered[season_id][1].add(owner_id)
    grouped: dict[tuple, list[int]] = {}
    first_at: dict[tuple, tuple] = {}
    for match_id, m in matches.items():
        if m["season"] is not None and m["round"] is not None:
            key = ("round", m["season"], m["stage"], m["round"])
        else:
            year, week, _ = timezone.localtime(m["at"]).isocalendar() if m["at"] else (0, 0, 0)
            key = ("week", year, week)
        grouped.setdefault(key, []).append(match_id)
        first_at.setdefault(key, (m["at"] or timezone.now(), match_id))
    team_periods, coach_periods = [], []
    for key in sorted(grouped, key=lambda k: first_at[k]):
        team_results, coach_results = [], []
        for match_id in grouped[key]:
            sides = sorted(matches[match_id]["sides"])
            places = placements(tuple(s[4] for s in sides), tuple(s[3] for s in sides))
            team_results.append(Result(match_id, tuple(s[1] for s in sides), places))
            owners = tuple(s[2] for s in sides)
            if len(set(owners)) == len(owners):  # a coach meeting themselves rates nothing
                coach_results.append(Result(match_id, owners, places))
        idle_teams: set[int] = set()
        idle_coaches: set[int] = set()
        if key[0] == "round":
            teams, coaches = entered.get(key[1], (set(), set()))
            idle_teams = teams - {t for r in team_results for t in r.sides}
            idle_coaches = coaches - {c for r in coach_results for c in r.sides}
        team_periods.append(Period(key, tuple(team_results), frozenset(idle_teams)))
        coach_periods.append(Period(key, tuple(coach_results), frozenset(idle_coaches)))
    return team_periods, coach_periods


def _wanted(history: RatedHistory, field: str) -> dict[tuple, dict]:
    rows = {}
    for subject, r in history.glicko.items():
        rows[(subject, GLICKO2)] = {
            field: subject,
            "system": GLICKO2,
            "rating": r.rating,
            "deviation": r.rd,
            "volatility": r.volatility,
            "games": history.games.get(subject, 0),
            "last_match_id": history.last_match.get(subject),
        }
    for subject, r in history.tables.items():
        rows[(subject, PLACKETT_LUCE)] = {
            field: subject,
            "system": PLACKETT_LUCE,
            "rating": r.mu,
            "deviation": r.sigma,
            "volatility": None,
            "games": history.table_games.get(subject, 0),
            "last_match_id": history.last_match.get(subject),
        }
    return rows


FIELDS = ("rating", "deviation", "volatility", "games", "last_match_id")


def ratings_recompute(*, force: bool = False) -> Recomputed:
    """Recompute every team's and coach's ratings from the confirmed history; idempotent."""
    with transaction.atomic():
        state, _ = RatingsState.objects.select_for_update().get_or_create(pk=1)
        fingerprint = history_fingerprint()
        if not force and state.fingerprint == fingerprint:
            return Recomputed(state.matches, state.periods, 0, 0, 0, skipped=True)
        rows = list(
            MatchTeam.objects.filter(match__status=CONFIRMED)
            .order_by("match__confirmed_at", "match_id", "slot")
            .values_list(
                "match_id",
                "match__season_id",
                "match__stage",
                "match__round_number",
                "match__confirmed_at",
                "slot",
                "team_id",
                "team__owner_id",
                "outcome",
                "points",
            )
        )
        entries = SeasonEntry.objects.values_list("season_id", "team_id", "team__owner_id")
        team_periods, coach_periods = _periods(rows, entries)
        wanted = {("team", *k): v for k, v in _wanted(rate_history(team_periods), "team_id").items()}
        wanted |= {("coach", *k): v for k, v in _wanted(rate_history(coach_periods), "coach_id").items()}
        existing = {}
        for row in StrengthRating.objects.all():
            kind, subject = ("team", row.team_id) if row.team_id else ("coach", row.coach_id)
            existing[(kind, subject, row.system)] = row
        created = [StrengthRating(**values) for key, values in wanted.items() if key not in existing]
        changed = []
        for key, row in existing.items():
            values = wanted.get(key)
            if values is None:
                continue
            if any(getattr(row, f) != values[f] for f in FIELDS):
                for f in FIELDS:
                    setattr(row, f, values[f])
                changed.append(row)
        stale = [row.pk for key, row in existing.items() if key not in wanted]
        StrengthRating.objects.bulk_create(created)
        if changed:
            update_rows(StrengthRating, changed, [*FIELDS, "updated_at"])
        if stale:
            StrengthRating.objects.filter(pk__in=stale).delete()
        state.fingerprint = fingerprint
        state.matches = len({r[0] for r in rows})
        state.periods = len(team_periods)
        state.computed_at = timezone.now()
        state.save()
        return Recomputed(state.matches, state.periods, len(created), len(changed), len(stale))


# --- reads ---------------------------------------------------------------------------------------


#: The reads live in teams.selectors (the scroll, the table and the pre-match sheet use them).
team_ratings = team_selectors.strength_ratings
predicted_chances = team_selectors.predicted_chances


def coach_ratings(user) -> dict[str, StrengthRating]:
    return {row.system: row for row in StrengthRating.objects.filter(coach=user)}


def rated_teams(limit: int = 50) -> list[StrengthRating]:
    return list(
        StrengthRating.objects.filter(team__isnull=False, system=GLICKO2)
        .select_related("team", "team__owner")
        .order_by("-rating", "team_id")[:limit]
    )
