"""What other apps do when a match's result is written, without ``matches`` importing them.

Apps above ``matches`` register hooks in their ``AppConfig.ready()``:

* *result written* hooks run inside the transaction that confirms or voids a result (the league's
  read model: the table's stored rows), or once for a batch of results written in one
  transaction; one that fails rolls the whole write back;
* *confirmed* hooks run after that transaction commits (the league's playoff bracket); one that
  fails is logged and never undoes the confirmed result.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matches.models import Match

logger = logging.getLogger(__name__)

Hook = Callable[["Match"], object]
WrittenHook = Callable[[Sequence["Match"]], object]

_confirmed: dict[str, Hook] = {}
_written: dict[str, WrittenHook] = {}
_written_batch = threading.local()


def on_result_written(name: str, hook: WrittenHook) -> None:
    """Register ``hook(matches)`` to run inside the transaction of each confirmation or voiding,
    with the match written (a list of one), or with every match of a :func:`results_written_once`
    batch when it ends."""
    _written[name] = hook


def run_result_written(match: Match) -> None:
    """Run the written hooks on ``match``; inside :func:`results_written_once`, only note it."""
    pending = getattr(_written_batch, "matches", None)
    if pending is not None:
        pending.append(match)
        return
    for hook in list(_written.values()):
        hook([match])


@contextmanager
def results_written_once() -> Iterator[None]:
    """Several results written in one transaction (a round of a simulation job): inside it,
    :func:`run_result_written` only notes each match, and the hooks run once, on all of them, when
    the block ends without an error. Open it inside the transaction (the hooks must run before
    it commits: the league table's rows are written with the results); an error leaves the
    hooks unrun, and the transaction it aborts writes nothing. Nested blocks run with the
    outermost."""
    if getattr(_written_batch, "matches", None) is not None:
        yield
        return
    _written_batch.matches = []
    try:
        yield
        matches = _written_batch.matches
    finally:
        _written_batch.matches = None
    if matches:
        for hook in list(_written.values()):
            hook(matches)


def on_confirmed(name: str, hook: Hook) -> None:
    """Register ``hook`` to run after each confirmation; registering a name again replaces it."""
    _confirmed[name] = hook


def confirmed_hooks() -> dict[str, Hook]:
    return dict(_confirmed)


def run_confirmed(match: Match) -> None:
    """Run every hook on ``match``; one that fails is logged and the others still run."""
    for name, hook in confirmed_hooks().items():
        try:
            hook(match)
        except Exception:
            logger.exception("after-confirm hook %r failed for match %s", name, match.pk)


# --- after commit, on every confirmation or voiding: a callback gets the match id -----------------
# (the ratings in stats: it should only dispatch work, a Celery task)

_changed: dict[str, Callable[[int], object]] = {}


def on_result_changed(name: str, callback: Callable[[int], object]) -> None:
    """Register ``callback`` to run after a result is confirmed or voided (after the commit);
    registering a name again replaces it."""
    _changed[name] = callback


_batch = threading.local()


@contextmanager
def results_changed_once() -> Iterator[None]:
    """A batch of results (a simulation job's matches, each committed on its own): inside it,
    :func:`result_changed` only notes the match, and the callbacks run once when the batch ends
    (also when it ends with an error: the matches committed before it still changed the history),
    with the last match's id. The ratings recomputation reads the whole history, so one run
    after the batch gives what one run per match would have given last. Nested batches flush with
    the outermost."""
    if getattr(_batch, "active", False):
        yield
        return
    _batch.active, _batch.last = True, None
    try:
        yield
    finally:
        last = _batch.last
        _batch.active, _batch.last = False, None
        if last is not None:
            result_changed(last)


def result_changed(match_id: int) -> None:
    """Run every callback (inside :func:`results_changed_once`, once when the batch ends); one that
    fails is logged and the others still run."""
    if getattr(_batch, "active", False):
        _batch.last = match_id
        return
    for name, callback in list(_changed.items()):
        try:
            callback(match_id)
        except Exception:
            logger.exception("result hook %r failed for match %s", name, match_id)


# --- inside the transaction, on each step of a result's life: a hook gets the event ---------------
# (the notifications: who is told that a result waits, was confirmed, rejected or disputed)

#: The events: a result submitted and waiting for confirmation, confirmed (also by the master, by a
#: settled dispute or by a matching second record), sent back (rejected), or disputed.
SUBMITTED, CONFIRMED, REJECTED, DISPUTED = "submitted", "confirmed", "rejected", "disputed"
#: an accepted result waits for a ronin owner's upkeep decision (matches.services._accept_or_wait)
UPKEEP = "upkeep"

ResultEvent = Callable[[str, "Match", object, dict], object]
_events: dict[str, ResultEvent] = {}


def on_result_event(name: str, hook: ResultEvent) -> None:
    """Register ``hook(event, match, actor, extra)`` to run inside the transaction of each step of a
    result's life (``extra``: e.g. ``{"submitted_by_id": ...}`` for a rejection); registering a name
    again replaces it. A hook that fails rolls the step back, so a hook should only write rows."""
    _events[name] = hook


def run_result_event(event: str, match: Match, actor=None, **extra) -> None:
    for hook in list(_events.values()):
        hook(event, match, actor, extra)
