"""Simulating a fixture, a round or the rest of a season: the master's request (a
:class:`~matches.models.SimulationJob`) and what the Celery task runs.

:func:`simulation_request` records the request; :func:`simulation_job_run` is what the task runs,
one round per transaction (:func:`matches.simulation.simulate_batch`: the matches in which no team
plays twice), so a retried task carries on where it stopped. A season's job generates the rounds still to come (weekly, swiss, the round robin
when none exists) and the playoffs through the schedule services, which is why it lives in the league
app: ``matches`` simulates one fixture and knows nothing of seasons' schedules.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from common import invalidation
from common.collector import fewer_collections
from games.registry import DEFAULT, game_of
from games.tables import MIN_SIZE, table_sizes
from league.models import League, ScheduleRun, Season
from league.services.playoffs import playoffs_advance
from league.services.schedules import (
    FORMAT_KIND,
    TABLE_KINDS,
    Progress,
    schedule_generate,
    schedule_next,
    schedule_request,
)
from matches import hooks, services
from matches.models import REGULAR_STAGE, Match, SimulationJob
from matches.simulation import AUTO, POLICIES, derived_seed, independent_batches, simulate_batch
from outbox import jobs
from teams.permissions import is_league_master

if TYPE_CHECKING:
    from django.contrib.auth.models import User

OPEN = (SimulationJob.Status.PENDING, SimulationJob.Status.RUNNING)


def next_round(season: Season) -> tuple[str, int | None] | None:
    """The round "simulate this round" plays: the earliest (stage, round) with a scheduled
    fixture (regular season first, then the playoff rounds); None when nothing is scheduled."""
    first = season.matches.scheduled().values("stage", "round_number").first()
    return (first["stage"], first["round_number"]) if first else None


def default_weekly_rounds(season: Season) -> int:
    return max(1, season.entries.count() - 1)


def _asked_again(job: SimulationJob) -> SimulationJob:
    """A request for a fixture or season with an unfinished job: the job, with
    ``job.request_outcome`` saying what became of the request. The job is refused as "under way"
    only while it is really alive ("running"); a job whose worker stopped (no sign of life for
    JOB_STALE_SECONDS) is resumed now ("resumed"); one whose task waits in the outbox for the
    broker is "waiting" (beat sends it when the broker is back)."""
    kind = jobs.kind_of(SimulationJob)
    outcome = jobs.state(kind, job, backoff=False)
    if outcome == "stopped" and jobs.resume_if_stopped(kind, job.pk, asked=True):
        job.refresh_from_db()
        outcome = "resumed"
    # "alive", or "stopped" but its row locked by a worker after all: under way.
    job.request_outcome = outcome if outcome in ("resumed", "waiting") else "running"
    return job


def simulation_unavailable(league: League) -> str:
    """Why a league's game cannot be simulated yet (its simulator comes with issue 17's later
    parts); empty when it can."""
    game = game_of(league)
    return "" if game.can_simulate else f"Simulation is not yet available for {game.name}."


def _refuse_without_simulator(league: League) -> None:
    if refusal := simulation_unavailable(league):
        raise ValidationError(refusal)


def simulation_request(
    *,
    actor: User | None,
    scope: str,
    policy: str = AUTO,
    match: Match | None = None,
    season: Season | None = None,
    max_rounds: int | None = None,
    seed: int | None = None,
) -> tuple[SimulationJob, bool]:
    """Record the master's request; the caller dispatches :func:`league.tasks.simulation_job_task`
    after commit when the job is new. Asking again while a job for the same fixture (or season) is
    unfinished returns that job, resumed if its worker stopped (see :func:`_asked_again`).
    Returns (job, created)."""
    if policy not in POLICIES:
        raise ValidationError(f"Unknown simulation policy {policy!r}.")
    if scope not in SimulationJob.Scope.values:
        raise ValidationError(f"Unknown simulation scope {scope!r}.")
    with transaction.atomic():
        if scope == SimulationJob.Scope.MATCH:
            if match is None:
                raise ValidationError("Which fixture?")
            match = Match.objects.select_for_update(of=("self",)).select_related("league", "season").get(pk=match.pk)
            if not services.is_master_of(actor, match):
                raise PermissionDenied("Only the league's ninja master may simulate a fixture.")
            if match.league_id is not None:
                _refuse_without_simulator(match.league)
            existing = SimulationJob.objects.filter(match=match, scope=scope, status__in=OPEN).first()
            if existing is not None:
                return _asked_again(existing), False
            if match.status != Match.Status.SCHEDULED:
                raise ValidationError(f"This match is already {match.get_status_display().lower()}.")
            if match.kicked_off_at is None and not services.players_game(match):
                problems = services.kick_off_roster_messages(services.kick_off_roster_problems(match))
                problems += services.kick_off_blocker_messages(services.kick_off_blockers(match))
                if problems:
                    raise ValidationError(problems)
            fields = {
                "league_id": match.league_id,
                "season_id": match.season_id,
                "match": match,
                "round_number": match.round_number,
            }
        else:
            if season is None:
                raise ValidationError("Which season?")
            season = Season.objects.select_for_update(of=("self",)).select_related("league").get(pk=season.pk)
            if not is_league_master(actor, season.league):
                raise PermissionDenied("Only the league's ninja master may simulate the season.")
            _refuse_without_simulator(season.league)
            existing = SimulationJob.objects.filter(season=season, scope__in=SEASON_SCOPES, status__in=OPEN).first()
            if existing is not None:
                return _asked_again(existing), False
            if season.is_finished:
                raise ValidationError("The season is over.")
            if scope == SimulationJob.Scope.REGULAR and season.bracket_slots.exists():
                raise ValidationError("The playoffs have started: the regular season is over.")
            fields = {"league_id": season.league_id, "season": season}
            if scope == SimulationJob.Scope.ROUND:
                current = next_round(season)
                if current is None:
                    raise ValidationError("No fixture is waiting to be played: generate the next round first.")
                fields["stage"], fields["round_number"] = current
            elif season.format == Season.Format.RANDOM_WEEKLY:
                fields["max_rounds"] = max_rounds or default_weekly_rounds(season)
        try:
            with transaction.atomic():
                job = SimulationJob.objects.create(
                    scope=scope,
                    policy=policy,
                    seed=secrets.randbits(62) if seed is None else seed,
                    task_id=str(uuid.uuid4()),
                    requested_by=actor if getattr(actor, "pk", None) else None,
                    queued_at=timezone.now(),
                    **fields,
                )
        except IntegrityError:  # pragma: no cover - the row locks above serialise requests
            raise ValidationError("A simulation is already running here.") from None
    return job, True


#: The jobs of a season: one at a time.
SEASON_SCOPES = (SimulationJob.Scope.ROUND, SimulationJob.Scope.SEASON, SimulationJob.Scope.REGULAR)


def offers_regular_season(season: Season, *, bracket: bool | None = None) -> bool:
    """Whether "the rest of the regular season" means less than "the rest of the season": the
    season has playoffs, not started yet (``bracket``: whether its bracket exists, if the caller
    knows already)."""
    if season.playoff_teams < 2:
        return False
    return not (season.bracket_slots.exists() if bracket is None else bracket)


def simulation_job_failed(*, job_id: int, error: str) -> None:
    SimulationJob.objects.filter(pk=job_id).exclude(status=SimulationJob.Status.DONE).update(
        status=SimulationJob.Status.FAILED, error=error[:300], finished_at=timezone.now()
    )


class _Runner:
    """Plays a job's matches a round (one transaction) at a time, keeping the progress record in step."""

    def __init__(self, job: SimulationJob, progress: Progress | None) -> None:
        self.job = job
        self.progress = progress
        self.done = job.runs.count()  # a retried job counts what it already played
        self.total = max(job.total, self.done)
        # The game's batch simulator: All-Stars' rules engine, or a players' game's strength model
        # (which reads the players' ratings once for the job: its Game's ``simulation_context``).
        game = game_of(job.league.game if job.league_id else DEFAULT)
        self.game_batch = None  # All-Stars: this module's simulate_batch (the game's), looked up when called
        if not game.team_scrolls:
            self.game_batch = partial(game.simulate_batch, **game.simulation_context())

    def report(self, total: int | None = None) -> None:
        """Send the progress to the task; a new total is also written to the job row (``done``
        is counted there by each match, in its round's transaction)."""
        if total is not None and max(total, self.done) != self.total:
            self.total = max(total, self.done)
            with invalidation.changing():  # a job's progress: shown on no cached page
                SimulationJob.objects.filter(pk=self.job.pk).update(total=self.total)
        if self.progress is not None:
            self.progress(self.done, self.total)
        jobs.heartbeat(SimulationJob, self.job.pk)  # throttled: one write every few seconds

    def play(self, matches: Iterable[Match]) -> int:
        """Play the matches in their order, a transaction for each run of them in which no team
        plays twice (a round), reporting the progress after each; a team that cannot kick off
        stops the job (:class:`matches.services.KickOffBlocked`) after what was played."""
        played = 0
        for batch in independent_batches(list(matches)):
            runs, blocked = (self.game_batch or simulate_batch)(
                batch,
                seeds={m.pk: derived_seed(self.job.seed, f"match:{m.pk}") for m in batch},
                actor=self.job.requested_by,
                policy=self.job.policy,
                job=self.job,
            )
            played += len(runs)
            self.done += len(runs)
            if runs:
                self.report()
            if blocked is not None:
                raise blocked
        return played


