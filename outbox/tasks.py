from celery import shared_task

from outbox.dispatch import redispatch_pending


@shared_task(name="outbox.redispatch")
def outbox_redispatch_task() -> int:
    """Periodic (beat, league/periodic.py): send tasks stored while the broker was unreachable."""
    return redispatch_pending()
