"""A new password revokes the account's API tokens, and the user is told (issue 27, finding 17):
after a password change and after a password reset, the old token is refused by the API, the
next page says so and a mail tells the account's address."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from tests.factories import PASSWORD, UserFactory
from tests.support import run_tasks_eagerly

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "Lantern-Harbour-27"

celery_eager = pytest.fixture(autouse=True)(run_tasks_eagerly)


@pytest.fixture(autouse=True)
def site(settings, fresh_locmem_cache, django_capture_on_commit_callbacks, monkeypatch):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://league.example"
    original = Client.request

    def request(self, **kwargs):  # run what a request leaves for after its commit (the mail)
        with django_capture_on_commit_callbacks(execute=True):
            return original(self, **kwargs)

    monkeypatch.setattr(Client, "request", request)


def api_status(key: str) -> int:
    return Client().get(reverse("api:league-list"), HTTP_AUTHORIZATION=f"Token {key}").status_code


def assert_revoked_and_told(user, key: str, page) -> None:
    assert not Token.objects.filter(user=user).exists()
    assert api_status(key) == 401
    assert "Your API token was revoked" in page.content.decode()
    told = [m for m in mail.outbox if m.to == [user.email] and "API token" in m.subject]
    assert len(told) == 1
    assert "https://league.example" + reverse("data:token") in told[0].body


def test_a_password_change_revokes_the_api_token(django_assert_max_num_queries):
    user = UserFactory(username="akane")
    key = Token.objects.create(user=user).key
    other = Token.objects.create(user=UserFactory(username="botan")).key
    assert api_status(key) == 200
    client = Client()
    client.force_login(user)
    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302 and response["Location"] == reverse("password_change_done")
    with django_assert_max_num_queries(8):
        page = client.get(response["Location"])
    assert_revoked_and_told(user, key, page)
    assert api_status(other) == 200  # another account's token is untouched


def test_a_password_reset_revokes_the_api_token(django_assert_max_num_queries):
    user = UserFactory(username="chiyo")
    key = Token.objects.create(user=user).key
    client = Client()
    assert client.post(reverse("password_reset"), {"email": user.email}).status_code == 302
    link = re.search(r"https?://[^\s/]+(/\S+)", mail.outbox[0].body).group(1)
    mail.outbox.clear()
    form = client.get(link, follow=True)
    assert form.status_code == 200
    response = client.post(form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_complete")
    with django_assert_max_num_queries(8):
        page = client.get(response["Location"])
    assert_revoked_and_told(user, key, page)
    assert Client().login(username="chiyo", password=NEW_PASSWORD)


def test_a_new_password_without_a_token_sends_no_token_mail():
    user = UserFactory(username="daichi")
    client = Client()
    client.force_login(user)
    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
        follow=True,
    )
    assert response.status_code == 200 and "API token" not in response.content.decode()
    assert mail.outbox == []
