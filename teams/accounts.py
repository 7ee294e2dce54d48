"""Accounts a stranger expects (issue 14, part 6): password reset by email and a change of email
confirmed from the new address. Mails go through the outbox (outbox/mail.py), so a broker outage
delays them and never loses them.

An email change link carries a signed, timestamped token naming the user, the new address and the
address it replaces: it works once (after the change the old address no longer matches) and for
``EMAIL_CHANGE_TIMEOUT`` seconds. Opening it shows what will change; only the POST of that page
changes anything (no GET writes). The old address is told of the change.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm, SetPasswordForm
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse

from common.site import absolute_url, site_domain
from outbox.mail import send_mail_on_commit
from teams import hooks

EMAIL_CHANGE_SALT = "moonlight.email-change"


class OutboxPasswordResetForm(PasswordResetForm):
    """Django's password reset form (it never says whether an address has an account), with the
    mail sent through the outbox instead of from the request, and its link on ``SITE_URL``'s host
    (never the request's)."""

    def save(self, **kwargs):
        domain, use_https = site_domain()
        return super().save(**{**kwargs, "domain_override": domain, "use_https": use_https})

    def send_mail(
        self, subject_template_name, email_template_name, context, from_email, to_email, html_email_template_name=None
    ):
        subject = render_to_string(subject_template_name, context)
        body = render_to_string(email_template_name, context)
        send_mail_on_commit(subject=subject, body=body, to=[to_email], description="Mail: password reset")


class RevokingSetPasswordForm(SetPasswordForm):
    """Django's form of a new password after a reset link, stored by ``account_password_set``."""

    def save(self, commit=True):
        self.revoked = account_password_set(user=self.user, password=self.cleaned_data["new_password1"])
        return self.user


def account_password_set(*, user, password: str) -> list[str]:
    """Store ``user``'s new password (a change or a reset) and revoke, in the same transaction,
    what the old one let someone make (the API tokens: ``teams.hooks``); the account's address is
    told after the commit. Returns what was revoked, for the page to say."""
    with transaction.atomic():
        user.set_password(password)
        user.save(update_fields=["password"])
        revoked = hooks.run_password_set(user)
        if revoked and user.email:
            send_mail_on_commit(
                subject=f"Your Moonlight League password was changed: {' and '.join(revoked)} revoked",
                body=render_to_string(
                    "registration/password_revoked_notice.txt",
                    {"user": user, "revoked": revoked, "token_url": absolute_url(reverse("data:token"))},
                ),
                to=[user.email],
                description="Mail: password changed, API token revoked",
            )
    return revoked


def revoked_message(revoked: list[str]) -> str:
    what = " and ".join(revoked)
    return f"{what[:1].upper()}{what[1:]} was revoked with your old password: make a new one if you need it."


def email_in_use(email: str, *, other_than=None) -> bool:
    users = get_user_model().objects.filter(email__iexact=email)
    if other_than is not None:
        users = users.exclude(pk=other_than.pk)
    return users.exists()


def email_change_request(*, user, new_email: str, confirm_url) -> None:
    """Mail a confirmation link to ``new_email`` (``confirm_url(token)`` makes its address)."""
    new_email = get_user_model().objects.normalize_email(new_email.strip())
    if new_email.lower() == (user.email or "").lower():
        raise ValidationError({"email": "That is already your email address."})
    if email_in_use(new_email, other_than=user):
        raise ValidationError({"email": "Another account uses this email address."})
    token = signing.dumps({"u": user.pk, "e": new_email, "o": user.email or ""}, salt=EMAIL_CHANGE_SALT)
    body = render_to_string(
        "registration/email_change_email.txt",
        {
            "user": user,
            "new_email": new_email,
            "url": confirm_url(token),
            "hours": settings.EMAIL_CHANGE_TIMEOUT // 3600,
        },
    )
    send_mail_on_commit(
        subject="Confirm your new email address for Moonlight League",
        body=body,
        to=[new_email],
        description="Mail: email change",
    )


@dataclass(frozen=True)
class EmailChange:
    user: object
    old_email: str
    new_email: str


def email_change_read(token: str) -> EmailChange:
    """What a confirmation link would change; ValidationError when it is forged, expired or used."""
    try:
        data = signing.loads(token[:1000], salt=EMAIL_CHANGE_SALT, max_age=settings.EMAIL_CHANGE_TIMEOUT)
    except signing.SignatureExpired:
        raise ValidationError("This link has expired. Ask for a new one from your account page.") from None
    except signing.BadSignature:
        raise ValidationError("This link is not valid.") from None
    user = get_user_model().objects.filter(pk=data.get("u"), is_active=True).first()
    if user is None or (user.email or "") != data.get("o"):
        raise ValidationError("This link was already used or is out of date.")
    return EmailChange(user=user, old_email=data["o"], new_email=data["e"])


def email_change_confirm(*, token: str, actor) -> EmailChange:
    """Apply a confirmation link for the signed-in ``actor`` (the link's own user only)."""
    with transaction.atomic():
        change = email_change_read(token)
        user = get_user_model().objects.select_for_update().get(pk=change.user.pk)
        if actor is None or actor.pk != user.pk:
            raise ValidationError("This link belongs to another account: sign in as its owner.")
        if (user.email or "") != change.old_email:
            raise ValidationError("This link was already used or is out of date.")
        if email_in_use(change.new_email, other_than=user):
            raise ValidationError("Another account uses this email address.")
        user.email = change.new_email
        user.save(update_fields=["email"])
        if change.old_email:
            send_mail_on_commit(
                subject="Your Moonlight League email address was changed",
                body=render_to_string("registration/email_changed_notice.txt", {"user": user, "change": change}),
                to=[change.old_email],
                description="Mail: email changed notice",
            )
    return change
