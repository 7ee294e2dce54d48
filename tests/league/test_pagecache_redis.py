"""The page cache on Redis: a cached hit is one round trip, answered before the session and
authentication middleware run (issue 15, part 3)."""

from __future__ import annotations

import contextlib

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from tests.factories import make_team

pytestmark = [pytest.mark.page_cache, pytest.mark.usefixtures("catalog"), pytest.mark.django_db(transaction=True)]


@pytest.fixture
def redis_cache(settings, redis_url):
    settings.PAGE_CACHE_SECONDS = 300
    settings.CACHES = {
        "default": {
            "BACKEND": "common.rediscache.RedisCache",
            "LOCATION": django_settings.TEST_REDIS_URLS["page_cache"],  # a database of these tests' own
            "KEY_PREFIX": "pagecache-redis-test",
        }
    }
    cache.clear()
    yield cache
    with contextlib.suppress(Exception):
        cache.clear()


@pytest.fixture
def redis_commands(monkeypatch):
    """Every command sent to Redis, as its name."""
    import redis

    sent: list[str] = []
    original = redis.Redis.execute_command

    def counted(self, *args, **options):
        sent.append(str(args[0]).upper())
        return original(self, *args, **options)

    monkeypatch.setattr(redis.Redis, "execute_command", counted)
    return sent


def test_a_cached_hit_is_one_redis_round_trip_and_skips_sessions_and_auth(
    redis_cache, redis_commands, monkeypatch, django_assert_num_queries
):
    team = make_team("tora", name="Round Trip")
    anon = Client()
    url = reverse("teams:detail", args=[team.pk])
    first = anon.get(url)
    assert first.status_code == 200
    redis_commands.clear()

    def no_session(*args, **kwargs):
        raise AssertionError("the session middleware ran for a cached hit")

    from django.contrib.auth.middleware import AuthenticationMiddleware
    from django.contrib.sessions.middleware import SessionMiddleware

    monkeypatch.setattr(SessionMiddleware, "process_request", no_session)
    monkeypatch.setattr(AuthenticationMiddleware, "process_request", no_session)
    with django_assert_num_queries(0):
        hit = anon.get(url)
    assert hit.status_code == 200 and hit.content == first.content
    assert redis_commands == ["EVAL"]


def test_an_entry_is_served_while_its_versions_stand_and_the_one_trip_lookup_sees_them_move(
    redis_cache, redis_commands
):
    """Issue 29: an entry is stored with the versions of what it shows and served, in one EVAL,
    while they are current; a bump of one of them (only) makes it stale; a version evicted from
    the cache starts again at a number no entry holds, so the entry stays stale."""
    from common import invalidation

    scopes = [invalidation.team(1), invalidation.season(2)]
    value, under = invalidation.lookup("page-x", scopes)
    assert value is None and set(under) == {invalidation.ALL, *scopes}
    invalidation.store("page-x", under, "stored", 60)
    invalidation.store("page-y", invalidation.lookup("page-y", [invalidation.team(3)])[1], "other", 60)
    redis_commands.clear()
    assert invalidation.lookup("page-x", scopes)[0] == "stored"
    assert redis_commands == ["EVAL"]
    invalidation.bump([invalidation.team(3)])  # another team: page-x stands
    assert invalidation.lookup("page-x", scopes)[0] == "stored"
    assert invalidation.lookup("page-y", [invalidation.team(3)])[0] is None
    invalidation.bump([invalidation.season(2)])
    value, current = invalidation.lookup("page-x", scopes)
    assert value is None and current[invalidation.season(2)] == under[invalidation.season(2)] + 1
    invalidation.store("page-x", current, "again", 60)
    cache.delete(invalidation.version_key(invalidation.team(1)))  # evicted
    value, restarted = invalidation.lookup("page-x", scopes)
    assert value is None and restarted[invalidation.team(1)] > current[invalidation.team(1)]
    # Versions expire (a deleted object's key goes): started by a read or by a bump, with a deadline.
    invalidation.bump([invalidation.match(9)])
    client = cache._cache.get_client()
    for scope in (invalidation.team(1), invalidation.match(9)):
        assert 0 < client.ttl(cache.make_key(invalidation.version_key(scope))) <= invalidation.VERSION_SECONDS


