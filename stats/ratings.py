"""Strength ratings as a service: recomputed from the whole confirmed match history (docs/ratings.md).

``ratings_recompute`` reads every confirmed match, groups the results into rating periods (a round
of a season's schedule; a calendar week for games without a round), rates them with
``ratings.history.rate_history`` (Glicko-2 for two-sided games, Plackett-Luce for tables: 3 or more
sides, and every game of a game rated at tables, ``GameInfo.strength_system``), once with the teams
as subjects and once with their coaches *in each game* (a coach's subject is ``(game, user id)``:
ratings of different games never mix), and writes ``teams.StrengthRating`` rows, each of one game. It is idempotent: the ratings are a function of the history, a
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
from django.db.models import Count, Max, OuterRef, Q, Subquery
from django.utils import timezone

from common import invalidation
from common.bulk import update_rows
from games import registry
from league.models import SeasonEntry
from matches.models import Match, MatchTeam
from ratings import glicko2, multiplayer
from ratings.history import Period, RatedHistory, Result, placements, rate_history
from stats.models import RatingPeriod, RatingsState, RatingStep
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
    #: the periods rated again (from the first that changed to the last)
    rerated: int = 0


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


def _period_key(season_id, stage, round_number, confirmed_at) -> tuple:
    """A match's rating period: its schedule's round, else the calendar week it was confirmed in."""
    if season_id is not None and round_number is not None:
        return ("round", season_id, stage, round_number)
    year, week, _ = timezone.localtime(confirmed_at).isocalendar() if confirmed_at else (0, 0, 0)
    return ("week", year, week)


def _grouped(matches: Iterable[tuple]) -> dict[tuple, list[int]]:
    """{period key: its match ids}, periods in order of their first confirmation, from
    ``(match id, season, stage, round, confirmed at)`` in confirmation order."""
    grouped: dict[tuple, list[int]] = {}
    first_at: dict[tuple, tuple] = {}
    for match_id, season_id, stage, round_number, confirmed_at in matches:
        key = _period_key(season_id, stage, round_number, confirmed_at)
        grouped.setdefault(key, []).append(match_id)
        first_at.setdefault(key, (confirmed_at or timezone.now(), match_id))
    return {key: grouped[key] for key in sorted(grouped, key=lambda k: first_at[k])}


def at_tables(game: str) -> bool:
    """Whether every game of ``game`` is rated as a table (Plackett-Luce), two sides included."""
    return registry.get(game).strength_system == PLACKETT_LUCE


def _periods(rows: Sequence[tuple], entries: Iterable[tuple]) -> tuple[list[Period], list[Period]]:
    """The team periods and the coach periods, in order, from the confirmed sides (ordered by
    confirmation, match and slot: ``SIDE_COLUMNS``) and the season entries (``ENTRY_COLUMNS``).
    A coach is a subject of each game apart: ``(game, user id)``."""
    matches: dict[int, dict] = {}
    for match_id, season_id, stage, round_number, confirmed_at, slot, team_id, owner_id, outcome, points, game in rows:
        match = matches.setdefault(
            match_id,
            {"season": season_id, "stage": stage, "round": round_number, "at": confirmed_at, "sides": []},
        )
        match["sides"].append((slot, team_id, (game, owner_id), outcome, points or 0, game))
    entered: dict[int, tuple[set[int], set[tuple]]] = defaultdict(lambda: (set(), set()))
    for season_id, team_id, owner_id, game in entries:
        entered[season_id][0].add(team_id)
        entered[season_id][1].add((game, owner_id))
    grouped = _grouped((match_id, m["season"], m["stage"], m["round"], m["at"]) for match_id, m in matches.items())
    team_periods, coach_periods = [], []
    for key in grouped:
        team_results, coach_results = [], []
        for match_id in grouped[key]:
            sides = sorted(matches[match_id]["sides"])
            places = placements(tuple(s[4] for s in sides), tuple(s[3] for s in sides))
            table = at_tables(sides[0][5])
            team_results.append(Result(match_id, tuple(s[1] for s in sides), places, table=table))
            owners = tuple(s[2] for s in sides)
            if len(set(owners)) == len(owners):  # a coach meeting themselves rates nothing
                coach_results.append(Result(match_id, owners, places, table=table))
        idle_teams: set[int] = set()
        idle_coaches: set[int] = set()
        if key[0] == "round":
            teams, coaches = entered.get(key[1], (set(), set()))
            idle_teams = teams - {t for r in team_results for t in r.sides}
            idle_coaches = coaches - {c for r in coach_results for c in r.sides}
        team_periods.append(Period(key, tuple(team_results), frozenset(idle_teams)))
        coach_periods.append(Period(key, tuple(coach_results), frozenset(idle_coaches)))
    return team_periods, coach_periods


def _subject_fields(kind: str, subject, team_games: dict[int, str]) -> dict:
    """A subject's StrengthRating fields: a team and its game, or a coach and the game rated."""
    if kind == "coach":
        game, coach_id = subject
        return {"coach_id": coach_id, "game": game}
    return {"team_id": subject, "game": team_games[subject]}


