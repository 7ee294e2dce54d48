"""Celery tasks for matches: thin wrappers that take ids and call one service.

Dispatched after commit through outbox.dispatch (a broker outage stores the task to send later).
The service behind the task is idempotent (a finished job returns at once; each match is its own
transaction and a played match is skipped), so the task is acknowledged late and may be redelivered
or retried: it carries on where it stopped.
"""

from __future__ import annotations

from celery import shared_task

from matches import simulation
from outbox.tasks_common import DB_ERRORS, IDEMPOTENT_TASK, MAX_RETRIES, progress_reporter


@shared_task(**IDEMPOTENT_TASK)
def simulation_job_task(self, job_id: int) -> dict:
    """Run SimulationJob ``job_id`` (one fixture, a round or the rest of a season), reporting
    progress as task state: ``PROGRESS`` with ``{"done": matches played, "total": matches}``."""
    try:
        job = simulation.simulation_job_run(job_id=job_id, progress=progress_reporter(self))
    except DB_ERRORS as exc:
        if self.request.retries >= MAX_RETRIES:
            simulation.simulation_job_failed(job_id=job_id, error=f"Gave up after {MAX_RETRIES} retries: {exc}")
        raise
    except Exception as exc:  # a bug must not leave the job "running" (it would block new requests)
        simulation.simulation_job_failed(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
        raise
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
    """Run BalanceStudy ``study_id`` (matches.balance), reporting ``PROGRESS`` with done/total games."""
    from matches import balance

    try:
        study = balance.balance_study_run(study_id=study_id, progress=progress_reporter(self))
    except DB_ERRORS as exc:
        if self.request.retries >= MAX_RETRIES:
            balance.balance_study_failed(study_id=study_id, error=f"Gave up after {MAX_RETRIES} retries: {exc}")
        raise
    except Exception as exc:  # a bug must not leave the study "running"
        balance.balance_study_failed(study_id=study_id, error=f"{type(exc).__name__}: {exc}")
        raise
    return {"study": study.pk, "status": study.status, "done": study.done, "total": study.total}
