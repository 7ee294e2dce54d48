"""Fragment caching of the heavy, reader-independent blocks of member pages (the league table with
its next fixtures, a team's scroll and season-by-season history, a played match's block): each
stored with the versions of the scopes it shows (common/invalidation.py: a season's, a team's, a
match's), so a write makes stale only the blocks that show what it changed, and read in one
Redis round trip. A member's page then renders only its own parts (the master's forms, the
owner's buttons) and takes the shared block from the cache.

On only with a shared cache (``FRAGMENT_CACHE_SECONDS``, by default 300 with Redis, else 0): a
process's memory could not see another process's writes. With the cache unreachable the block is
rendered, never an error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from django.conf import settings
from django.utils.safestring import SafeString, mark_safe

from common import invalidation, pagecache

logger = logging.getLogger(__name__)

PREFIX = "moonlight:fragment:"

#: What the fragment cache reads through (a test makes it fail to see the page render without it).
lookup = invalidation.lookup


def fragment(identity: str, render: Callable[[], str], scopes: Iterable[str], request=None) -> SafeString:
    """The HTML of the block named ``identity`` (say ``season-table:42``), which shows ``scopes``:
    from the cache while their versions are those it was stored under, or ``render()`` (which
    runs the block's queries) and stored under the versions read before it ran. With ``request``,
    an anonymous page stored whole depends on the same scopes."""
    scopes = list(scopes)
    seconds = getattr(settings, "FRAGMENT_CACHE_SECONDS", 0)
    if seconds <= 0:
        if request is not None:
            pagecache.depends(request, *scopes)
        return mark_safe(render())
    try:
        html, current = lookup(PREFIX + identity, scopes)
    except Exception:  # the cache is down: render, as without it
        logger.warning("fragment cache unreachable: rendering %s", identity)
        return mark_safe(render())
    if request is not None:
        pagecache._known(request, current)
    if html is None:
        html = render()
        try:
            invalidation.store(PREFIX + identity, current, html, seconds)
        except Exception:
            logger.warning("fragment cache unreachable: could not store %s", identity)
    return mark_safe(html)
