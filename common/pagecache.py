"""Whole-page cache for anonymous readers of the public pages (league tables, fixtures, team
scrolls, match pages, newsletters, the rules).

A cached page is stored with the versions of what it shows (common/invalidation.py): the view
names its scopes (``depends(request, invalidation.season(season.pk))``: a season's pages, a
team's, a match's); a page that names none depends on the ``site`` version, which every committed
write of site data moves. A write moves only the versions of what it changed, when its
transaction commits, so a result in one league leaves another league's pages cached; requests
that write nothing (a CSRF-rejected POST, OPTIONS, a failed log-in that only writes django-axes'
bookkeeping, an edit that changes nothing) move nothing. The cache timeout is a backstop for
writes made outside Django (psql). Logged-in users always get a fresh page.

A page's key is its URL name, its converted arguments and the query parameters the page reads
(``QUERY_PARAMETERS``), normalised; other parameters (``?utm_source=...``) are not part of the
key, and a known parameter with a value the page does not understand bypasses the cache, so
query strings cannot multiply the entries of a page beyond a small bound.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpResponse
from django.urls import Resolver404, resolve
from django.utils.cache import patch_vary_headers

from common import invalidation

logger = logging.getLogger(__name__)

PAGE_KEY_PREFIX = "moonlight:page:"

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
    "rules:ninjutsu",
    "rules:kage_masters",
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

#: The largest page number cached (a list that long is read page by page, uncached, past it).
MAX_CACHED_PAGE = 200


def _page_number(value: str) -> str | None:
    if not value.isdigit() or len(value) > 4 or not 1 <= int(value) <= MAX_CACHED_PAGE:
        return None
    return "" if int(value) == 1 else str(int(value))  # page 1 is the page without a number


def _page_number_kept(value: str) -> str | None:
    """:func:`_page_number` for a list whose page without a number is not page 1."""
    return None if _page_number(value) is None else str(int(value))


def _exactly(*allowed: str) -> Callable[[str], str | None]:
    return lambda value: value if value in allowed else None


#: The query parameters each cacheable page reads, with a normaliser: the value's canonical form
#: ("" for the default, the same page as without it) or None when the page cannot be cached with
#: it. A page not listed here reads no parameter. Keep this in step with the views.
QUERY_PARAMETERS: dict[str, dict[str, Callable[[str], str | None]]] = {
    "teams:list": {"page": _page_number},
    "teams:ledger": {"page": _page_number},
    "teams:detail": {"games": _exactly("all")},
    # the page of the league table (league.views.table_page_asked): past the table's last page the
    # view answers the last, so a value up to MAX_CACHED_PAGE is at worst a copy of it
    "league:season_detail": {"table": _page_number},
    # a page of the fixtures; without the parameter the round being played, so page 1 is its own
    "league:season_fixtures": {"page": _page_number_kept},
}
#: Pages whose query string is a whole form (the odds calculator): cached only without one.
UNCACHED_WITH_QUERY = {"rules:odds"}


def depends(request, *scopes: str) -> None:
    """Say that the page being rendered shows ``scopes`` (``invalidation.team(7)``...): when it is
    stored for anonymous readers, it is kept under their versions (read now, before the page's
    queries run). Nothing to do when the page is not being stored."""
    under = getattr(request, "_cache_under", None)
    if under is None:
        return
    request._cache_scoped = True
    new = [scope for scope in scopes if scope not in under]
    if new:
        under.update(invalidation.versions(new))


def _known(request, known: dict[str, int]) -> None:
    """Versions a fragment already read in its lookup: the page depends on them too."""
    under = getattr(request, "_cache_under", None)
    if under is None:
        return
    request._cache_scoped = True
    for scope, value in known.items():
        under.setdefault(scope, value)


# --- serving ---------------------------------------------------------------------------------------


def page_key(request) -> str | None:
    """The cache key of an anonymous GET, or None when the page is not cached. The key is the
    page's identity (URL name, converted arguments, the query parameters it reads, normalised),
    so "/teams/007/?utm_source=x" and "/teams/7/" are one entry."""
    if "messages" in request.COOKIES or settings.SESSION_COOKIE_NAME in request.COOKIES:
        return None  # a session may carry a login or flash messages: render afresh
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return None
    name = match.view_name
    if name not in CACHEABLE or match.args:
        return None
    if request.GET and name in UNCACHED_WITH_QUERY:
        return None
    query = []
    for param, normalise in sorted(QUERY_PARAMETERS.get(name, {}).items()):
        values = request.GET.getlist(param)
        if not values:
            continue
        if len(set(values)) != 1:
            return None
        value = normalise(values[0])
        if value is None:
            return None
        if value:
            query.append(f"{param}={value}")
    identity = "|".join([name, *(f"{k}={v}" for k, v in sorted(match.kwargs.items())), *query])
    return f"{PAGE_KEY_PREFIX}{hashlib.sha256(identity.encode()).hexdigest()[:40]}"


#: Pages at least this long are stored gzip-compressed (a smaller page is not worth it).
COMPRESS_FROM_BYTES = 512


def stored(response: HttpResponse) -> HttpResponse:
    """The copy of a rendered page the cache keeps: gzip-compressed once, when stored, so a hit
    sends a browser (every browser accepts gzip) a fraction of the bytes without compressing
    again. Cached pages carry no secret (a response that sets a cookie or needs a CSRF cookie is
    never stored), so compressing them exposes nothing to BREACH-style guessing."""
    content = response.content
    if len(content) < COMPRESS_FROM_BYTES or response.has_header("Content-Encoding"):
        return response
    copy = HttpResponse(gzip.compress(content, compresslevel=6, mtime=0), status=response.status_code)
    for header, value in response.items():
        copy.headers[header] = value
    copy.headers["Content-Encoding"] = "gzip"
    copy.headers["Content-Length"] = str(len(copy.content))
    return copy


def served(cached: HttpResponse, request) -> HttpResponse:
    """A cached page as this request can read it: as stored for a client that accepts gzip,
    else decompressed (a script or a test client that sends no Accept-Encoding)."""
    if cached.get("Content-Encoding") != "gzip" or _ACCEPTS_GZIP.search(request.headers.get("Accept-Encoding", "")):
        return cached
    plain = HttpResponse(gzip.decompress(cached.content), status=cached.status_code)
    for header, value in cached.items():
        if header.lower() != "content-encoding":
            plain.headers[header] = value
    plain.headers["Content-Length"] = str(len(plain.content))
    return plain


_ACCEPTS_GZIP = re.compile(r"\bgzip\b")


class AnonymousPageCacheMiddleware:
    """Serve cached copies of public pages to anonymous GETs and HEADs. Other methods pass
    through untouched: versions move only when data is written (see above).

    It stands before the session, CSRF, authentication, messages and axes middleware (settings'
    MIDDLEWARE): a request is anonymous when it carries no session or messages cookie, which
    needs no session, so a cached hit is answered without them. The middleware outside it
    (security headers, CSP, Permissions-Policy, size and character checks, WhiteNoise) still
    runs on every response; a page rendered on a miss has passed through all of them, and the
    headers the inner ones add (X-Frame-Options, Vary) are stored with it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        seconds = getattr(settings, "PAGE_CACHE_SECONDS", 0)
        if not seconds or request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        identity = page_key(request)
        if identity is None:
            return self.get_response(request)
        try:
            cached, current = invalidation.lookup(identity, [invalidation.SITE])
        except Exception:
            logger.warning("page cache unreachable; serving %s uncached", request.path)
            return self.get_response(request)
        if cached is not None:
            return served(cached, request)
        # The versions read before the page is rendered: ``all`` and ``site``, and those the view
        # names as it renders (``depends``); without any named, the page is kept under ``site``.
        site = current.pop(invalidation.SITE)
        request._cache_under, request._cache_scoped = current, False
        response = self.get_response(request)
        under = request._cache_under
        if not request._cache_scoped:
            under[invalidation.SITE] = site
        if self._cacheable_response(request, response):
            if hasattr(response, "render") and callable(response.render) and not response.is_rendered:
                response.render()
            patch_vary_headers(response, ("Accept-Encoding",))
            try:
                invalidation.store(identity, under, stored(response), seconds)
            except Exception:
                logger.warning("page cache unreachable; %s not stored", request.path)
        return response

    @staticmethod
    def _cacheable_response(request, response) -> bool:
        return (
            response.status_code == 200
            and not response.cookies
            and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
            and not getattr(response, "streaming", False)
            and "private" not in response.get("Cache-Control", "")
        )