def _scheduled(season: Season, **filters):
    return season.matches.scheduled().filter(**filters)


def _season_remaining(job: SimulationJob, season: Season) -> int:
    """Matches still to simulate in the rest of the season: scheduled ones plus an estimate of the
    rounds still to generate (the progress bar's total)."""
    n = season.entries.count()
    per_round = n // 2
    remaining = _scheduled(season).count()
    kind = FORMAT_KIND.get(season.format)
    regular = season.matches.regular()
    last = season.schedule_runs.filter(kind=kind).aggregate(n=Max("round_number"))["n"] or 0
    if kind == ScheduleRun.Kind.ROUND_ROBIN and not regular.exists():
        remaining += n * (n - 1) // 2 * (2 if season.format == Season.Format.DOUBLE_ROUND_ROBIN else 1)
    elif kind == ScheduleRun.Kind.RANDOM_WEEKLY:
        remaining += max(0, (job.max_rounds or default_weekly_rounds(season)) - last) * per_round
    elif kind == ScheduleRun.Kind.SWISS:
        remaining += max(0, (season.swiss_rounds or 0) - last) * per_round
    elif kind in TABLE_KINDS:
        # a round seats everyone at tables of 3 to 5: as many tables as games.tables would lay
        tables = len(table_sizes(n)) if n >= MIN_SIZE else 0
        remaining += max(0, (season.swiss_rounds or 0) - last) * tables
    if job.scope != SimulationJob.Scope.REGULAR and season.playoff_teams >= 2 and not season.bracket_slots.exists():
        remaining += min(season.playoff_teams, n) - 1
    return remaining