def _wanted(history: RatedHistory, kind: str, team_games: dict[int, str], only=None) -> dict[tuple, dict]:
    """{(subject, system): the StrengthRating fields}; ``team_games``: each team's game; ``only``: the
    subjects wanted (None: every one)."""
    rows = {}
    for subject, r in history.glicko.items():
        if only is not None and subject not in only:
            continue
        rows[(subject, GLICKO2)] = {
            **_subject_fields(kind, subject, team_games),
            "system": GLICKO2,
            "rating": r.rating,
            "deviation": r.rd,
            "volatility": r.volatility,
            "games": history.games.get(subject, 0),
            "last_match_id": history.last_match.get(subject),
        }
    for subject, r in history.tables.items():
        if only is not None and subject not in only:
            continue
        rows[(subject, PLACKETT_LUCE)] = {
            **_subject_fields(kind, subject, team_games),
            "system": PLACKETT_LUCE,
            "rating": r.mu,
            "deviation": r.sigma,
            "volatility": None,
            "games": history.table_games.get(subject, 0),
            "last_match_id": history.last_match.get(subject),
        }
    return rows


FIELDS = ("rating", "deviation", "volatility", "games", "last_match_id", "game")


SIDE_COLUMNS = (
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
    "team__game",
)
#: a season entry as the periods read it: who sat a round out
ENTRY_COLUMNS = ("season_id", "team_id", "team__owner_id", "team__game")


def team_games(rows: Iterable[tuple], entries: Iterable[tuple]) -> dict[int, str]:
    """{team id: its game} from the sides read (``SIDE_COLUMNS``) and the entries (``ENTRY_COLUMNS``):
    every team a run rates is in one or the other."""
    return {row[6]: row[10] for row in rows} | {entry[1]: entry[3] for entry in entries}


#: match ids per query when the sides of some periods are read (the databases' parameter limits)
ID_CHUNK = 500


def _entries_fingerprint(entries: list[tuple]) -> str:
    return hashlib.sha256(repr(sorted(entries)).encode()).hexdigest()


def _start(kind: str, ordinal: int) -> RatedHistory:
    """Each subject's ratings before period ``ordinal``: its last step before it (one query)."""
    last = (
        RatingStep.objects.filter(kind=kind, game=OuterRef("game"), subject=OuterRef("subject"), ordinal__lt=ordinal)
        .order_by("-ordinal")
        .values("ordinal")[:1]
    )
    out = RatedHistory()
    for step in RatingStep.objects.filter(kind=kind, ordinal__lt=ordinal, ordinal=Subquery(last)):
        _load_step(out, step)
    return out


def _load_step(out: RatedHistory, step: RatingStep) -> None:
    s = (step.game, step.subject) if step.kind == RatingStep.Kind.COACH else step.subject
    if step.glicko_rating is not None:
        out.glicko[s] = glicko2.Rating(step.glicko_rating, step.glicko_rd, step.glicko_volatility)
    if step.table_mu is not None:
        out.tables[s] = multiplayer.TableRating(step.table_mu, step.table_sigma)
    if step.games:
        out.games[s] = step.games
    if step.table_games:
        out.table_games[s] = step.table_games
    if step.last_match is not None:
        out.last_match[s] = step.last_match


def _step(kind: str, ordinal: int, subject, out: RatedHistory) -> RatingStep:
    g, t = out.glicko.get(subject), out.tables.get(subject)
    game, subject_id = subject if kind == RatingStep.Kind.COACH else ("", subject)
    return RatingStep(
        ordinal=ordinal,
        kind=kind,
        game=game,
        subject=subject_id,
        glicko_rating=g.rating if g else None,
        glicko_rd=g.rd if g else None,
        glicko_volatility=g.volatility if g else None,
        table_mu=t.mu if t else None,
        table_sigma=t.sigma if t else None,
        games=out.games.get(subject, 0),
        table_games=out.table_games.get(subject, 0),
        last_match=out.last_match.get(subject),
    )


def _sides_of(match_ids: list[int]) -> list[tuple]:
    rows = []
    for i in range(0, len(match_ids), ID_CHUNK):
        rows += MatchTeam.objects.filter(match_id__in=match_ids[i : i + ID_CHUNK]).values_list(*SIDE_COLUMNS)
    rows.sort(key=lambda r: (r[4], r[0], r[5]))  # confirmation, match, slot: the history's order
    return rows


