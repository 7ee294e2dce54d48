"""Schedule runs: what may be generated next, the request (idempotent: one run per season, kind
and round), and the generation itself, which the Celery task runs with a stored seed."""

from __future__ import annotations

import datetime as dt
import random
import secrets
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, NamedTuple

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from games import tables as game_tables
from league import hooks, readmodel, scheduling, selectors
from league.models import BracketSlot, Bye, Round, ScheduleRun, Season, SeasonEntry
from league.services.fixtures import fixture_create
from league.services.seasons import mark_running
from matches.models import REGULAR_STAGE, Match, MatchTeam
from outbox import jobs
from ratings import glicko2
from rules.models import Challenge
from teams.models import Team

if TYPE_CHECKING:
    from django.contrib.auth.models import User

Progress = Callable[[int, int], None]


FORMAT_KIND = {
    Season.Format.ROUND_ROBIN: ScheduleRun.Kind.ROUND_ROBIN,
    Season.Format.DOUBLE_ROUND_ROBIN: ScheduleRun.Kind.ROUND_ROBIN,
    Season.Format.RANDOM_WEEKLY: ScheduleRun.Kind.RANDOM_WEEKLY,
    Season.Format.SWISS: ScheduleRun.Kind.SWISS,
    Season.Format.TABLES: ScheduleRun.Kind.TABLES,
    Season.Format.SWISS_TABLES: ScheduleRun.Kind.SWISS_TABLES,
}

#: Kinds that seat players at tables of 3 to 5 (games.tables).
TABLE_KINDS = (ScheduleRun.Kind.TABLES, ScheduleRun.Kind.SWISS_TABLES)


#: schedule_next's reason when a round robin's fixtures exist (the season page says it is made).
SCHEDULE_MADE = "The season already has fixtures."


def schedule_next(season: Season, kind: str) -> tuple[int, list[str]]:
    """The round a new run of ``kind`` would generate, and every reason it may not (empty: it may)."""
    problems: list[str] = []
    if season.is_finished:
        return 0, ["The season is over."]
    entries = season.entries.count()
    if kind == ScheduleRun.Kind.PLAYOFF:
        game = season.league.game_site
        if game.tables:
            # docs/leagues.md, "Season formats by game": the bracket pairs two sides a game.
            return 1, [f"A {game.name} season has no playoffs: the league table after the last round decides."]
        if season.playoff_teams < 2:
            problems.append("This season has no playoffs.")
        if entries < 2:
            problems.append("A playoff needs at least two teams.")
        # The regular season must exist before it is over: "every fixture decided" holds of none
        # (issue 27, item 3).
        if not season.matches.regular().exists():
            problems.append("The season has no regular-season fixtures yet: generate and play them first.")
        elif season.matches.regular().open().exists():
            problems.append("Every regular-season fixture must be played (or voided) before the playoffs.")
        return 1, problems
    if FORMAT_KIND.get(season.format) != kind:
        return 0, [f"A {season.get_format_display().lower()} season has no {kind.replace('_', ' ')} schedule."]
    if kind in TABLE_KINDS:
        if entries < game_tables.MIN_SIZE:
            problems.append(
                f"At least {game_tables.MIN_SIZE} players must be entered "
                f"(a table seats {game_tables.MIN_SIZE} to {game_tables.MAX_SIZE})."
            )
    elif entries < 2:
        problems.append("At least two teams must be entered.")
    if season.schedule_runs.filter(kind=ScheduleRun.Kind.PLAYOFF).exists():
        problems.append("The playoffs have started.")
    if kind == ScheduleRun.Kind.ROUND_ROBIN:
        if season.matches.regular().exists():
            problems.append(SCHEDULE_MADE)
        return 0, problems
    last = season.schedule_runs.filter(kind=kind).aggregate(n=Max("round_number"))["n"] or 0
    if (
        last
        and season.schedule_runs.filter(kind=kind, round_number=last).exclude(status=ScheduleRun.Status.DONE).exists()
    ):
        problems.append(f"Round {last} is still being generated.")
    if season.matches.regular().open().exists():
        problems.append(f"Every fixture of round {last} must be played (or voided) first.")
    if kind == ScheduleRun.Kind.SWISS and season.swiss_rounds and last >= season.swiss_rounds:
        problems.append(f"All {season.swiss_rounds} swiss rounds have been paired.")
    if kind in TABLE_KINDS and season.swiss_rounds and last >= season.swiss_rounds:
        problems.append(f"All {season.swiss_rounds} rounds of tables have been seated.")
    return last + 1, problems


