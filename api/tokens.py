"""API tokens and the account's password: a new password revokes the tokens (issue 27, finding 17).

Registered as a ``teams.hooks`` password hook (api/apps.py): a password change or reset runs it in
the transaction that stores the new password, so a token made by someone who knew the old one stops
working with it."""

from __future__ import annotations

from rest_framework.authtoken.models import Token


def tokens_revoke(user) -> list[str]:
    """Delete ``user``'s API tokens; what was revoked, for the user to be told."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return ["your API token"] if deleted else []
