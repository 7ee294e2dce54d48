"""What the project's long Celery tasks share: retry on database errors, late acknowledgement
(safe because every service behind a task is idempotent), and progress reported as task state."""

from __future__ import annotations

from collections.abc import Callable

from django.db import InterfaceError, OperationalError

MAX_RETRIES = 3
DB_ERRORS = (OperationalError, InterfaceError)

#: Options for `@shared_task(**IDEMPOTENT_TASK)`: bounded retries with backoff on database errors.
IDEMPOTENT_TASK = {
    "bind": True,
    "acks_late": True,
    "max_retries": MAX_RETRIES,
    "autoretry_for": DB_ERRORS,
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "retry_jitter": True,
}


def progress_reporter(task) -> Callable[..., None]:
    """`progress(done, total, **extra)` sets the task's PROGRESS state (not in eager mode)."""

    def progress(done: int, total: int, **extra) -> None:
        if task.request.id and not task.request.is_eager:
            task.update_state(state="PROGRESS", meta={"done": done, "total": total, **extra})

    return progress