def schedule_request(
    *,
    season: Season,
    kind: str,
    round_number: int | None = None,
    challenge: Challenge | None = None,
    actor: User | None = None,
    seed: int | None = None,
    starts_on=None,
    deadline=None,
    interval_days: int = 7,
) -> ScheduleRun:
    """Record a request to generate fixtures; the caller dispatches the task after commit.

    Idempotent: asking again for a round that already has a run returns that run (a failed run
    is reset to be tried again). ``round_number`` is the round the page offered (so a double
    submission asks for the same round); ``None`` means the next one.
    """
    if kind not in ScheduleRun.Kind.values:
        raise ValidationError(f"Unknown schedule kind {kind!r}.")
    if challenge is not None and not season.league.game_site.challenges:
        raise ValidationError({"challenge": f"{season.league.get_game_display()} has no challenges."})
    _check_dates(starts_on, deadline)
    if not 1 <= interval_days <= 365:
        raise ValidationError({"interval_days": "Between 1 and 365 days."})
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=season.pk)
        expected, problems = schedule_next(season, kind)
        wanted = expected if round_number is None else round_number
        existing = ScheduleRun.objects.select_for_update().filter(season=season, kind=kind, round_number=wanted).first()
        if existing is not None:
            if existing.status == ScheduleRun.Status.FAILED:
                existing.status = ScheduleRun.Status.PENDING
                existing.task_id = str(uuid.uuid4())
                existing.error = ""
                existing.queued_at, existing.restarts, existing.restart_note = timezone.now(), 0, ""
                existing.save(update_fields=["status", "task_id", "error", "queued_at", "restarts", "restart_note"])
            return existing
        if problems:
            raise ValidationError(problems)
        if wanted != expected:
            raise ValidationError(f"The next round to generate is round {expected}, not {wanted}.")
        run = ScheduleRun.objects.create(
            season=season,
            kind=kind,
            round_number=wanted,
            task_id=str(uuid.uuid4()),
            seed=secrets.randbits(63) if seed is None else seed,
            challenge=challenge,
            requested_by=actor if getattr(actor, "pk", None) else None,
            queued_at=timezone.now(),
            starts_on=starts_on,
            deadline=deadline,
            interval_days=interval_days,
        )
        mark_running(season)
    return run


def _seeded_team_ids(season: Season, rng: random.Random) -> list[int]:
    """Entries in seed order; unseeded entries are drawn at random after the seeded ones (and keep
    the seed they got)."""
    entries = list(season.entries.order_by("seed", "id"))
    seeded = sorted((e for e in entries if e.seed is not None), key=lambda e: (e.seed, e.id))
    unseeded = [e for e in entries if e.seed is None]
    rng.shuffle(unseeded)
    ordered = seeded + unseeded
    for i, entry in enumerate(ordered, start=1):
        entry.seed = i
    SeasonEntry.objects.bulk_update(ordered, ["seed"])
    return [e.team_id for e in ordered]


# A plan: fixtures (round, home id, away id, reason, bracket slot or None) and byes (round, team, reason).
Planned = tuple[int, int, int, str, BracketSlot | None]


class PlannedTable(NamedTuple):
    """A planned table (a game of 3 to 5 sides): its players in seat order (slots 1..n)."""

    round_number: int
    sides: tuple[int, ...]
    reason: str


def _sides_of(planned: Planned | PlannedTable) -> Sequence[int]:
    return planned.sides if isinstance(planned, PlannedTable) else planned[1:3]


def _tables_played(season: Season) -> list[tuple[int, ...]]:
    """Every regular-season game (not voided) as the tuple of its sides' team ids, slot order."""
    sides: dict[int, list[int]] = {}
    for match_id, team_id in (
        MatchTeam.objects.filter(match__in=Match.objects.filter(season=season).regular())
        .order_by("match_id", "slot")
        .values_list("match_id", "team_id")
    ):
        sides.setdefault(match_id, []).append(team_id)
    return [tuple(t) for t in sides.values()]


