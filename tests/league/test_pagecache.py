"""The anonymous page cache: served without queries, invalidated by every write, never for members."""

import contextlib

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory, make_team, recruit

pytestmark = [pytest.mark.page_cache, pytest.mark.usefixtures("catalog")]


@pytest.fixture(autouse=True)
def fresh_cache(settings):
    settings.PAGE_CACHE_SECONDS = 300
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "pagecache-tests"}
    }
    cache.clear()
    yield
    with contextlib.suppress(Exception):
        cache.clear()


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
    recruit(team, "tora-kaiken")  # a write outside any request (like a shell): cache is a backstop
    from league.pagecache import bump_data_version

    bump_data_version()  # what a finished Celery task or any POST does
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


def test_celery_task_end_bumps_the_version():
    from league.pagecache import data_version
    from rules.tasks import catalog_summary_task

    before = data_version()
    catalog_summary_task.apply()
    assert data_version() > before


def test_pages_render_when_the_cache_is_down(settings):
    """Redis (the cache in production) stopped: pages are served uncached, writes still work."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:1/0"}
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
