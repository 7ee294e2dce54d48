"""Celery tasks for newsletters: thin wrappers that take ids and call one service.

They are dispatched after commit (``transaction.on_commit``) by newsletters.services. Every
service behind them is idempotent (one newsletter per league and period, a published newsletter
is never rebuilt, a delivery marked sent is never sent again), so the tasks are acknowledged
late and may be redelivered or retried safely; retries are bounded.
"""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from newsletters import services
from outbox.tasks_common import run_job

BUILD_MAX_RETRIES = 3
DELIVERY_MAX_RETRIES = 4


@shared_task(
    bind=True,
    acks_late=True,
    max_retries=BUILD_MAX_RETRIES,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
)
def newsletter_build_task(self, newsletter_id: int) -> dict | None:
    """(Re)build the draft ``newsletter_id``, reporting progress as task state (PROGRESS meta)."""

    def progress(done: int, total: int, step: str) -> None:
        if self.request.id and not self.request.is_eager:
            self.update_state(state="PROGRESS", meta={"done": done, "total": total, "step": step})

    # The broker or the database gone away leaves the build to the recovery of stopped jobs
    # (outbox.tasks_common.run_job); any other error marks it failed, saying what happened.
    newsletter = run_job(
        self,
        lambda: services.newsletter_build(newsletter_id=newsletter_id, progress=progress),
        fail=lambda error: services.newsletter_build_failed(newsletter_id=newsletter_id, error=error),
        any_error=True,
    )
    if newsletter is None:
        return None
    return {
        "newsletter": newsletter.pk,
        "status": newsletter.status,
        "build_status": newsletter.build_status,
        "reports": len(newsletter.sections.get("reports", [])),
    }


@shared_task(
    bind=True,
    acks_late=True,
    max_retries=DELIVERY_MAX_RETRIES,
    # SMTP errors and connection errors are OSErrors.
    autoretry_for=(OSError, OperationalError, InterfaceError),
    retry_backoff=30,
    retry_backoff_max=900,
    retry_jitter=True,
)
def newsletter_deliver_task(self, delivery_id: int) -> str | None:
    """Email one player one newsletter (a no-op once that delivery is sent)."""
    delivery = services.delivery_send(delivery_id=delivery_id)
    return delivery.status if delivery is not None else None


@shared_task(acks_late=True)
def newsletters_weekly_task() -> list[int]:
    """The periodic task (django-celery-beat, see ``manage.py setup_periodic_newsletters``): draft
    each league's newsletter for its latest completed round or week; each build is its own task."""
    return [n.pk for n in services.newsletters_draft_due()]
