"""The anonymous page cache: served without queries, invalidated by every write, never for members."""

import contextlib

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory, make_team, recruit

#: Transactional: versions move when a transaction that wrote commits (common/invalidation.py).
pytestmark = [pytest.mark.page_cache, pytest.mark.usefixtures("catalog"), pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def fresh_cache(settings, fresh_locmem_cache):
    settings.PAGE_CACHE_SECONDS = 300


def queries(client, url):
    with CaptureQueriesContext(connection) as ctx:
        resp = client.get(url)
    assert resp.status_code == 200
    return len(ctx.captured_queries), resp.content.decode()


def test_second_anonymous_read_is_served_from_cache_and_writes_invalidate():
    owner = UserFactory()
    team = make_team("tora", owner=owner, name="Cached Claws")
    anon = Client()
    url = reverse("teams:detail", args=[team.pk])
    first, body = queries(anon, url)
    assert first > 0 and "Kaiken 1" not in body
    again, body_again = queries(anon, url)
    assert again == 0 and body_again == body
    # The owner recruits through the form (a POST): the anonymous copy is stale at once.
    member = Client()
    member.login(username=owner.username, password=PASSWORD)
    resp = member.post(reverse("teams:recruit_profile", args=[team.pk, "tora-kaiken"]), {"name": ""})
    assert resp.status_code == 302
    after, body_after = queries(anon, url)
    assert after > 0 and "Kaiken 1" in body_after


def test_logged_in_readers_always_get_a_fresh_page():
    owner = UserFactory()
    team = make_team("tora", owner=owner)
    member = Client()
    member.login(username=owner.username, password=PASSWORD)
    url = reverse("teams:detail", args=[team.pk])
    queries(member, url)
    second, body = queries(member, url)
    assert second > 0 and "Recruit" in body  # the owner's buttons, never a cached anonymous copy


def test_service_writes_outside_requests_are_seen_after_a_task_or_any_post():
    team = make_team("tora")
    anon = Client()
    url = reverse("teams:detail", args=[team.pk])
    queries(anon, url)
    recruit(team, "tora-kaiken")  # a write outside any request (a shell, a task): noticed as any write
    _, body = queries(anon, url)
    assert "Kaiken 1" in body


def cached_pages() -> list[str]:
    return [k for k in cache._cache if "moonlight:page:" in k]


def test_only_public_pages_are_cached():
    anon = Client()
    assert anon.get(reverse("login")).status_code == 200  # a form with a CSRF token: never cached
    assert cached_pages() == []
    assert anon.get(reverse("rules:index")).status_code == 200
    assert len(cached_pages()) == 1


def test_a_celery_task_bumps_the_version_when_it_writes():
    """Was: every task bumped when it ended. Now a task moves the version through its writes
    (on commit) and a task that only reads leaves it alone (issue 11, finding 5)."""
    from common.invalidation import SITE, version
    from league import services as league_services
    from league.models import ScheduleRun
    from league.tasks import schedule_generate_task
    from rules.tasks import catalog_summary_task
    from tests.league.helpers import make_season

    before = version(SITE)
    catalog_summary_task.apply()
    assert version(SITE) == before
    run = league_services.schedule_request(season=make_season(4), kind=ScheduleRun.Kind.ROUND_ROBIN, seed=1)
    before = version(SITE)
    schedule_generate_task.apply(args=[run.pk])
    assert version(SITE) > before


def test_pages_render_when_the_cache_is_down(settings):
    """Redis (the cache in production) stopped: pages are served uncached, writes still work."""
    settings.CACHES = {
        "default": {"BACKEND": "common.rediscache.RedisCache", "LOCATION": "redis://127.0.0.1:1/0"}
    }  # nothing listens on port 1
    owner = UserFactory()
    team = make_team("tora", owner=owner)
    anon = Client()
    assert anon.get(reverse("teams:detail", args=[team.pk])).status_code == 200
    member = Client()
    member.login(username=owner.username, password=PASSWORD)
    resp = member.post(reverse("teams:recruit_profile", args=[team.pk, "tora-kaiken"]), {"name": ""})
    assert resp.status_code == 302
    assert "Kaiken 1" in anon.get(reverse("teams:detail", args=[team.pk])).content.decode()


# --- issue 11, finding 5: only real writes move the version; query strings cannot multiply keys -----


def version() -> int:
    from common.invalidation import SITE
    from common.invalidation import version as site_version

    return site_version(SITE)


def test_requests_that_write_nothing_leave_the_version_unchanged():
    """A CSRF-rejected POST, a POST to a missing path and OPTIONS used to bump the site-wide
    version each (20 a second cut a season page from 475 to 189 requests a second)."""
    team = make_team("tora")
    anon = Client(enforce_csrf_checks=True)
    before = version()
    assert anon.post(reverse("teams:recruit_profile", args=[team.pk, "tora-kaiken"]), {"name": "x"}).status_code == 403
    assert anon.post(reverse("login"), {"username": "a", "password": "b"}).status_code == 403
    assert anon.post("/no/such/path/", {"a": "b"}).status_code == 404
    assert anon.options(reverse("home")).status_code in (200, 405)
    assert anon.delete(reverse("teams:detail", args=[team.pk])).status_code in (403, 405)
    assert anon.put("/no/such/path/").status_code == 404
    assert version() == before


def test_a_failed_log_in_writes_only_bookkeeping_and_leaves_the_version_unchanged(settings):
    settings.AXES_ENABLED = True  # a failed log-in writes django-axes' attempt rows, not site data
    UserFactory(username="someone")
    before = version()
    resp = Client().post(reverse("login"), {"username": "someone", "password": "wrong"})
    assert resp.status_code == 200
    assert version() == before


def test_a_write_bumps_the_version_when_it_commits_and_a_rolled_back_one_does_not():
    from django.db import transaction

    team = make_team("tora")
    before = version()
    with transaction.atomic():
        recruit(team, "tora-kaiken")
        assert version() == before  # not yet: a reader now would still see the old data
    assert version() > before
    after_commit = version()

    class Rollback(Exception):
        pass

    with contextlib.suppress(Rollback), transaction.atomic():
        recruit(team, "tora-kaiken")
        raise Rollback
    assert version() == after_commit
    from teams.models import Team

    Team.objects.filter(pk=team.pk).update(name="Renamed Claws")  # autocommit: bumps at once
    assert version() > after_commit


def test_random_query_strings_do_not_create_cache_entries():
    import random

    team = make_team("tora", name="Query Claws")
    anon = Client()
    url = reverse("teams:detail", args=[team.pk])
    assert anon.get(url).status_code == 200
    assert len(cached_pages()) == 1
    rng = random.Random(11)
    for _ in range(40):
        junk = f"{rng.randrange(10**9)}"
        assert anon.get(f"{url}?utm_source={junk}").status_code == 200
        assert anon.get(f"{url}?page={junk}").status_code == 200
        assert anon.get(f"{url}?games={junk}").status_code == 200
        assert anon.get(f"/teams/{'0' * rng.randrange(1, 9)}{team.pk}/").status_code == 200
    assert len(cached_pages()) == 1
    # A known parameter with a value the page understands is its own page, cached once.
    for _ in range(3):
        assert anon.get(f"{url}?games=all").status_code == 200
    assert len(cached_pages()) == 2
    # Order and repetition of a list's page number do not matter either.
    teams_url = reverse("teams:list")
    for query in ("", "?page=1", "?page=2", "?page=2&page=2", "?page=x", "?page=99999999"):
        assert anon.get(teams_url + query).status_code == 200
    assert len(cached_pages()) <= 2 + 2  # the list without a page, and page 2 (page 1 is the same page)


def test_a_cached_page_is_stored_compressed_and_sent_so_to_clients_that_accept_gzip():
    """Issue 15: a large cached page (a 256-team newsletter is ~540 KB) is gzip-compressed once,
    when stored; a browser (Accept-Encoding: gzip) gets the stored bytes, any other client the
    page decompressed, and both are told the page varies with Accept-Encoding."""
    import gzip

    team = make_team("tora", name="Zipped Claws")
    url = reverse("teams:detail", args=[team.pk])
    rendered = Client().get(url)  # the miss: rendered, then stored
    assert rendered.status_code == 200 and "Content-Encoding" not in rendered
    page = rendered.content

    browser = Client(HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    with CaptureQueriesContext(connection) as ctx:
        hit = browser.get(url)
    assert len(ctx.captured_queries) == 0
    assert hit["Content-Encoding"] == "gzip" and "Accept-Encoding" in hit["Vary"]
    assert int(hit["Content-Length"]) == len(hit.content) < len(page) / 2
    assert gzip.decompress(hit.content) == page

    script = Client()  # no Accept-Encoding: the same page, decompressed
    plain = script.get(url)
    assert "Content-Encoding" not in plain and "Accept-Encoding" in plain["Vary"]
    assert plain.content == page and int(plain["Content-Length"]) == len(page)
    assert Client(HTTP_ACCEPT_ENCODING="identity").get(url).content == page


def test_a_small_page_is_stored_as_it_is():
    from django.http import HttpResponse

    from common.pagecache import COMPRESS_FROM_BYTES, served, stored

    small = HttpResponse(b"x" * (COMPRESS_FROM_BYTES - 1))
    assert stored(small) is small
    large = HttpResponse(b"<p>row</p>" * 200, content_type="text/html; charset=utf-8")
    kept = stored(large)
    assert kept["Content-Encoding"] == "gzip" and kept["Content-Type"] == "text/html; charset=utf-8"

    class Request:
        headers = {"Accept-Encoding": "gzip"}

    assert served(kept, Request()) is kept
    Request.headers = {"Accept-Encoding": "br"}
    assert served(kept, Request()).content == large.content


@pytest.mark.parametrize("path", ["/rules/", "/teams/"])
def test_a_host_not_allowed_gets_400_even_for_a_cached_page(path):
    """Issue 27, finding 18: a cache hit was answered before Django checked ALLOWED_HOSTS, so
    `Host: evil.example` got the cached page (200). The host is checked first, for every request."""
    anon = Client()
    first = anon.get(path)
    assert first.status_code == 200
    again, _ = queries(anon, path)
    assert again == 0  # a cache hit for an allowed host
    refused = anon.get(path, HTTP_HOST="evil.example")
    assert refused.status_code == 400
    assert anon.get(path, HTTP_HOST="evil.example", HTTP_X_FORWARDED_HOST="testserver").status_code == 400