def test_versions_evicted_all_at_once_start_again_in_one_more_round_trip(redis_cache, redis_commands):
    """After the cache was emptied (a restart, an eviction) every block finds its versions missing:
    the lookup starts them in one more round trip (it was one ``SET NX`` each and a read), at one
    number each that every later reader is given; ``versions`` reads, then starts what is missing in
    one round trip; a version already there is never moved by a start."""
    from common import invalidation

    scopes = [invalidation.team(1), invalidation.season(2), invalidation.league(3), invalidation.match(4)]
    invalidation.bump([invalidation.match(4)])
    kept = invalidation.versions([invalidation.match(4)])[invalidation.match(4)]
    redis_commands.clear()
    value, started = invalidation.lookup("page-z", scopes)
    assert value is None and redis_commands == ["EVAL", "EVAL"]
    assert set(started) == {invalidation.ALL, *scopes} and started[invalidation.match(4)] == kept
    redis_commands.clear()
    assert invalidation.lookup("page-z", scopes)[1] == started
    assert redis_commands == ["EVAL"]
    for scope in scopes[:3]:
        cache.delete(invalidation.version_key(scope))
    redis_commands.clear()
    again = invalidation.versions(scopes)
    assert redis_commands == ["MGET", "EVAL"]
    assert again[invalidation.match(4)] == kept and again[invalidation.ALL] == started[invalidation.ALL]
    assert all(again[s] > started[s] for s in scopes[:3])  # a number no entry was stored under
    client = cache._cache.get_client()
    for scope in scopes[:3]:
        assert 0 < client.ttl(cache.make_key(invalidation.version_key(scope))) <= invalidation.VERSION_SECONDS
    assert invalidation.versions(scopes) == again


def test_the_cache_keeps_one_redis_client_a_server(redis_cache, monkeypatch):
    """common/rediscache.py: Django's backend made a ``redis.Redis`` (and its table of response
    callbacks) for every command; the project's makes none once it has its client."""
    import redis

    cache.set("client-x", 1)
    made = []
    original = redis.Redis.__init__

    def counted(self, *args, **kwargs):
        made.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counted)
    for _ in range(3):
        assert cache.get("client-x") == 1
        cache.set("client-y", 2, 60)
        assert cache.get_many(["client-x", "client-y"]) == {"client-x": 1, "client-y": 2}
    assert made == []
    assert cache._cache.get_client() is cache._cache.get_client("any key", write=True)


def test_with_replicas_writes_go_to_the_first_server_and_reads_to_the_others():
    """Django's rule for several servers is kept: one client each, the first's for writes."""
    from common.rediscache import ReusedClientRedisCacheClient

    client = ReusedClientRedisCacheClient(["redis://127.0.0.1:1/14", "redis://127.0.0.1:1/15"])  # nothing connects
    write = client.get_client(write=True)
    assert write.connection_pool.connection_kwargs["db"] == 14
    assert client.get_client().connection_pool.connection_kwargs["db"] == 15
    assert client.get_client() is client.get_client() and client.get_client(write=True) is write


def test_the_page_cache_stands_before_sessions_and_authentication():
    order = django_settings.MIDDLEWARE
    cache_at = order.index("common.pagecache.AnonymousPageCacheMiddleware")
    for inner in (
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
        "axes.middleware.AxesMiddleware",
    ):
        assert cache_at < order.index(inner), inner


def test_a_browser_gets_the_stored_compressed_page_in_one_round_trip(redis_cache, redis_commands):
    import gzip

    team = make_team("tora", name="Zipped Round Trip")
    url = reverse("teams:detail", args=[team.pk])
    page = Client().get(url).content
    redis_commands.clear()
    hit = Client(HTTP_ACCEPT_ENCODING="gzip").get(url)
    assert hit["Content-Encoding"] == "gzip" and gzip.decompress(hit.content) == page
    assert redis_commands == ["EVAL"]


def test_the_host_is_checked_before_any_middleware_may_answer():
    """Issue 27, finding 18: ALLOWED_HOSTS is checked by the first middleware."""
    # Only the API's error rewriter stands before it, and it never answers: it rewrites answers
    # under /api/ as JSON (api/middleware.py), so a refused host there is JSON too.
    before = django_settings.MIDDLEWARE[: django_settings.MIDDLEWARE.index("league.middleware.AllowedHostMiddleware")]
    assert before in ([], ["api.middleware.JsonErrorsMiddleware"]), before
