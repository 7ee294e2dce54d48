"""Email through the outbox: the message is sent by a Celery task dispatched after the surrounding
transaction commits, so a broker outage delays a mail (the task waits in the outbox and
``outbox.redispatch`` sends it when the broker is back) and never loses it, and a rolled-back
transaction sends nothing. With no broker (the embedded default) the task runs in-process."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from outbox.dispatch import DispatchResult, dispatch_on_commit

MAIL_TASK = "outbox.send_mail"
#: Bounds on what a queued mail may hold (the outbox row stores it until it is sent).
MAX_SUBJECT = 200
MAX_BODY = 100_000


def send_mail_on_commit(
    *,
    subject: str,
    body: str,
    to: Sequence[str],
    html: str | None = None,
    headers: Mapping[str, str] | None = None,
    description: str = "",
) -> DispatchResult:
    """Queue one email (plain ``body``, optional ``html`` alternative, extra ``headers``) to ``to``."""
    from outbox.tasks import send_mail_task

    subject = " ".join(subject.split())[:MAX_SUBJECT]  # one line: a newline would be a header injection
    kwargs = {
        "subject": subject,
        "body": body[:MAX_BODY],
        "to": list(to),
        "html": html[:MAX_BODY] if html else None,
        "headers": dict(headers or {}),
    }
    return dispatch_on_commit(send_mail_task, kwargs=kwargs, description=description or f"Mail: {subject}")


def deliver(*, subject: str, body: str, to: Sequence[str], html: str | None = None, headers=None) -> int:
    """Send the message now (what the task does): Django's configured email backend."""
    from django.conf import settings
    from django.core.mail import EmailMultiAlternatives

    message = EmailMultiAlternatives(subject, body, settings.DEFAULT_FROM_EMAIL, list(to), headers=dict(headers or {}))
    if html:
        message.attach_alternative(html, "text/html")
    return message.send()