def _generate(season: Season, kind: str, round_number: int, job: SimulationJob) -> ScheduleRun:
    run = schedule_request(
        season=season,
        kind=kind,
        round_number=round_number,
        actor=job.requested_by,
        seed=derived_seed(job.seed, f"schedule:{kind}:{round_number}"),
    )
    run = schedule_generate(run_id=run.pk)
    if run.status == ScheduleRun.Status.FAILED:
        raise ValidationError(f"Could not generate {run}: {run.error}")
    return run


def _run_season(job: SimulationJob, runner: _Runner) -> str:
    """Play every scheduled fixture, generating the next rounds (weekly, swiss) or the whole round
    robin when none exists, then the playoffs if the season has them (not for "the rest of the
    regular season"). Returns why it stopped."""
    season = job.season
    kind = FORMAT_KIND.get(season.format)
    while True:
        season.refresh_from_db()
        if season.is_finished:
            return "The season is over."
        runner.report(runner.done + _season_remaining(job, season))
        regular = list(_scheduled(season, stage=REGULAR_STAGE))
        if regular:
            runner.play(regular)
            continue
        if kind is None:
            break  # self-arranged: only the fixtures the players arranged
        regular_exists = season.matches.regular().exists()
        if kind == ScheduleRun.Kind.ROUND_ROBIN and regular_exists:
            break
        round_number, problems = schedule_next(season, kind)
        if problems:
            if (
                kind in (ScheduleRun.Kind.SWISS, *TABLE_KINDS)
                and season.swiss_rounds
                and round_number > season.swiss_rounds
            ):
                break
            return "Stopped: " + " ".join(problems)
        if kind == ScheduleRun.Kind.RANDOM_WEEKLY and round_number > (job.max_rounds or default_weekly_rounds(season)):
            break
        _generate(season, kind, round_number, job)
    if season.playoff_teams < 2:
        return "Every round of the season is played."
    if job.scope == SimulationJob.Scope.REGULAR:
        return "Every round of the regular season is played; the playoffs are yours to start."
    if not season.bracket_slots.exists():
        _, problems = schedule_next(season, ScheduleRun.Kind.PLAYOFF)
        if problems:
            return "Regular season played; playoffs not started: " + " ".join(problems)
        _generate(season, ScheduleRun.Kind.PLAYOFF, 1, job)
    while True:
        playoffs_advance(season=season)  # idempotent; also run after each confirmation
        playoff = [m for m in _scheduled(season) if m.stage != REGULAR_STAGE]
        runner.report(runner.done + _scheduled(season).count())
        if not playoff:
            return "Every round of the season and the playoffs are played."
        runner.play(playoff)