def _history(season: Season) -> list[frozenset]:
    """Every regular-season meeting (not voided), once per game: in a table season, every pair of
    players who sat at a table together."""
    if season.is_tables:
        return [frozenset(pair) for table in _tables_played(season) for pair in combinations(table, 2)]
    sides: dict[int, list[int]] = {}
    for match_id, team_id in MatchTeam.objects.filter(
        match__in=Match.objects.filter(season=season).regular()
    ).values_list("match_id", "team_id"):
        sides.setdefault(match_id, []).append(team_id)
    return [frozenset(t) for t in sides.values() if len(t) == 2]


def _plan_round_robin(run: ScheduleRun, season: Season, rng: random.Random):
    ids = _seeded_team_ids(season, rng)
    cycles = 2 if season.format == Season.Format.DOUBLE_ROUND_ROBIN else 1
    fixtures, byes = [], []
    for rnd in scheduling.round_robin(ids, cycles=cycles):
        for pairing in rnd.pairings:
            fixtures.append((rnd.number, pairing.home, pairing.away, "", None))
        if rnd.bye is not None:
            byes.append((rnd.number, rnd.bye, f"bye: odd number of {season.league.game_info.entrants}"))
    return fixtures, byes


def _plan_weekly(run: ScheduleRun, season: Season, rng: random.Random):
    teams = list(Team.objects.filter(season_entries__season=season).order_by("id").values_list("id", "owner_id"))
    ids = [t for t, _ in teams]
    byes = Counter(Bye.objects.filter(season=season, stage=REGULAR_STAGE).values_list("team_id", flat=True))
    try:
        rnd = scheduling.random_weekly_round(
            ids, owners=dict(teams), history=_history(season), rng=rng, byes=byes, number=run.round_number
        )
    except ValueError as exc:
        raise ValidationError(str(exc)) from exc
    fixtures = [(rnd.number, p.home, p.away, "random draw", None) for p in rnd.pairings]
    bye = [(rnd.number, rnd.bye, "bye: fewest byes so far")] if rnd.bye is not None else []
    return fixtures, bye


def swiss_standings(season: Season, table: list[selectors.TableRow]) -> list[scheduling.SwissEntry]:
    """The order Swiss pairing works from: the table's, or (house rule ``swiss_order``) league
    points, then the strength rating (Glicko-2's r; a team not rated yet counts as a new one)."""
    if season.swiss_order == Season.SwissOrder.STRENGTH:
        table = sorted(
            table,
            key=lambda r: (-r.points, -(r.strength.rating if r.strength else glicko2.INITIAL_RATING), r.position),
        )
    return [scheduling.SwissEntry(team_id=r.team.pk, score=r.points, rank=i) for i, r in enumerate(table, start=1)]


def _plan_swiss(run: ScheduleRun, season: Season, rng: random.Random):
    table = selectors.league_table(season)
    standings = swiss_standings(season, table)
    byes_had = set(Bye.objects.filter(season=season, stage=REGULAR_STAGE).values_list("team_id", flat=True))
    rnd = scheduling.swiss_round(standings, history=_history(season), byes_had=byes_had)
    fixtures = []
    for p in rnd.pairings:
        reason = p.reason + ("; rematch (unavoidable)" if p.rematch else "")
        fixtures.append((run.round_number, p.home, p.away, reason, None))
    byes = [(run.round_number, rnd.bye, rnd.bye_reason or "bye")] if rnd.bye is not None else []
    return fixtures, byes


def _plan_playoffs(run: ScheduleRun, season: Season, rng: random.Random):
    table = selectors.league_table(season)
    seeded = [row.team.pk for row in table[: season.playoff_teams]]
    fixtures, byes = [], []
    for bm in scheduling.playoff_bracket(seeded):
        slot = BracketSlot(
            season=season,
            round_number=1,
            slot=bm.slot,
            home_id=bm.home,
            away_id=bm.away,
            home_seed=bm.home_seed,
            away_seed=bm.away_seed,
            winner_id=bm.home if bm.is_bye else None,
        )
        if bm.is_bye:
            slot.save()
            byes.append((1, bm.home, f"bye: seed {bm.home_seed} goes through"))
        else:
            fixtures.append((1, bm.home, bm.away, f"seed {bm.home_seed} v seed {bm.away_seed}", slot))
    return fixtures, byes


