"""Celery tasks for matches: thin wrappers that take ids and call one service.

Dispatched after commit through outbox.dispatch (a broker outage stores the task to send later).
The service behind the task is idempotent (a finished job returns at once; each match is its own
transaction and a played match is skipped), so the task is acknowledged late and may be redelivered
or retried: it carries on where it stopped.
"""
from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from matches import simulation

MAX_RETRIES = 3


@shared_task(
    bind=True,
    acks_late=True,
    max_retries=MAX_RETRIES,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
)
def simulation_job_task(self, job_id: int) -> dict:
    """Run SimulationJob ``job_id`` (one fixture, a round or the rest of a season), reporting
    progress as task state: ``PROGRESS`` with ``{"done": matches played, "total": matches}``."""

    def progress(done: int, total: int) -> None:
        if self.request.id and not self.request.is_eager:
            self.update_state(state="PROGRESS", meta={"done": done, "total": total})

    try:
        job = simulation.simulation_job_run(job_id=job_id, progress=progress)
    except (OperationalError, InterfaceError) as exc:
        if self.request.retries >= MAX_RETRIES:
            simulation.simulation_job_failed(job_id=job_id, error=f"Gave up after {MAX_RETRIES} retries: {exc}")
        raise
    except Exception as exc:  # a bug must not leave the job "running" (it would block new requests)
        simulation.simulation_job_failed(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
        raise
    return {"job": job.pk, "status": job.status, "done": job.done, "total": job.total, "error": job.error,
            "note": job.note}
