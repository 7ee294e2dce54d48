"""The notification pages: the list (paginated, bounded queries), the unread count in the
navigation (one query, whatever the number of notifications), mark as read by POST only, the
settings page, and the unsubscribe link (GET asks, POST does; forged, expired or altered tokens
are refused)."""

from __future__ import annotations

import re
import shutil
import time

import pytest
from django.core import mail, signing
from django.test import Client
from django.urls import reverse

from notifications import services
from notifications.models import Kind, Notification, Preference
from notifications.tokens import SALT, make_token, read_token
from outbox.dispatch import redispatch_pending
from outbox.models import OutboxTask
from tests.conftest import need
from tests.factories import PASSWORD, UserFactory
from tests.support import RedisServer, record_for

pytestmark = pytest.mark.django_db


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)


def give(user, n: int, *, kind: str = Kind.FIXTURE) -> None:
    Notification.objects.bulk_create(
        [Notification(user=user, kind=kind, text=f"Notice {i}", url="/rules/") for i in range(n)]
    )


def badge(html: str) -> str | None:
    found = re.search(r'<span class="badge text-bg-warning">(\d+)<', html)
    return found.group(1) if found else None


@pytest.mark.parametrize("n", [3, 60])
def test_the_list_pages_and_the_unread_count_cost_the_same_queries_for_3_or_60(
    client, n, django_assert_num_queries, catalog
):
    user = UserFactory(username="hana")
    give(user, n)
    give(UserFactory(username="other"), 5)  # another user's: never shown, never counted
    login(client, user)
    # session, user, the count of the page, the page, the unread count
    with django_assert_num_queries(5):
        response = client.get(reverse("notifications:list"))
    html = response.content.decode()
    assert badge(html) == str(n)
    assert html.count("Notice ") == min(n, 20)
    assert f"Notice {n - 1}" in html or n > 20  # newest first
    with django_assert_num_queries(5):
        last = client.get(reverse("notifications:list"), {"page": "999"})
    assert last.status_code == 200 and last.context["page"].number == (n + 19) // 20


@pytest.mark.parametrize("n", [0, 40])
def test_the_unread_count_on_another_page_is_one_query(client, n, django_assert_num_queries, catalog):
    user = UserFactory(username="hana")
    give(user, n)
    login(client, user)
    with django_assert_num_queries(3):  # session, user, the unread count
        response = client.get(reverse("account"))
    assert badge(response.content.decode()) == (str(n) if n else None)
    assert reverse("notifications:settings") in response.content.decode()  # linked from the account page


def test_reading_is_a_post_that_goes_to_the_notice_and_never_touches_another_users(client, catalog):
    user, other = UserFactory(username="hana"), UserFactory(username="other")
    give(user, 2)
    give(other, 1)
    mine = Notification.objects.filter(user=user).order_by("id").first()
    theirs = Notification.objects.get(user=other)
    login(client, user)
    url = reverse("notifications:read", kwargs={"pk": mine.pk})
    assert client.get(url).status_code == 405
    mine.refresh_from_db()
    assert mine.read_at is None
    response = client.post(url)
    assert response.status_code == 302 and response["Location"] == "/rules/"
    mine.refresh_from_db()
    assert mine.read_at is not None
    assert client.post(reverse("notifications:read", kwargs={"pk": theirs.pk})).status_code == 403
    theirs.refresh_from_db()
    assert theirs.read_at is None
    assert client.post(reverse("notifications:read_all")).status_code == 302
    assert not Notification.objects.filter(user=user, read_at__isnull=True).exists()
    assert Notification.objects.filter(user=other, read_at__isnull=True).count() == 1
    assert badge(client.get(reverse("notifications:list")).content.decode()) is None


def test_the_pages_need_a_login(client):
    for name in ("notifications:list", "notifications:settings"):
        response = client.get(reverse(name))
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_the_settings_page_saves_each_kind(client, catalog):
    user = UserFactory(username="hana")
    login(client, user)
    page = client.get(reverse("notifications:settings")).content.decode()
    assert page.count('type="checkbox"') == 2 * len(Kind.values)
    assert page.count("checked") == 2 * len(Kind.values)  # everything on at first
    data = {f"{kind}_email": "on" for kind in Kind.values} | {f"{kind}_site": "on" for kind in Kind.values}
    del data[f"{Kind.NEWSLETTER}_email"], data[f"{Kind.DEADLINE}_site"]
    response = client.post(reverse("notifications:settings"), data)
    assert response.status_code == 302
    prefs = services.user_preferences(user)
    assert prefs[Kind.NEWSLETTER] == (False, True) and prefs[Kind.DEADLINE] == (True, False)
    assert prefs[Kind.FIXTURE] == (True, True)
    page = client.get(reverse("notifications:settings")).content.decode()
    assert page.count("checked") == 2 * len(Kind.values) - 2


# --- unsubscribe -----------------------------------------------------------------------------------