def _repeat_note(table: game_tables.Table) -> str:
    if not table.repeats:
        return ""
    return f"; {table.repeats} {'pair meets' if table.repeats == 1 else 'pairs meet'} again (the fewest found)"


def _table_plan(run: ScheduleRun, rnd: game_tables.TableRound, reason, bye_reason: str):
    fixtures = [PlannedTable(run.round_number, t.players, reason(t) + _repeat_note(t)) for t in rnd.tables]
    byes = [(run.round_number, team_id, bye_reason) for team_id in rnd.byes]
    return fixtures, byes


def _regular_byes(season: Season) -> Counter:
    return Counter(Bye.objects.filter(season=season, stage=REGULAR_STAGE).values_list("team_id", flat=True))


def _plan_tables(run: ScheduleRun, season: Season, rng: random.Random):
    """One round of tables (games.tables.table_round): the season's players seated at tables of 3
    to 5 with as few pairs meeting again as the search finds, given every table played so far.
    Players in team id order, so the run's stored seed replays the same tables."""
    ids = sorted(season.entries.values_list("team_id", flat=True))
    rnd = game_tables.table_round(
        ids, history=_tables_played(season), rng=rng, byes=_regular_byes(season), number=run.round_number
    )
    return _table_plan(
        run,
        rnd,
        lambda t: f"table of {len(t.players)}",
        f"bye: {len(ids)} players cannot all sit at tables of {game_tables.MIN_SIZE} to {game_tables.MAX_SIZE}; "
        "fewest byes so far",
    )


def _plan_swiss_tables(run: ScheduleRun, season: Season, rng: random.Random):
    """One round of swiss tables (games.tables.swiss_tables): tables formed down the league table
    (its order, or points then strength under the house rule ``swiss_order``), avoiding players
    who have met. Deterministic: the seed is not drawn."""
    order = [e.team_id for e in swiss_standings(season, selectors.league_table(season))]
    place = {team_id: i for i, team_id in enumerate(order, start=1)}
    rnd = game_tables.swiss_tables(
        order, history=_tables_played(season), byes=_regular_byes(season), number=run.round_number
    )

    def reason(table: game_tables.Table) -> str:
        places = sorted(place[p] for p in table.players)
        return f"by standing: places {places[0]}-{places[-1]}"

    return _table_plan(
        run,
        rnd,
        reason,
        f"bye: {len(order)} players cannot all sit at tables of {game_tables.MIN_SIZE} to {game_tables.MAX_SIZE}; "
        "lowest placed with the fewest byes",
    )


PLANNERS = {
    ScheduleRun.Kind.ROUND_ROBIN: _plan_round_robin,
    ScheduleRun.Kind.RANDOM_WEEKLY: _plan_weekly,
    ScheduleRun.Kind.SWISS: _plan_swiss,
    ScheduleRun.Kind.PLAYOFF: _plan_playoffs,
    ScheduleRun.Kind.TABLES: _plan_tables,
    ScheduleRun.Kind.SWISS_TABLES: _plan_swiss_tables,
}


def write_plan(
    *,
    run: ScheduleRun,
    season: Season,
    fixtures: list[Planned | PlannedTable],
    byes,
    rng: random.Random,
    progress: Progress | None = None,
) -> list[Match]:
    """Write a plan's fixtures (two-sided ones, or tables of 3 to 5 sides) and byes."""
    teams = Team.objects.in_bulk({t for f in fixtures for t in _sides_of(f)})
    challenges = {c.name: c for c in Challenge.objects.all()}
    total = len(fixtures)
    made = []
    for i, planned in enumerate(fixtures, start=1):
        if isinstance(planned, PlannedTable):
            match = fixture_create(
                season=season,
                round_number=planned.round_number,
                sides=[teams[t] for t in planned.sides],
                rng=rng,
                stage=run.stage,
                pairing_reason=planned.reason,
            )
        else:
            round_number, home, away, reason, slot = planned
            match = fixture_create(
                season=season,
                round_number=round_number,
                home=teams[home],
                away=teams[away],
                challenge=run.challenge,
                rng=rng,
                stage=run.stage,
                pairing_reason=reason,
                challenges=challenges,
            )
            if slot is not None:
                slot.match = match
                slot.save()
        made.append(match)
        if progress is not None:
            progress(i, total)
    Bye.objects.bulk_create(
        [Bye(season=season, stage=run.stage, round_number=r, team_id=t, reason=reason) for r, t, reason in byes]
    )
    if byes and run.stage == REGULAR_STAGE and readmodel.counts_bye_points(season):
        readmodel.standings_refresh(season=season, team_ids=[t for _r, t, _reason in byes])  # a bye scores
    hooks.fixtures_created(made)
    return made


