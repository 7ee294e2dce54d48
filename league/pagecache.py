"""Whole-page cache for anonymous readers of the public pages (league tables, fixtures, team
scrolls, match pages, newsletters, the rules).

Every cached page is keyed by a site-wide *data version*. Anything that writes bumps the version
— every unsafe request (POST and the like) after its response, and every Celery task when it
ends — so a reader never sees a page older than the last write; the cache timeout is only a
backstop for writes made outside both (a shell). Logged-in users always get a fresh page.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache
from django.urls import Resolver404, resolve

logger = logging.getLogger(__name__)

VERSION_KEY = "moonlight:data-version"

#: URL names whose anonymous GET responses may be cached (public, read-only pages).
CACHEABLE = {
    "home",
    "rules:index",
    "rules:clan",
    "rules:ronin",
    "rules:keywords",
    "rules:challenges",
    "rules:status_effects",
    "rules:tables",
    "rules:odds",
    "teams:list",
    "teams:detail",
    "teams:ledger",
    "matches:detail",
    "matches:presheet",
    "league:list",
    "league:detail",
    "league:season_detail",
    "league:season_fixtures",
    "league:season_bracket",
    "newsletters:list",
    "newsletters:detail",
}


def data_version() -> int:
    version = cache.get(VERSION_KEY)
    if version is None:
        cache.add(VERSION_KEY, 1, timeout=None)
        version = cache.get(VERSION_KEY) or 1
    return int(version)


def bump_data_version() -> None:
    """Make every cached page stale. Never fails the caller: with the cache unreachable there is
    nothing to invalidate (and nothing is served from it)."""
    try:
        cache.incr(VERSION_KEY)
    except ValueError:  # not there yet (or evicted): start a fresh series
        try:
            cache.set(VERSION_KEY, 2, timeout=None)
        except Exception:
            logger.warning("page cache unreachable: could not bump the data version")
    except Exception:
        logger.warning("page cache unreachable: could not bump the data version")


class AnonymousPageCacheMiddleware:
    """Serve cached copies of public pages to anonymous GETs; bump the data version on writes."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        seconds = getattr(settings, "PAGE_CACHE_SECONDS", 0)
        if request.method not in ("GET", "HEAD"):
            response = self.get_response(request)
            bump_data_version()
            return response
        if not seconds or not self._cacheable_request(request):
            return self.get_response(request)
        try:
            key = f"moonlight:page:{data_version()}:{request.get_full_path()}"
            cached = cache.get(key)
        except Exception:
            logger.warning("page cache unreachable; serving %s uncached", request.path)
            return self.get_response(request)
        if cached is not None:
            return cached
        response = self.get_response(request)
        if self._cacheable_response(request, response):
            if hasattr(response, "render") and callable(response.render) and not response.is_rendered:
                response.render()
            try:
                cache.set(key, response, timeout=seconds)
            except Exception:
                logger.warning("page cache unreachable; %s not stored", request.path)
        return response

    @staticmethod
    def _cacheable_request(request) -> bool:
        if "messages" in request.COOKIES or settings.SESSION_COOKIE_NAME in request.COOKIES:
            return False  # a session may carry a login or flash messages: render afresh
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return False
        return match.view_name in CACHEABLE

    @staticmethod
    def _cacheable_response(request, response) -> bool:
        return (
            response.status_code == 200
            and not response.cookies
            and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
            and not getattr(response, "streaming", False)
            and "private" not in response.get("Cache-Control", "")
        )
