"""Celery tasks for leagues: thin wrappers that take ids and call one service.

Dispatch after commit (``transaction.on_commit``). The service behind each task is idempotent
(a ScheduleRun is unique per season, kind and round, and a done run is never run again; a finished
simulation job returns at once, each round is one transaction and a played match is skipped), so
the task is acknowledged late and may be redelivered or retried safely: it carries on where it stopped.
"""

from __future__ import annotations

from celery import shared_task

from league import balance, services
from league.services import simulations, upkeep
from outbox.tasks_common import IDEMPOTENT_TASK, progress_reporter, run_job


@shared_task(**IDEMPOTENT_TASK)
def schedule_generate_task(self, run_id: int) -> dict:
    """Generate the fixtures of ScheduleRun ``run_id``, reporting progress as task state."""
    run = run_job(
        self,
        lambda: services.schedule_generate(run_id=run_id, progress=progress_reporter(self)),
        fail=lambda error: services.schedule_run_failed(run_id=run_id, error=error),
    )
    return {"run": run.pk, "status": run.status, "done": run.done, "total": run.total, "error": run.error}


# Named as it was when it lived in matches/tasks.py: queued messages, outbox rows and the recovery
# of stopped jobs know it by this name.
@shared_task(name="matches.tasks.simulation_job_task", **IDEMPOTENT_TASK)
def simulation_job_task(self, job_id: int) -> dict:
    """Run SimulationJob ``job_id`` (one fixture, a round or the rest of a season), reporting
    progress as task state: ``PROGRESS`` with ``{"done": matches played, "total": matches}``."""
    job = run_job(
        self,
        lambda: simulations.simulation_job_run(job_id=job_id, progress=progress_reporter(self)),
        fail=lambda error: simulations.simulation_job_failed(job_id=job_id, error=error),
        any_error=True,
    )
    return {
        "job": job.pk,
        "status": job.status,
        "done": job.done,
        "total": job.total,
        "error": job.error,
        "note": job.note,
    }


@shared_task(**IDEMPOTENT_TASK)
def balance_study_task(self, study_id: int) -> dict:
    """Run BalanceStudy ``study_id`` (league.balance), reporting ``PROGRESS`` with done/total games."""
    study = run_job(
        self,
        lambda: balance.balance_study_run(study_id=study_id, progress=progress_reporter(self)),
        fail=lambda error: balance.balance_study_failed(study_id=study_id, error=error),
        any_error=True,
    )
    return {"study": study.pk, "status": study.status, "done": study.done, "total": study.total}


@shared_task(name="league.upkeep_defaults", acks_late=True, autoretry_for=(OSError,), max_retries=3)
def upkeep_defaults_task() -> int:
    """Periodic (beat, league/periodic.py): the house rule decides the upkeep nobody decided by
    the fixture's deadline (league.services.upkeep)."""
    return upkeep.upkeep_defaults_apply()