def schedule_generate(*, run_id: int, progress: Progress | None = None) -> ScheduleRun:
    """Generate the fixtures of one run (what the Celery task calls). Safe to run twice.

    The season row is locked for the whole generation; a run already done returns at once; a
    run whose round already has fixtures is only marked done. A schedule that cannot be made
    (e.g. only teams of the same player left) marks the run failed with the reason.
    """
    # A sign of life before the long transaction (during it, the run's row lock is one).
    jobs.heartbeat(ScheduleRun, run_id, force=True)
    try:
        with transaction.atomic():
            run = ScheduleRun.objects.only("season_id").get(pk=run_id)
            season = Season.objects.select_for_update(of=("self",)).select_related("league").get(pk=run.season_id)
            run = ScheduleRun.objects.select_for_update(of=("self",)).select_related("challenge").get(pk=run_id)
            if run.status == ScheduleRun.Status.DONE:
                return run
            existing = season.matches.filter(stage=run.stage).exclude(status=Match.Status.VOIDED)
            if run.kind != ScheduleRun.Kind.ROUND_ROBIN:
                existing = existing.filter(round_number=run.round_number)
            if run.kind == ScheduleRun.Kind.PLAYOFF:
                if BracketSlot.objects.filter(season=season, round_number=run.round_number).exists():
                    return run_done(run, existing.count())
            elif existing.exists():
                return run_done(run, existing.count())
            rng = random.Random(run.seed)
            fixtures, byes = PLANNERS[run.kind](run, season, rng)
            run.total = len(fixtures)
            write_plan(run=run, season=season, fixtures=fixtures, byes=byes, rng=rng, progress=progress)
            _write_round_dates(run, season, {f[0] for f in fixtures} | {b[0] for b in byes})
            mark_running(season)
            return run_done(run, len(fixtures))
    except ValidationError as exc:
        error = "; ".join(exc.messages)[:300]
        ScheduleRun.objects.filter(pk=run_id).update(status=ScheduleRun.Status.FAILED, error=error)
        return ScheduleRun.objects.get(pk=run_id)


def run_done(run: ScheduleRun, count: int) -> ScheduleRun:
    run.status = ScheduleRun.Status.DONE
    run.total = run.done = count
    run.finished_at = timezone.now()
    run.error = ""
    run.save(update_fields=["status", "total", "done", "finished_at", "error"])
    return run


def schedule_run_failed(*, run_id: int, error: str) -> None:
    """Record that a run gave up (the task ran out of retries)."""
    ScheduleRun.objects.filter(pk=run_id).exclude(status=ScheduleRun.Status.DONE).update(
        status=ScheduleRun.Status.FAILED, error=error[:300]
    )


def _check_dates(starts_on, deadline) -> None:
    if starts_on and deadline and deadline < starts_on:
        raise ValidationError({"deadline": "The deadline cannot come before the start."})


def _write_round_dates(run: ScheduleRun, season: Season, round_numbers: Collection[int]) -> None:
    """The dates the master gave the schedule run, on each round it made: round robin rounds
    follow one another ``interval_days`` apart."""
    if run.starts_on is None and run.deadline is None:
        return
    first = min(round_numbers, default=0)
    rows = []
    for number in sorted(round_numbers):
        shift = dt.timedelta(days=run.interval_days * (number - first))
        rows.append(
            Round(
                season=season,
                stage=run.stage,
                round_number=number,
                starts_on=run.starts_on + shift if run.starts_on else None,
                deadline=run.deadline + shift if run.deadline else None,
            )
        )
    Round.objects.bulk_create(rows, ignore_conflicts=True)
