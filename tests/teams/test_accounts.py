"""Accounts (issue 14, part 6): password reset by email, a change of email confirmed from the new
address, the account page; their mails go through the outbox."""

from __future__ import annotations

import re
import shutil

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from outbox.dispatch import redispatch_pending
from outbox.models import OutboxTask
from tests.conftest import need
from tests.factories import PASSWORD, UserFactory
from tests.support import RedisServer, celery_on, run_tasks_eagerly

pytestmark = pytest.mark.django_db

#: Mails are sent by a task: in-process here, also where REDIS_URL is set (CI).
celery_eager = pytest.fixture(autouse=True)(run_tasks_eagerly)


@pytest.fixture(autouse=True)
def commits(django_capture_on_commit_callbacks, monkeypatch):
    """Run what each request leaves for after its commit (the mail dispatch), as a real request does."""
    from django.test import Client

    original = Client.request

    def request(self, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return original(self, **kwargs)

    monkeypatch.setattr(Client, "request", request)


def link_in(message) -> str:
    return re.search(r"https?://[^\s/]+(/\S+)", message.body).group(1)


def test_password_reset_by_email_end_to_end(client):
    user = UserFactory(username="akane", email="akane@example.org")
    assert "Forgot your password?" in client.get(reverse("login")).content.decode()
    response = client.post(reverse("password_reset"), {"email": "AKANE@example.org"})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert [m.to for m in mail.outbox] == [["akane@example.org"]]
    assert "akane" in mail.outbox[0].body and "\n" not in mail.outbox[0].subject
    page = client.get(link_in(mail.outbox[0]), follow=True)
    assert "Choose a new password" in page.content.decode()
    done = client.post(
        page.redirect_chain[-1][0], {"new_password1": "a new moon 2026", "new_password2": "a new moon 2026"}
    )
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    user.refresh_from_db()
    assert user.check_password("a new moon 2026")
    # the link works once
    again = client.get(link_in(mail.outbox[0]), follow=True)
    assert "This link does not work" in again.content.decode()


def test_password_reset_says_the_same_for_an_unknown_address_and_mails_nobody(client):
    UserFactory(username="akane", email="akane@example.org")
    response = client.post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert mail.outbox == []


def test_account_mails_are_limited_per_address(client, settings):
    settings.AXES_ENABLED = True
    settings.ACCOUNT_MAIL_RATE_LIMIT = 2
    from django.core.cache import cache

    cache.clear()
    UserFactory(username="akane", email="akane@example.org")
    codes = [client.post(reverse("password_reset"), {"email": "akane@example.org"}).status_code for _ in range(3)]
    assert codes == [302, 302, 429]
    assert len(mail.outbox) == 2
    cache.clear()


def test_email_change_is_confirmed_from_the_new_address(client):
    user = UserFactory(username="botan", email="old@example.org")
    client.force_login(user)
    page = client.get(reverse("account")).content.decode()
    assert "old@example.org" in page and reverse("email_change") in page and "/stats/coaches/botan/" in page
    wrong = client.post(reverse("email_change"), {"email": "new@example.org", "password": "wrong"})
    assert wrong.status_code == 200 and "incorrectly" in wrong.content.decode() and mail.outbox == []
    response = client.post(reverse("email_change"), {"email": "new@example.org", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("account")
    user.refresh_from_db()
    assert user.email == "old@example.org"  # nothing changes before the link is opened
    assert [m.to for m in mail.outbox] == [["new@example.org"]]
    link = link_in(mail.outbox[0])
    shown = client.get(link)
    body = shown.content.decode()
    assert shown.status_code == 200 and "old@example.org" in body and "new@example.org" in body
    user.refresh_from_db()
    assert user.email == "old@example.org"  # the GET only shows it
    done = client.post(link)
    assert done.status_code == 302
    user.refresh_from_db()
    assert user.email == "new@example.org"
    assert [m.to for m in mail.outbox] == [["new@example.org"], ["old@example.org"]]  # the old address is told
    reused = client.post(link)
    assert reused.status_code == 400 and "already used" in reused.content.decode()


def test_an_email_change_link_is_for_its_own_account_and_refuses_a_taken_address(client):
    user = UserFactory(username="botan", email="old@example.org")
    UserFactory(username="chiyo", email="taken@example.org")
    client.force_login(user)
    taken = client.post(reverse("email_change"), {"email": "TAKEN@example.org", "password": PASSWORD})
    assert taken.status_code == 200 and "Another account uses" in taken.content.decode() and mail.outbox == []
    client.post(reverse("email_change"), {"email": "new@example.org", "password": PASSWORD})
    link = link_in(mail.outbox[0])
    client.force_login(get_user_model().objects.get(username="chiyo"))
    assert client.get(link).status_code == 403
    assert client.post(link).status_code == 403
    user.refresh_from_db()
    assert user.email == "old@example.org"


def test_a_forged_or_expired_email_change_link_changes_nothing(client, settings):
    user = UserFactory(username="botan", email="old@example.org")
    client.force_login(user)
    client.post(reverse("email_change"), {"email": "new@example.org", "password": PASSWORD})
    link = link_in(mail.outbox[0])
    forged = link.replace("email/confirm/", "email/confirm/x")
    assert client.post(forged).status_code == 400
    settings.EMAIL_CHANGE_TIMEOUT = -1
    expired = client.post(link)
    assert expired.status_code == 400 and "expired" in expired.content.decode()
    user.refresh_from_db()
    assert user.email == "old@example.org"


def test_account_pages_need_a_login(client):
    for name in ("account", "email_change"):
        response = client.get(reverse(name))
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


@pytest.fixture
def broker_down():
    need(shutil.which("redis-server") is not None, "redis-server")
    server = RedisServer()
    server.start()
    with celery_on(server) as app:
        server.stop()
        yield app


def test_with_the_broker_down_a_reset_mail_waits_in_the_outbox_and_is_sent_once(client, broker_down):
    UserFactory(username="akane", email="akane@example.org")
    response = client.post(reverse("password_reset"), {"email": "akane@example.org"})
    assert response.status_code == 302  # the page does not fail
    assert mail.outbox == []
    stored = OutboxTask.objects.get()
    assert stored.task_name == "outbox.send_mail" and stored.status == OutboxTask.Status.PENDING
    broker_down.conf.task_always_eager = True  # the broker is back (here: tasks run in-process)
    assert redispatch_pending() == 1
    assert redispatch_pending() == 0
    assert [m.to for m in mail.outbox] == [["akane@example.org"]]
    assert "/accounts/password/reset/" in mail.outbox[0].body
