"""Celery tasks for leagues: thin wrappers that take ids and call one service.

Dispatch after commit (``transaction.on_commit``). The service behind each task is idempotent
(a ScheduleRun is unique per season, kind and round, and a done run is never run again), so the
task is acknowledged late and may be redelivered or retried safely.
"""

from __future__ import annotations

from celery import shared_task

from league import services
from outbox.tasks_common import DB_ERRORS, IDEMPOTENT_TASK, MAX_RETRIES, progress_reporter


@shared_task(**IDEMPOTENT_TASK)
def schedule_generate_task(self, run_id: int) -> dict:
    """Generate the fixtures of ScheduleRun ``run_id``, reporting progress as task state."""
    try:
        run = services.schedule_generate(run_id=run_id, progress=progress_reporter(self))
    except DB_ERRORS as exc:
        if self.request.retries >= MAX_RETRIES:
            services.schedule_run_failed(run_id=run_id, error=f"Gave up after {MAX_RETRIES} retries: {exc}")
        raise
    return {"run": run.pk, "status": run.status, "done": run.done, "total": run.total, "error": run.error}
