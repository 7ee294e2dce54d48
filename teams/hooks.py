"""What other apps do when an account's password changes, without ``teams`` importing them.

Apps above ``teams`` register hooks in their ``AppConfig.ready()``. A *password set* hook runs
inside the transaction that stores the new password (a change, a reset) and revokes what the old
password let someone make: it returns what it revoked ("your API token"), for the user to be told,
or nothing. One that fails rolls the new password back (issue 27, finding 17).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

PasswordHook = Callable[[object], Iterable[str]]

_password_set: dict[str, PasswordHook] = {}


def on_password_set(name: str, hook: PasswordHook) -> None:
    """Register ``hook(user) -> what it revoked`` to run when ``user``'s password is set."""
    _password_set[name] = hook


def run_password_set(user) -> list[str]:
    return [revoked for hook in list(_password_set.values()) for revoked in hook(user)]
