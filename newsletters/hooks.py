"""What other apps do when a newsletter is published, without ``newsletters`` importing them.

Apps above ``newsletters`` register hooks in their ``AppConfig.ready()`` (as in matches/hooks.py):

* *published* hooks run inside the transaction that publishes (one that fails rolls it back);
* a *mail filter* says which players take the newsletter by email (the others' deliveries are
  recorded as skipped), and *mail headers* add headers to one player's email (an unsubscribe link).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from newsletters.models import Newsletter

_published: dict[str, Callable[[Newsletter], object]] = {}
_mail_filter: dict[str, Callable[[Collection[int]], set[int]]] = {}
_mail_headers: dict[str, Callable[[int], dict]] = {}


def on_published(name: str, hook: Callable[[Newsletter], object]) -> None:
    _published[name] = hook


def published(newsletter: Newsletter) -> None:
    for hook in list(_published.values()):
        hook(newsletter)


def on_mail_filter(name: str, hook: Callable[[Collection[int]], set[int]]) -> None:
    """Register ``hook(user_ids) -> the user ids who do not want the newsletter by email``."""
    _mail_filter[name] = hook


def mail_refused(user_ids: Collection[int]) -> set[int]:
    refused: set[int] = set()
    for hook in list(_mail_filter.values()):
        refused |= set(hook(user_ids))
    return refused


def on_mail_headers(name: str, hook: Callable[[int], dict]) -> None:
    """Register ``hook(user_id) -> extra headers`` for that player's newsletter email."""
    _mail_headers[name] = hook


def mail_headers(user_id: int | None) -> dict:
    headers: dict = {}
    if user_id is None:
        return headers
    for hook in list(_mail_headers.values()):
        headers.update(hook(user_id))
    return headers
