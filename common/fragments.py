"""Fragment caching of the heavy, reader-independent blocks of member pages (the league table with
its next fixtures, a team's season-by-season history): stored under the site-wide data version of
the page cache (common/pagecache.py), so any write makes them stale at once, and read in the same
single Redis round trip as a cached page. A member's page then renders only its own parts (the
master's forms, the owner's buttons) and takes the shared block from the cache.

On only with a shared cache (``FRAGMENT_CACHE_SECONDS``, by default 300 with Redis, else 0): a
process's memory could not see another process's writes. With the cache unreachable the block is
rendered, never an error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.utils.safestring import SafeString, mark_safe

from common.pagecache import cached_page

logger = logging.getLogger(__name__)

PREFIX = "moonlight:fragment:"


def fragment(identity: str, render: Callable[[], str]) -> SafeString:
    """The HTML of the block named ``identity`` (say ``season-table:42``): from the cache under the
    current data version, or ``render()`` (which runs the block's queries) and stored."""
    seconds = getattr(settings, "FRAGMENT_CACHE_SECONDS", 0)
    if seconds <= 0:
        return mark_safe(render())
    try:
        version, html = cached_page(PREFIX + identity)
    except Exception:  # the cache is down: render, as without it
        logger.warning("fragment cache unreachable: rendering %s", identity)
        return mark_safe(render())
    if html is None:
        html = render()
        try:
            cache.set(f"{PREFIX}{identity}:{version}", html, timeout=seconds)
        except Exception:
            logger.warning("fragment cache unreachable: could not store %s", identity)
    return mark_safe(html)
