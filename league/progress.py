"""How the league's long jobs show their progress (outbox/progress.py): a schedule run and a
simulation job, each as its row says it and in the sentence its page shows."""

from __future__ import annotations

from django.template.defaultfilters import pluralize
from django.urls import reverse

from league.models import ScheduleRun
from matches.models import SimulationJob
from outbox.progress import DELAYED, DONE, FAILED, PENDING, RUNNING, Progress, RowProgress


def _fixtures_url(season) -> str:
    return reverse("league:season_fixtures", kwargs={"slug": season.league.slug, "number": season.number})


def schedule_progress(run: ScheduleRun) -> RowProgress:
    phase = {ScheduleRun.Status.DONE: DONE, ScheduleRun.Status.FAILED: FAILED}.get(run.status, PENDING)
    return RowProgress(phase=phase, done=run.done, total=run.total, error=run.error, next_url=_fixtures_url(run.season))


def schedule_message(p: Progress) -> str:
    if p.phase == DONE:
        return f"{p.done} fixture{pluralize(p.done)} created."
    if p.phase == FAILED:
        return f"Could not generate: {p.error}"
    if p.delayed:
        return f"{DELAYED} Generation is delayed, not lost: it starts as soon as the task runner is back."
    if p.total:
        return f"{p.done} of {p.total} fixtures…"
    return "Waiting for a worker…"


def simulation_next_url(job: SimulationJob) -> str:
    if job.scope == SimulationJob.Scope.MATCH and job.match_id:
        return job.match.get_absolute_url()
    if job.season_id:
        return _fixtures_url(job.season)
    return job.league.get_absolute_url()


def simulation_progress(job: SimulationJob) -> RowProgress:
    phase = {
        SimulationJob.Status.DONE: DONE,
        SimulationJob.Status.FAILED: FAILED,
        SimulationJob.Status.RUNNING: RUNNING,
    }.get(job.status, PENDING)
    return RowProgress(
        phase=phase,
        done=job.done,
        total=job.total,
        error=job.error,
        note=job.note,
        next_url=simulation_next_url(job),
    )


def simulation_message(p: Progress) -> str:
    matches = f"{p.done} match{pluralize(p.done, 'es')}"
    if p.phase == DONE:
        return f"{matches} simulated." + (f" {p.note}" if p.note else "")
    if p.phase == FAILED:
        return f"The simulation stopped after {matches}: {p.error}"
    if p.delayed:
        return f"{DELAYED} The simulation is delayed, not lost: it starts as soon as the task runner is back."
    if p.phase == RUNNING and p.total:
        return f"{p.done} of {p.total} matches…"
    return "Waiting for a worker…"
