"""What the project's long Celery tasks share: retry on database errors, late acknowledgement
(safe because every service behind a task is idempotent), and progress reported as task state."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError

from outbox.dispatch import BROKER_ERRORS, describe_error

T = TypeVar("T")

logger = logging.getLogger(__name__)

MAX_RETRIES = 3
DB_ERRORS = (OperationalError, InterfaceError)
#: The broker, Redis or the database went away: what a job is resumed after, not failed by.
GONE_AWAY = (*DB_ERRORS, *BROKER_ERRORS)

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
) -> T:
    """Run a job's service inside its task. A database error is raised again (the task retries it).
    An error saying the broker or the database went away (``GONE_AWAY``) never marks the job
    failed, even once the retries are spent: the job is left unfinished, as one whose worker died,
    and the periodic recovery resumes it when it shows no more sign of life, at most
    ``JOB_MAX_RESTARTS`` times (outbox/jobs.py). With ``any_error``, any other error marks it failed
    at once, saying what happened (a bug must not leave a job "running", which would block new
    requests)."""
    try:
        return service()
    except GONE_AWAY as exc:
        logger.warning("%s stopped, to be resumed: %s", task.name, describe_error(exc))
        raise
    except Exception as exc:
        if any_error:
            fail(describe_error(exc))
        raise