def _play_job(job: SimulationJob, runner: _Runner) -> str:
    """Play what the job asks for; returns why it stopped ("" when there is nothing to say)."""
    if job.scope == SimulationJob.Scope.MATCH:
        runner.report(runner.done + (1 if job.match.status == Match.Status.SCHEDULED else 0))
        runner.play([job.match])
    elif job.scope == SimulationJob.Scope.ROUND:
        matches = list(_scheduled(job.season, stage=job.stage, round_number=job.round_number))
        runner.report(runner.done + len(matches))
        runner.play(matches)
        if job.stage != REGULAR_STAGE:
            playoffs_advance(season=job.season)
    else:
        return _run_season(job, runner)
    return ""


def simulation_job_run(*, job_id: int, progress: Progress | None = None) -> SimulationJob:
    """Run a job (what the Celery task calls). Safe to run again: a done job returns at once, each
    round is one transaction and a played match is skipped."""
    job = SimulationJob.objects.select_related("league", "season", "season__league", "match", "requested_by").get(
        pk=job_id
    )
    if job.is_finished:
        return job
    SimulationJob.objects.filter(pk=job.pk, status=SimulationJob.Status.PENDING).update(
        status=SimulationJob.Status.RUNNING
    )
    jobs.heartbeat(SimulationJob, job.pk, force=True)
    runner = _Runner(job, progress)
    note = ""
    try:
        # What follows each result after its commit (the strength ratings' recomputation from the
        # whole history) runs once for the job's matches, when it stops, not once per match.
        # The simulator's many short-lived objects: the cyclic collector runs less often meanwhile.
        with hooks.results_changed_once(), fewer_collections():
            note = _play_job(job, runner)
    except services.KickOffBlocked as exc:
        # The simulator never makes a choice left to the players: it stops where a team waits for one.
        note = "Stopped: " + " ".join(exc.messages)
    except ValidationError as exc:
        simulation_job_failed(job_id=job.pk, error="; ".join(exc.messages))
        return SimulationJob.objects.get(pk=job.pk)
    SimulationJob.objects.filter(pk=job.pk).update(
        status=SimulationJob.Status.DONE,
        done=runner.done,
        total=runner.done,
        note=note[:300],
        finished_at=timezone.now(),
        error="",
    )
    job.refresh_from_db()
    if progress is not None:
        progress(job.done, job.total)
    return job
