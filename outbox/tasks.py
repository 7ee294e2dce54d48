from celery import shared_task

from outbox.dispatch import redispatch_pending


@shared_task(name="outbox.redispatch")
def outbox_redispatch_task() -> int:
    """Periodic (beat, league/periodic.py): send tasks stored while the broker was unreachable."""
    return redispatch_pending()


@shared_task(name="outbox.recover_stale_jobs")
def recover_stale_jobs_task() -> list[str]:
    """Periodic (beat, league/periodic.py): resume long jobs whose worker stopped (outbox/jobs.py)."""
    from outbox.jobs import recover_stale_jobs

    return recover_stale_jobs()
