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


@shared_task(name="outbox.send_mail", autoretry_for=(OSError,), retry_backoff=30, max_retries=5)
def send_mail_task(subject: str, body: str, to: list[str], html: str | None = None, headers=None) -> int:
    """One email queued by :func:`outbox.mail.send_mail_on_commit` (SMTP errors are OSErrors: retried)."""
    from outbox.mail import deliver

    return deliver(subject=subject, body=body, to=to, html=html, headers=headers)
