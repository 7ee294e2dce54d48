"""Celery tasks for statistics: thin, idempotent (the service recomputes from the history)."""

from __future__ import annotations

from celery import shared_task

from outbox.tasks_common import IDEMPOTENT_TASK
from stats import ratings


@shared_task(**IDEMPOTENT_TASK, name="stats.ratings_recompute")
def ratings_recompute_task(self, match_id: int | None = None) -> dict:
    """Recompute every strength rating from the confirmed history (``match_id``: the result that
    asked for it, for the logs). A rerun on an unchanged history writes nothing."""
    done = ratings.ratings_recompute()
    return {
        "match": match_id,
        "matches": done.matches,
        "periods": done.periods,
        "created": done.created,
        "updated": done.updated,
        "deleted": done.deleted,
        "skipped": done.skipped,
    }
