"""Whole-page cache for anonymous readers of the public pages (league tables, fixtures, team
scrolls, match pages, newsletters, the rules).

Every cached page is keyed by a site-wide *data version*, which moves when data shown on the
site was really written: a database execute-wrapper (installed on every connection by
``LeagueConfig.ready``) notices each INSERT, UPDATE or DELETE on a table of the site's apps (or
the users table) and bumps the version when the transaction that wrote commits (at once in
autocommit). Requests that write nothing (a CSRF-rejected POST, a POST to a missing path,
OPTIONS, a failed log-in that only writes django-axes' bookkeeping) leave it alone, whatever
their method, and so does every process that reads (web, worker, beat). The cache timeout is a
backstop for writes made outside Django (psql). Logged-in users always get a fresh page.

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
from functools import lru_cache

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.urls import Resolver404, resolve
from django.utils.cache import patch_vary_headers

logger = logging.getLogger(__name__)

VERSION_KEY = "moonlight:data-version"
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


def _exactly(*allowed: str) -> Callable[[str], str | None]:
    return lambda value: value if value in allowed else None


#: The query parameters each cacheable page reads, with a normaliser: the value's canonical form
#: ("" for the default, the same page as without it) or None when the page cannot be cached with
#: it. A page not listed here reads no parameter. Keep this in step with the views.
QUERY_PARAMETERS: dict[str, dict[str, Callable[[str], str | None]]] = {
    "teams:list": {"page": _page_number},
    "teams:ledger": {"page": _page_number},
    "teams:detail": {"games": _exactly("all")},
}
#: Pages whose query string is a whole form (the odds calculator): cached only without one.
UNCACHED_WITH_QUERY = {"rules:odds"}


def data_version() -> int:
    version = cache.get(VERSION_KEY)
    if version is None:
        cache.add(VERSION_KEY, 1, timeout=None)
        version = cache.get(VERSION_KEY) or 1
    return int(version)


#: One Redis round trip for a lookup: read the data version, then the page stored under it.
_LOOKUP_SCRIPT = """
local version = redis.call('GET', KEYS[1])
if not version then return false end
return {version, redis.call('GET', ARGV[1] .. version)}
"""


def cached_page(identity: str):
    """(data version, the cached response or None) for a page's identity.

    With Redis (Django's RedisCache) this is one round trip: a server-side script reads the
    version and the page under ``{identity}:{version}`` together. Other backends (the tests'
    memory cache) take two reads. Raises what the cache raises when it is unreachable.
    """
    backend = getattr(cache, "_cache", None)
    if backend is not None and hasattr(backend, "get_client") and hasattr(backend, "_serializer"):
        version_key = cache.make_key(VERSION_KEY)
        found = backend.get_client(version_key).eval(_LOOKUP_SCRIPT, 1, version_key, cache.make_key(f"{identity}:"))
        if found:
            version, page = found
            return int(version), (None if page is None else backend._serializer.loads(page))
    version = data_version()
    return version, cache.get(f"{identity}:{version}")


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


# --- noticing writes ---------------------------------------------------------------------------

#: Apps whose tables hold what the public pages show; the users table is added (names on pages).
#: Bookkeeping (sessions, django-axes, the outbox, django-celery-beat, the admin log) is not.
PAGE_DATA_APPS = ("rules", "teams", "matches", "league", "newsletters")
_WRITE = re.compile(
    r"\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM|REPLACE\s+INTO|TRUNCATE(?:\s+TABLE)?)\s+[\"`]?([\w.]+)",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def page_data_tables() -> frozenset[str]:
    from django.apps import apps
    from django.contrib.auth import get_user_model

    tables = {
        model._meta.db_table
        for label in PAGE_DATA_APPS
        for model in apps.get_app_config(label).get_models(include_auto_created=True)
    }
    tables.add(get_user_model()._meta.db_table)
    return frozenset(tables)


def writes_page_data(sql: str) -> bool:
    """Whether a statement writes a table whose rows the public pages show."""
    found = _WRITE.match(sql)
    return found is not None and found.group(1).rsplit(".", 1)[-1] in page_data_tables()


def bump_after_commit(connection) -> None:
    """Bump the version when the current transaction commits (once per transaction, however many
    statements wrote), or now in autocommit. A rolled-back transaction drops the bump with it."""
    if not connection.in_atomic_block:
        bump_data_version()
        return
    if not any(entry[1] is bump_data_version for entry in connection.run_on_commit):
        connection.on_commit(bump_data_version, robust=True)


def notice_writes(execute, sql, params, many, context):
    """Database execute-wrapper: after a statement that wrote page data, bump on commit."""
    result = execute(sql, params, many, context)
    if isinstance(sql, str) and writes_page_data(sql):
        bump_after_commit(context["connection"])
    return result


def watch_writes(sender=None, connection=None, **kwargs) -> None:
    """``connection_created`` receiver: wrap the new connection's statements (once). First in the
    list, so a ``with connection.execute_wrapper(...)`` block around a reconnect pops its own."""
    if notice_writes not in connection.execute_wrappers:
        connection.execute_wrappers.insert(0, notice_writes)


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
    through untouched: the data version moves only when data is written (see above).

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
            version, cached = cached_page(identity)
            key = f"{identity}:{version}"
        except Exception:
            logger.warning("page cache unreachable; serving %s uncached", request.path)
            return self.get_response(request)
        if cached is not None:
            return served(cached, request)
        response = self.get_response(request)
        if self._cacheable_response(request, response):
            if hasattr(response, "render") and callable(response.render) and not response.is_rendered:
                response.render()
            patch_vary_headers(response, ("Accept-Encoding",))
            try:
                cache.set(key, stored(response), timeout=seconds)
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
