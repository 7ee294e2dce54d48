"""What the project's long Celery tasks share: retry on database errors, late acknowledgement
(safe because every service behind a task is idempotent), and progress reported as task state."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError

from outbox.dispatch import describe_error

T = TypeVar("T")

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


def run_job(
    task,
    service: Callable[[], T],
    *,
    fail: Callable[[str], None],
    any_error: bool = False,
    max_retries: int = MAX_RETRIES,
) -> T:
    """Run a job's service inside its task. A database error is raised again (the task retries it)
    and, once the retries are spent, the job is marked failed with ``fail(reason)``; with
    ``any_error``, any other error marks it failed at once (a bug must not leave a job "running",
    which would block new requests)."""
    try:
        return service()
    except DB_ERRORS as exc:
        if task.request.retries >= max_retries:
            fail(f"Gave up after {max_retries} retries: {exc}")
        raise
    except Exception as exc:
        if any_error:
            fail(describe_error(exc))
        raise
