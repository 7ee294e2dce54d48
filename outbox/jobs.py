"""Long jobs that outlive their worker: heartbeats, detection of a stopped worker, resumption.

A long job (a schedule run, a simulation, a newsletter build) is a row with a Celery task. The
row carries :class:`outbox.models.RecoverableJob`'s fields: ``queued_at`` (its task was last
requested or sent again), ``heartbeat_at`` (the worker's last sign of life: set when it starts
and as it progresses), ``restarts`` and ``restart_note`` (what happened, for its page).

A job is *alive* while something vouches for it within ``JOB_STALE_SECONDS`` (doubled after each
restart): a heartbeat, its request or resend, or the outbox sending its task; or while its row is
locked (a schedule is generated in one transaction that holds the run's row: a live worker, since
PostgreSQL ends a killed worker's session and releases its locks). A job whose task waits in the
outbox is *waiting*: the outbox's redispatch sends it when the broker is back.

``recover_stale_jobs`` (beat, every ``JOB_RECOVERY_EVERY`` seconds) finds unfinished jobs with no
sign of life and sends their task again, with the same task id: every service behind them is
idempotent (a done run returns at once, a played match is skipped, a draft is rewritten), so the
job carries on where it stopped, or starts again, without duplicating anything. After
``JOB_MAX_RESTARTS`` restarts a job that stops again is marked failed with the reason.

The apps register their kinds of job in ``AppConfig.ready()`` (this module sits beneath them all
and imports none of them).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import Max, Q
from django.utils import timezone

from outbox.dispatch import dispatch_on_commit, is_waiting
from outbox.progress import CELERY_WORDS

if TYPE_CHECKING:
    from outbox.progress import Progress, RowProgress

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobKind:
    label: str  # "schedule run"
    model: type[models.Model]
    task: Callable[[], Any]  # returns the Celery task (imported late: tasks import services)
    open: Q  # the unfinished rows
    fail: Callable[[int, str], None]  # marks a job failed with a reason
    task_id_field: str = "task_id"
    # Its progress bar (outbox/progress.py): what the row says, the sentence shown, the JSON's words
    # for its state, what to select with the row, and who may see it (None: anyone).
    progress: Callable[[Any], RowProgress] | None = None
    describe: Callable[[Progress], str] | None = None
    state_words: Mapping[str, str] = field(default_factory=lambda: CELERY_WORDS)
    related: tuple[str, ...] = ()
    may_view: Callable[[Any, Any], bool] | None = None

    def task_id(self, job) -> str:
        return getattr(job, self.task_id_field) or ""


_KINDS: dict[type[models.Model], JobKind] = {}


def register(kind: JobKind) -> None:
    _KINDS[kind.model] = kind


def kinds() -> list[JobKind]:
    return list(_KINDS.values())


def kind_of(model: type[models.Model]) -> JobKind:
    return _KINDS[model]


def kind_labelled(label: str) -> JobKind:
    return next(kind for kind in _KINDS.values() if kind.label == label)


# --- the worker's side: heartbeats -----------------------------------------------------------------

_last_beat: dict[tuple[str, int], float] = {}


def heartbeat(model: type[models.Model], pk: int, *, force: bool = False) -> None:
    """Record a sign of life of job ``pk`` while it is unfinished (at most one write every
    ``JOB_HEARTBEAT_EVERY`` seconds per job and process, unless ``force``). Call it outside any
    transaction, so it commits at once and others see it."""
    key, now = (model._meta.label, pk), time.monotonic()
    if not force and now - _last_beat.get(key, float("-inf")) < settings.JOB_HEARTBEAT_EVERY:
        return
    if len(_last_beat) > 1000:
        _last_beat.clear()
    _last_beat[key] = now
    kind = _KINDS.get(model)
    rows = model.objects.filter(kind.open) if kind is not None else model.objects.all()
    rows.filter(pk=pk).update(heartbeat_at=timezone.now())


# --- liveness ----------------------------------------------------------------------------------------


def _stale_after(job) -> dt.timedelta:
    return dt.timedelta(seconds=settings.JOB_STALE_SECONDS * 2 ** min(job.restarts, 4))


def last_sign_of_life(kind: JobKind, job) -> dt.datetime | None:
    """The latest of: the worker's heartbeat, the job's request or resend, the outbox sending it."""
    from outbox.models import OutboxTask

    task_id = kind.task_id(job)
    sent = OutboxTask.objects.filter(task_id=task_id).aggregate(at=Max("sent_at"))["at"] if task_id else None
    times = [t for t in (job.heartbeat_at, job.queued_at or getattr(job, "created_at", None), sent) if t]
    return max(times) if times else None


def started_since_queued(job) -> bool:
    return job.heartbeat_at is not None and (job.queued_at is None or job.heartbeat_at >= job.queued_at)


def state(kind: JobKind, job, *, now: dt.datetime | None = None, backoff: bool = True) -> str:
    """ "waiting" (its task is in the outbox), "alive" or "stopped". Does not look at row locks:
    :func:`resume_if_stopped` does, under its own lock."""
    now = now or timezone.now()
    if is_waiting(kind.task_id(job)):
        return "waiting"
    last = last_sign_of_life(kind, job)
    limit = _stale_after(job) if backoff else dt.timedelta(seconds=settings.JOB_STALE_SECONDS)
    return "alive" if last is not None and now - last < limit else "stopped"


def _clock(moment: dt.datetime | None) -> str:
    return timezone.localtime(moment).strftime("%H:%M") if moment else "?"


# --- detection and resumption ------------------------------------------------------------------------


def resume_if_stopped(kind: JobKind, pk: int, *, now: dt.datetime | None = None, asked: bool = False) -> str | None:
    """Send job ``pk``'s task again if its worker stopped (no sign of life, row not locked).
    Returns the note written on the job, "gave up" when it was marked failed, or None when the
    job is finished, alive or waiting. ``asked``: a person asked again (no backoff, no limit)."""
    now = now or timezone.now()
    with transaction.atomic():
        job = kind.model.objects.select_for_update(skip_locked=True, of=("self",)).filter(kind.open, pk=pk).first()
        if job is None:
            return None  # finished, or its row is locked by the worker running it
        if state(kind, job, now=now, backoff=not asked) != "stopped":
            return None
        if job.restarts >= settings.JOB_MAX_RESTARTS and not asked:
            error = (
                f"Stopped {job.restarts + 1} times without finishing (last sign of life at "
                f"{_clock(last_sign_of_life(kind, job))}); gave up. Ask again to retry."
            )
            kind.fail(job.pk, error)
            logger.error("%s %s: %s", kind.label, job.pk, error)
            return "gave up"
        if started_since_queued(job):
            note = f"The worker stopped (last heard from at {_clock(job.heartbeat_at)}); resumed at {_clock(now)}."
        else:
            waited = max(1, round((now - (last_sign_of_life(kind, job) or now)).total_seconds() / 60))
            note = f"No worker had started it for {waited} minute{'s' if waited != 1 else ''}; sent again at {_clock(now)}."
        kind.model.objects.filter(pk=job.pk).update(
            restarts=models.F("restarts") + 1, queued_at=now, restart_note=note[:200]
        )
        task_id = kind.task_id(job)
        dispatch_on_commit(
            kind.task(), args=[job.pk], task_id=task_id or None, description=f"Resume {kind.label} {job.pk}"
        )
    logger.warning("%s %s: %s", kind.label, pk, note)
    return note


def recover_stale_jobs(*, now: dt.datetime | None = None, limit: int = 100) -> list[str]:
    """Resume every unfinished job of every kind with no sign of life (what beat runs)."""
    now = now or timezone.now()
    cutoff = now - dt.timedelta(seconds=settings.JOB_STALE_SECONDS)
    outcomes = []
    for kind in kinds():
        quiet = Q(heartbeat_at__isnull=True) | Q(heartbeat_at__lt=cutoff)
        candidates = kind.model.objects.filter(kind.open).filter(quiet).order_by("pk").values_list("pk", flat=True)
        for pk in list(candidates[:limit]):
            try:
                outcome = resume_if_stopped(kind, pk, now=now)
            except Exception:  # one job's trouble does not stop the others
                logger.exception("could not resume %s %s", kind.label, pk)
                continue
            if outcome:
                outcomes.append(f"{kind.label} {pk}: {outcome}")
    return outcomes
