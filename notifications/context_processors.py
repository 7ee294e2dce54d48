"""The unread count in the navigation: one query, made only when a page shows it."""

from __future__ import annotations

from django.utils.functional import cached_property


class Unread:
    def __init__(self, user) -> None:
        self.user = user

    @cached_property
    def count(self) -> int:
        if self.user is None or not self.user.is_authenticated:
            return 0
        from notifications.services import unread_count

        return unread_count(self.user)


def unread(request) -> dict:
    return {"notifications": Unread(getattr(request, "user", None))}
