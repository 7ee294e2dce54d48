"""How a newsletter's build shows its progress (outbox/progress.py)."""

from __future__ import annotations

from newsletters.models import Newsletter
from newsletters.permissions import can_manage
from outbox.progress import DELAYED, FAILED, Progress, RowProgress


def build_progress(newsletter: Newsletter) -> RowProgress:
    # The build's statuses are the progress phases' words (pending, running, done, failed).
    return RowProgress(
        phase=newsletter.build_status,
        percent=newsletter.build_progress,
        step=newsletter.build_step,
        error=newsletter.build_error,
        next_url=newsletter.get_absolute_url(),
    )


def build_message(p: Progress) -> str:
    if p.phase == FAILED:
        return f"Could not write the draft: {p.error}"
    if p.delayed:
        return f"{DELAYED} The draft is delayed, not lost: it is written as soon as the task runner is back."
    return p.step or "Waiting for a worker…"


def may_view(user, newsletter: Newsletter) -> bool:
    """A draft's progress is the league master's (as the draft itself)."""
    return can_manage(user, newsletter.league)
