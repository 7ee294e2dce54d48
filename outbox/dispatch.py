"""Dispatch Celery tasks so that a broker outage never breaks a page or loses work.

`dispatch_on_commit(task, ...)` sends the task after the surrounding transaction commits. If the
broker cannot be reached, the failure is logged and the task is stored in the outbox; the
`outbox.redispatch` task (run by beat every ``OUTBOX_REDISPATCH_EVERY`` seconds: league/periodic.py)
or `manage.py redispatch_outbox` sends it again when the broker is back, once. The caller learns whether it went out, so the page can say what is delayed.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

logger = logging.getLogger(__name__)

#: Fail fast when the broker is down instead of hanging the request.
RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
#: Seconds a dispatch may spend learning that the broker cannot be reached.
CONNECT_TIMEOUT = 2.0


def check_broker(app) -> None:
    """Raise at once if the broker cannot be reached.

    Checked before sending because, with Redis down, Celery's Redis result backend retries its
    result subscription inside ``apply_async`` for about twenty seconds before giving up.
    """
    if app.conf.task_always_eager:
        return
    with app.connection_for_write() as conn:
        conn.ensure_connection(
            max_retries=1, interval_start=0, interval_step=0.2, interval_max=0.5, timeout=CONNECT_TIMEOUT
        )


def reset_broker_connections(app=None) -> None:
    """Drop pooled broker connections (after a failure) so the next send connects afresh."""
    from kombu import pools

    if app is None:
        from celery import current_app as app
    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None


#: Errors that say a connection went away (the broker's, Redis', a socket's), as opposed to a
#: task's own. Without a broker (eager), the task runs inside ``apply_async``: only these are the
#: "task queue unavailable" that the outbox waits out; any other error is the task's, and said so.
BROKER_ERRORS: tuple[type[BaseException], ...] = (ConnectionError, TimeoutError, socket.gaierror)
try:
    from kombu.exceptions import OperationalError as KombuOperationalError

    BROKER_ERRORS = (*BROKER_ERRORS, KombuOperationalError)
except ImportError:  # pragma: no cover - kombu comes with Celery
    pass
try:
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    BROKER_ERRORS = (*BROKER_ERRORS, RedisConnectionError, RedisTimeoutError)
except ImportError:  # pragma: no cover - without Redis there is no Redis error
    pass

#: The longest error a page or a job's row shows (its class and message).
ERROR_LENGTH = 300


def describe_error(exc: BaseException) -> str:
    """What happened, for a page or a job's row: the error's class and message, bounded."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return text if len(text) <= ERROR_LENGTH else text[: ERROR_LENGTH - 1] + "…"


class DispatchResult:
    def __init__(self) -> None:
        self.sent: bool | None = None  # None until the transaction commits
        #: what went wrong when it was not the broker (the task ran here and failed), else ""
        self.error = ""

    @property
    def delayed(self) -> bool:
        """Stored in the outbox: the broker could not be reached."""
        return self.sent is False and not self.error

    @property
    def failed(self) -> bool:
        """The task ran here (no broker: eager) and stopped with an error of its own."""
        return bool(self.error)


class TaskFailed(Exception):
    """A task run at once (eager) stopped with an error of its own, not the broker's."""


def _send_or_store(task, *, args: Sequence, kwargs: dict | None, task_id: str | None, description: str) -> bool:
    """Send now (True); on a broker error, store the task in the outbox (False). Raises
    :class:`TaskFailed` when the task ran here and failed for another reason."""
    from outbox.models import OutboxTask

    try:
        check_broker(task.app)
        task.apply_async(args=list(args), kwargs=kwargs or {}, task_id=task_id, retry=True, retry_policy=RETRY_POLICY)
        return True
    except Exception as exc:
        if task.app.conf.task_always_eager and not isinstance(exc, BROKER_ERRORS):
            logger.exception("Task %s failed", task.name)
            raise TaskFailed(describe_error(exc)) from exc
        logger.warning("Could not dispatch %s (%s); stored in the outbox to send later", task.name, exc)
        reset_broker_connections(task.app)
        OutboxTask.objects.create(
            task_name=task.name,
            args=list(args),
            kwargs=kwargs or {},
            task_id=task_id or "",
            description=description[:200],
            last_error=str(exc)[:300],
        )
        return False


def dispatch_now(
    task, *, args: Sequence = (), kwargs: dict | None = None, task_id: str | None = None, description: str = ""
) -> bool:
    """Send now; on a broker error, store the task in the outbox. Returns True when sent (or run
    here, even if it failed: its failure is logged, and recorded by its service)."""
    try:
        return _send_or_store(task, args=args, kwargs=kwargs, task_id=task_id, description=description)
    except TaskFailed:
        return True