def ratings_recompute(*, force: bool = False) -> Recomputed:
    """Bring every team's and coach's ratings up to date with the confirmed history; idempotent.

    Incremental: the history's periods (each match's period and the periods' order, one light
    query) are compared with the periods last rated (``RatingPeriod``); only the periods from the
    first that differs (a result confirmed or voided in it, a period added) are read and rated
    again, from the ratings each subject had before it (``RatingStep``). The stored ratings are
    those a rating of the whole history gives (tests/stats/test_ratings_incremental.py). A change
    of the season entries (who sat a round out) or ``force`` rates the whole history again."""
    with transaction.atomic():
        state, _ = RatingsState.objects.select_for_update().get_or_create(pk=1)
        fingerprint = history_fingerprint()
        entries = list(SeasonEntry.objects.values_list(*ENTRY_COLUMNS))
        entries_fp = _entries_fingerprint(entries)
        if not force and state.fingerprint == fingerprint and state.entries_fingerprint == entries_fp:
            return Recomputed(state.matches, state.periods, 0, 0, 0, skipped=True)
        light = (
            Match.objects.filter(status=CONFIRMED)
            .order_by("confirmed_at", "id")
            .values_list("id", "season_id", "stage", "round_number", "confirmed_at")
        )
        history = [(repr(key), ids) for key, ids in _grouped(light).items()]
        rated = list(RatingPeriod.objects.order_by("ordinal").values_list("key", "match_ids"))
        start = 0
        if not force and state.entries_fingerprint == entries_fp:
            while start < min(len(history), len(rated)) and tuple(history[start]) == tuple(rated[start]):
                start += 1
        ids = [match_id for _, period_ids in history[start:] for match_id in period_ids]
        rows = (
            _sides_of(ids)
            if start
            else list(
                MatchTeam.objects.filter(match__status=CONFIRMED)
                .order_by("match__confirmed_at", "match_id", "slot")
                .values_list(*SIDE_COLUMNS)
            )
        )
        team_periods, coach_periods = _periods(rows, entries)
        steps: list[RatingStep] = []
        touched: dict[str, set] = {"team": set(), "coach": set()}
        final = {}
        for kind, periods in (("team", team_periods), ("coach", coach_periods)):
            before = _start(kind, start) if start else RatedHistory()

            def on_period(index, subjects, out, kind=kind):
                touched[kind].update(subjects)
                steps.extend(_step(kind, start + index, subject, out) for subject in subjects)

            final[kind] = rate_history(periods, start=before, on_period=on_period)
        # the subjects whose last steps were among the periods rated again
        old_subjects = {
            (kind, (game, subject) if kind == RatingStep.Kind.COACH else subject)
            for kind, game, subject in RatingStep.objects.filter(ordinal__gte=start)
            .values_list("kind", "game", "subject")
            .distinct()
        }
        with invalidation.changing():  # the ratings' bookkeeping: shown on no page
            RatingStep.objects.filter(ordinal__gte=start).delete()
            RatingStep.objects.bulk_create(steps, batch_size=1000)
            RatingPeriod.objects.filter(ordinal__gte=start).delete()
            RatingPeriod.objects.bulk_create(
                RatingPeriod(ordinal=start + i, key=key, match_ids=period_ids)
                for i, (key, period_ids) in enumerate(history[start:])
            )
        affected = old_subjects | {(k, s) for k, subjects in touched.items() for s in subjects}
        games_of = team_games(rows, entries)
        wanted = {}
        for kind in ("team", "coach"):
            rows_for = _wanted(final[kind], kind, games_of, only={s for k, s in affected if k == kind})
            wanted |= {(kind, *k): v for k, v in rows_for.items()}
        existing = {}
        subject_filter = Q(pk__in=[])
        teams = [s for k, s in affected if k == "team"]
        coaches = sorted({s[1] for k, s in affected if k == "coach"})  # every game of theirs read, the affected kept
        for field, ids in (("team_id", teams), ("coach_id", coaches)):
            for i in range(0, len(ids), ID_CHUNK):
                subject_filter |= Q(**{f"{field}__in": ids[i : i + ID_CHUNK]})
        for row in StrengthRating.objects.filter(subject_filter) if affected else []:
            kind, subject = ("team", row.team_id) if row.team_id else ("coach", (row.game, row.coach_id))
            if (kind, subject) in affected:
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
        state.entries_fingerprint = entries_fp
        state.matches = sum(len(period_ids) for _, period_ids in history)
        state.periods = len(history)
        state.computed_at = timezone.now()
        with invalidation.changing():
            state.save()
        return Recomputed(
            state.matches, state.periods, len(created), len(changed), len(stale), rerated=len(history) - start
        )


# --- reads ---------------------------------------------------------------------------------------


#: The reads live in teams.selectors (the scroll, the table and the pre-match sheet use them).
team_ratings = team_selectors.strength_ratings
predicted_chances = team_selectors.predicted_chances


def coach_ratings(user) -> dict[tuple[str, str], StrengthRating]:
    """{(game, system): the coach's rating}: one a game and system, never summed across games."""
    return {(row.game, row.system): row for row in StrengthRating.objects.filter(coach=user)}


def rated_teams(limit: int = 50) -> list[StrengthRating]:
    return list(
        StrengthRating.objects.filter(team__isnull=False, system=GLICKO2)
        .select_related("team", "team__owner")
        .order_by("-rating", "team_id")[:limit]
    )