def test_the_unsubscribe_link_asks_on_get_and_acts_on_post(client, catalog):
    user = UserFactory(username="hana")
    url = reverse("notifications:unsubscribe", kwargs={"token": make_token(user_id=user.pk, kind=Kind.RESULT)})
    page = client.get(url)
    assert page.status_code == 200 and 'method="post"' in page.content.decode()
    assert not Preference.objects.exists()  # no GET writes
    done = client.post(url)
    assert done.status_code == 200 and "no longer be emailed" in done.content.decode()
    assert services.user_preferences(user)[Kind.RESULT] == (False, True)
    assert services.user_preferences(user)[Kind.FIXTURE] == (True, True)


def test_a_mail_clients_one_click_post_needs_no_session_and_no_csrf_token(catalog):
    user = UserFactory(username="hana")
    client = Client(enforce_csrf_checks=True)
    url = reverse("notifications:unsubscribe", kwargs={"token": make_token(user_id=user.pk, kind=Kind.DEADLINE)})
    response = client.post(url, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200
    assert services.user_preferences(user)[Kind.DEADLINE] == (False, True)


def _forged_tokens(user_id: int) -> dict[str, str]:
    good = make_token(user_id=user_id, kind=Kind.RESULT)
    _payload, rest = good.split(":", 1)
    other_kind = signing.dumps([user_id, Kind.FIXTURE], salt=SALT)
    return {
        "altered signature": good[:-2] + ("AA" if not good.endswith("AA") else "BB"),
        "another kind's payload": other_kind.split(":", 1)[0] + ":" + rest,
        "another user": signing.dumps([user_id + 1, Kind.RESULT], salt=SALT).split(":", 1)[0] + ":" + rest,
        "another salt": signing.dumps([user_id, Kind.RESULT]),
        "an unknown kind": signing.dumps([user_id, "everything"], salt=SALT),
        "not a list": signing.dumps({"user": user_id}, salt=SALT),
        "garbage": "not-a-token",
    }


def test_forged_altered_or_foreign_tokens_are_refused_and_write_nothing(client, catalog):
    user = UserFactory(username="hana")
    for label, token in _forged_tokens(user.pk).items():
        assert read_token(token) is None, label
        url = reverse("notifications:unsubscribe", kwargs={"token": token})
        assert client.get(url).status_code == 400, label
        assert client.post(url).status_code == 400, label
    assert not Preference.objects.exists()


def test_an_expired_token_is_refused(client, settings, catalog, monkeypatch):
    user = UserFactory(username="hana")
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - settings.NOTIFICATIONS_UNSUBSCRIBE_MAX_AGE - 60)
    old = make_token(user_id=user.pk, kind=Kind.RESULT)
    monkeypatch.setattr(time, "time", real)
    assert read_token(old) is None
    assert read_token(make_token(user_id=user.pk, kind=Kind.RESULT)) is not None
    assert client.post(reverse("notifications:unsubscribe", kwargs={"token": old})).status_code == 400
    assert not Preference.objects.exists()


def test_the_link_in_a_notification_email_unsubscribes_from_its_kind(
    client, match, alice, bob, django_capture_on_commit_callbacks
):
    from matches import services as match_services

    match_services.match_kick_off(match=match)
    match.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        match_services.match_submit_result(match=match, record=record_for(match, (3, 1)), actor=alice)
    (message,) = mail.outbox
    link = re.search(r"https://league\.example(/notifications/unsubscribe/\S+)", message.body).group(1)
    assert client.post(link).status_code == 200
    assert services.user_preferences(bob)[Kind.TO_CONFIRM] == (False, True)


# --- the outbox ------------------------------------------------------------------------------------


@pytest.fixture
def broker_down():
    need(shutil.which("redis-server") is not None, "redis-server")
    from league.celery import app
    from outbox.dispatch import reset_broker_connections

    server = RedisServer()
    server.start()
    old = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.broker_url = f"redis://127.0.0.1:{server.port}/0"
    app.conf.task_always_eager = False
    reset_broker_connections(app)
    server.stop()
    try:
        yield app
    finally:
        app.conf.broker_url, app.conf.task_always_eager = old
        reset_broker_connections(app)


def test_with_the_broker_down_a_notification_email_waits_in_the_outbox_and_is_sent_once(
    client, match, alice, bob, broker_down, django_capture_on_commit_callbacks
):
    from matches import services as match_services

    match_services.match_kick_off(match=match)
    match.refresh_from_db()
    login(client, alice)
    with django_capture_on_commit_callbacks(execute=True):
        match_services.match_submit_result(match=match, record=record_for(match, (3, 1)), actor=alice)
    assert mail.outbox == []  # delayed...
    assert Notification.objects.filter(user=bob, kind=Kind.TO_CONFIRM).count() == 1  # ...the site's list is not
    stored = OutboxTask.objects.get()
    assert stored.task_name == "outbox.send_mail" and stored.status == OutboxTask.Status.PENDING
    broker_down.conf.task_always_eager = True  # the broker is back (here: tasks run in-process)
    assert redispatch_pending() == 1
    assert redispatch_pending() == 0
    assert [m.to for m in mail.outbox] == [["bob@example.org"]]
    assert "A result waits for your confirmation" in mail.outbox[0].subject