def dispatch_on_commit(
    task,
    *,
    args: Sequence = (),
    kwargs: dict | None = None,
    task_id: str | None = None,
    description: str = "",
    on_result: Callable[[bool], Any] | None = None,
) -> DispatchResult:
    result = DispatchResult()

    def send() -> None:
        try:
            result.sent = _send_or_store(task, args=args, kwargs=kwargs, task_id=task_id, description=description)
        except TaskFailed as exc:
            result.sent, result.error = False, str(exc)
        if on_result is not None:
            on_result(result.sent)

    transaction.on_commit(send)
    return result


#: Errors of the stored call itself (arguments the task does not take, values that cannot be
#: serialized), as opposed to the broker's: such a row is marked failed instead of blocking the rest.
UNSENDABLE: tuple[type[BaseException], ...] = (TypeError, ValueError)
try:
    from kombu.exceptions import EncodeError

    UNSENDABLE = (*UNSENDABLE, EncodeError)
except ImportError:  # pragma: no cover - kombu comes with Celery
    pass


def find_task(app, name: str):
    """The task registered under ``name``, importing every installed app's tasks module first: a
    process that only redispatches (``manage.py redispatch_outbox``, a shell) has not imported
    them, and Celery's autodiscovery is lazy (it runs on ``import_default_modules``)."""
    if name not in app.tasks:
        app.loader.import_default_modules()
    return app.tasks.get(name)


def _claim_next(after_id: int):
    """Lock the oldest stored task not claimed by another redispatcher (PostgreSQL:
    ``FOR UPDATE SKIP LOCKED``); None when there is none. Call inside a transaction."""
    from outbox.models import OutboxTask

    return (
        OutboxTask.objects.select_for_update(skip_locked=True)
        .filter(status=OutboxTask.Status.PENDING, id__gt=after_id)
        .order_by("id")
        .first()
    )


def redispatch_pending(limit: int = 100) -> int:
    """Send stored tasks again, oldest first; stop at the first broker failure. Returns how many
    went out.

    Each stored task is sent once: its row is claimed (locked, skipping rows another
    redispatcher holds) and marked sent in the same transaction as the send, so two
    redispatchers running at once (beat's task and the command) never send one row twice. A row
    naming a task that no app defines, or arguments it does not take, is marked failed (with the
    reason) instead of being tried every minute forever and holding up the rows after it.
    """
    from celery import current_app

    from outbox.models import OutboxTask

    sent, last_id = 0, 0
    for _ in range(limit):
        with transaction.atomic():
            item = _claim_next(last_id)
            if item is None:
                break
            last_id = item.id
            task = find_task(current_app, item.task_name)
            if task is None:
                logger.error("Outbox task %s is not registered by any installed app", item.task_name)
                OutboxTask.objects.filter(pk=item.pk).update(
                    status=OutboxTask.Status.FAILED, last_error=f"No installed app defines the task {item.task_name}."
                )
                continue
            try:
                check_broker(task.app)
                task.apply_async(
                    args=item.args,
                    kwargs=item.kwargs,
                    task_id=item.task_id or None,
                    retry=True,
                    retry_policy=RETRY_POLICY,
                )
            except UNSENDABLE as exc:  # the stored call itself is wrong: it never will go out
                logger.error("Outbox task %s %s cannot be sent: %s", item.task_name, item.pk, exc)
                OutboxTask.objects.filter(pk=item.pk).update(
                    status=OutboxTask.Status.FAILED, attempts=item.attempts + 1, last_error=str(exc)[:300]
                )
                continue
            except Exception as exc:  # the broker: keep it, and the rest, for the next round
                OutboxTask.objects.filter(pk=item.pk).update(attempts=item.attempts + 1, last_error=str(exc)[:300])
                reset_broker_connections(task.app)
                break
            OutboxTask.objects.filter(pk=item.pk).update(status=OutboxTask.Status.SENT, sent_at=timezone.now())
            sent += 1
    return sent


def task_state(task_id: str, app=None) -> tuple[str, Any] | None:
    """A task's state and info from the result backend, or None when the backend cannot be read
    (Redis down): progress pages then go by what the database says instead of failing."""
    from celery.result import AsyncResult

    try:
        result = AsyncResult(task_id, app=app)
        return result.state, result.info
    except Exception as exc:
        logger.warning("Could not read the state of task %s (%s)", task_id, exc)
        return None


def is_waiting(task_id: str) -> bool:
    """Whether the task with this id is stored in the outbox, waiting for the broker."""
    from outbox.models import OutboxTask

    return bool(task_id) and OutboxTask.objects.filter(task_id=task_id, status=OutboxTask.Status.PENDING).exists()


def pending_count() -> int:
    from outbox.models import OutboxTask

    return OutboxTask.objects.filter(status=OutboxTask.Status.PENDING).count()
