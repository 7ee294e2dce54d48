"""One-click unsubscribe links: a signed, dated token naming one user and one kind."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core import signing

from notifications.models import Kind

SALT = "notifications.unsubscribe"


@dataclass(frozen=True)
class Unsubscribe:
    user_id: int
    kind: str


def make_token(*, user_id: int, kind: str) -> str:
    return signing.dumps([user_id, kind], salt=SALT, compress=False)


def read_token(token: str) -> Unsubscribe | None:
    """The user and kind of a valid token; None for a forged, altered or expired one."""
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.NOTIFICATIONS_UNSUBSCRIBE_MAX_AGE)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    if not (isinstance(data, list) and len(data) == 2):
        return None
    user_id, kind = data
    if not isinstance(user_id, int) or isinstance(user_id, bool) or kind not in Kind.values:
        return None
    return Unsubscribe(user_id=user_id, kind=kind)
