"""Log-in rate limiting, safe redirects after log-in, CSRF on forms."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory


@pytest.mark.axes
def test_login_attempts_are_rate_limited(db, settings):
    settings.AXES_FAILURE_LIMIT = 3
    user = UserFactory(username="kenji")
    client = Client()
    url = reverse("login")
    for _ in range(3):
        resp = client.post(url, {"username": "kenji", "password": "wrong"})
        assert resp.status_code in (200, 429)
    resp = client.post(url, {"username": "kenji", "password": PASSWORD})
    assert resp.status_code == 429
    assert b"Too many failed log-ins" in resp.content
    assert "_auth_user_id" not in client.session
    # Another user from the same address is not locked out.
    UserFactory(username="aiko")
    resp = client.post(url, {"username": "aiko", "password": PASSWORD})
    assert resp.status_code == 302
    assert user.pk


@pytest.mark.axes
def test_successful_login_with_axes_on(db):
    UserFactory(username="hana")
    client = Client()
    resp = client.post(reverse("login"), {"username": "hana", "password": PASSWORD})
    assert resp.status_code == 302 and resp["Location"] == reverse("home")


@pytest.mark.parametrize("target", ["https://evil.example.org/", "//evil.example.org/x", "http:evil"])
def test_no_open_redirect_after_login(db, target):
    UserFactory(username="ren")
    client = Client()
    resp = client.post(reverse("login") + f"?next={target}", {"username": "ren", "password": PASSWORD, "next": target})
    assert resp.status_code == 302
    assert resp["Location"] == reverse("home")


def test_safe_next_is_followed(db):
    UserFactory(username="sora")
    resp = Client().post(reverse("login"), {"username": "sora", "password": PASSWORD, "next": "/teams/"})
    assert resp["Location"] == "/teams/"


def test_forms_require_csrf(db, catalog):
    user = UserFactory(username="mei")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    resp = client.post(reverse("teams:create"), {"name": "No Token", "clan": 1})
    assert resp.status_code == 403
    from teams.models import Team

    assert not Team.objects.exists()
