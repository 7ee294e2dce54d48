"""Celery tasks for leagues: thin wrappers that take ids and call one service.

Dispatch after commit (``transaction.on_commit``). The service behind each task is idempotent
(a ScheduleRun is unique per season, kind and round, and a done run is never run again), so the
task is acknowledged late and may be redelivered or retried safely.
"""
from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from league import services

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
def schedule_generate_task(self, run_id: int) -> dict:
    """Generate the fixtures of ScheduleRun ``run_id``, reporting progress as task state."""

    def progress(done: int, total: int) -> None:
        if self.request.id and not self.request.is_eager:
            self.update_state(state="PROGRESS", meta={"done": done, "total": total})

    try:
        run = services.schedule_generate(run_id=run_id, progress=progress)
    except (OperationalError, InterfaceError) as exc:
        if self.request.retries >= MAX_RETRIES:
            services.schedule_run_failed(run_id=run_id, error=f"Gave up after {MAX_RETRIES} retries: {exc}")
        raise
    return {"run": run.pk, "status": run.status, "done": run.done, "total": run.total, "error": run.error}
