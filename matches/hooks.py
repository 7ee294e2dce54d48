"""After-commit hooks on results, for apps above matches (the ratings in stats): they register a
callback in ``AppConfig.ready()``, so matches never imports them (as outbox/jobs.py does for jobs).

A callback gets the match id once a result is confirmed or voided, after the transaction
committed. It should only dispatch work (a Celery task); a failing callback is logged and never
undoes the result or stops the other callbacks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)

_RESULT_CHANGED: dict[str, Callable[[int], None]] = {}


def on_result_changed(name: str, callback: Callable[[int], None]) -> None:
    """Register ``callback`` under ``name`` (registering a name again replaces it)."""
    _RESULT_CHANGED[name] = callback


def result_changed(match_id: int) -> None:
    for name, callback in list(_RESULT_CHANGED.items()):
        try:
            callback(match_id)
        except Exception:
            logger.exception("result hook %s failed for match %s", name, match_id)
