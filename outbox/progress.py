"""One progress stack for every long job (a schedule run, a simulation, a newsletter build).

A kind of job registered in :mod:`outbox.jobs` says how its row reads (``progress``: a
:class:`RowProgress`) and what its page says (``describe``). This module merges that with what the
task reports while it runs (its ``PROGRESS`` state meta in the result backend) and with the outbox
(a task waiting for the broker is *delayed*), and gives one :class:`Progress`:

* :func:`progress_of` for a page (no result-backend read: a page never waits on Redis);
* :func:`status_json` for the one status view (``outbox.views.task_status``), which the page's
  script (``static/js/progress.js``) polls; the page shows it with ``includes/_progress.html``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from outbox.dispatch import is_waiting, task_state

PENDING, RUNNING, DONE, FAILED = "pending", "running", "done", "failed"
#: The JSON's ``state`` in Celery's words (the schedule and simulation pages' since their first day).
CELERY_WORDS: Mapping[str, str] = {PENDING: "PENDING", RUNNING: "PROGRESS", DONE: "SUCCESS", FAILED: "FAILURE"}
#: ``state`` as the row's own words (the newsletter build's).
ROW_WORDS: Mapping[str, str] = {p: p for p in (PENDING, RUNNING, DONE, FAILED)}

DELAYED = "Waiting for the task runner: it cannot be reached just now."


class JobKind(Protocol):
    """What this module needs of a kind of job (outbox.jobs.JobKind has it)."""

    progress: Callable[[Any], RowProgress] | None
    describe: Callable[[Progress], str] | None
    state_words: Mapping[str, str]

    def task_id(self, job: Any) -> str: ...


@dataclass(frozen=True)
class RowProgress:
    """What a job's row says of its progress."""

    phase: str  # pending, running, done, failed
    done: int = 0
    total: int = 0
    percent: int | None = None  # the row's own figure, where it keeps one
    step: str = ""
    error: str = ""
    note: str = ""
    next_url: str = ""


@dataclass(frozen=True)
class Progress(RowProgress):
    """The row's progress with the task's and the outbox's, and the sentence the page shows."""

    delayed: bool = False  # the task waits in the outbox for the broker
    task_state: str | None = None  # the result backend's word, when it was read
    message: str = ""

    @property
    def finished(self) -> bool:
        return self.phase in (DONE, FAILED)

    @property
    def width(self) -> int:
        """The bar's width class (progress-w-N): full once finished, never under 5."""
        return 100 if self.finished else max(5, min(100, self.percent or 0))


def _percent(phase: str, done: int, total: int, own: int | None) -> int:
    if phase == DONE:
        return 100
    ratio = min(100, int(100 * done / total)) if total else 0
    return max(ratio, own or 0)


def progress_of(kind: JobKind, row: Any, *, live: bool = False, app=None) -> Progress:
    """The job's progress. ``live``: also read the task's state from the result backend (the
    status view does; a page does not)."""
    own = kind.progress(row)
    phase, done, total, step, seen = own.phase, own.done, own.total, own.step, None
    delayed = False
    task_id = kind.task_id(row)
    if phase in (PENDING, RUNNING):
        if is_waiting(task_id):
            delayed = True
        elif live and app is not None and not app.conf.task_always_eager:  # eager runs keep no result
            found = task_state(task_id, app=app)  # None when the result backend is unreachable
            if found is not None:
                seen, info = found
                if seen == "PROGRESS" and isinstance(info, dict):
                    phase = RUNNING
                    done, total = max(done, info.get("done", 0)), max(total, info.get("total", 0))
                    step = info.get("step") or step
    merged = Progress(
        **{**dataclasses.asdict(own), "phase": phase, "done": done, "total": total, "step": step},
        delayed=delayed,
        task_state=seen,
    )
    merged = dataclasses.replace(merged, percent=_percent(phase, done, total, own.percent))
    return dataclasses.replace(merged, message=kind.describe(merged))


def status_json(kind: JobKind, row: Any, *, app=None) -> dict:
    """What the status view answers (the page's script reads ``phase``, ``percent``, ``message``
    and ``next_url``; ``state`` keeps each kind's words for older clients)."""
    p = progress_of(kind, row, live=True, app=app)
    return {
        "task_id": kind.task_id(row),
        "state": kind.state_words[p.phase],
        "phase": p.phase,
        "done": p.done,
        "total": p.total,
        "percent": p.percent,
        "ready": p.finished,
        "step": p.step,
        "error": p.error,
        "note": p.note,
        "delayed": p.delayed,
        "task_state": p.task_state,
        "message": p.message,
        "next_url": p.next_url,
    }
