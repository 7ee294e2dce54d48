"""Every link in every email and feed is on SITE_URL's host (issue 27, finding 2).

The site sends these emails (``MAIL_SENDERS`` lists where, and a test fails when a new place
sends one): a notification of each kind, a newsletter, a password reset, an email change link and
the notice of a changed email, the notice of an API token revoked by a new password. Each is made here through the site's own pages, as a request from
``testserver`` (an allowed host that is *not* the site's), with a SITE_URL of the test's own; then
every absolute link in each mail (text, HTML, headers) and in the newsletter feed must be on it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.core import mail
from django.urls import reverse

from notifications.models import Kind
from notifications.services import notify
from tests.factories import PASSWORD
from tests.support import run_tasks_eagerly

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

SITE = "https://league.example.test:8443"
ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"(?:https?:)?//[^\s\"'<>]+", re.IGNORECASE)
#: XML and SVG namespaces are names, not links.
NAMESPACES = ("http://www.w3.org/",)

#: Where the site sends mail: (module, calls of send_mail_on_commit / EmailMultiAlternatives).
MAIL_SENDERS = {
    "notifications/services.py": 1,  # every kind of notification (one builder)
    "newsletters/services.py": 1,  # the newsletter
    "teams/accounts.py": 4,  # password reset, email change link, email changed notice, token revoked
}

celery_eager = pytest.fixture(autouse=True)(run_tasks_eagerly)


@pytest.fixture(autouse=True)
def site(settings, fresh_locmem_cache):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = SITE
    settings.ACCOUNT_MAIL_RATE_LIMIT = 1000


@pytest.fixture(autouse=True)
def commits(django_capture_on_commit_callbacks, monkeypatch):
    """Run what each request leaves for after its commit (the mail dispatch), as a real request does."""
    from django.test import Client

    original = Client.request

    def request(self, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return original(self, **kwargs)

    monkeypatch.setattr(Client, "request", request)


def links(text: str) -> list[str]:
    return [link for link in LINK.findall(text) if not link.startswith(NAMESPACES)]


def mail_links(message) -> list[str]:
    texts = [
        message.body,
        *(content for content, _type in getattr(message, "alternatives", [])),
        *message.extra_headers.values(),
    ]
    return [link for text in texts for link in links(text)]


def off_site(found: list[str]) -> list[str]:
    return [link for link in found if not link.startswith(SITE + "/")]


def test_every_place_that_sends_mail_is_covered():
    found = {}
    packages = [p.parent for p in ROOT.glob("*/__init__.py") if p.parent.name not in {"tests", "outbox", "benchmarks"}]
    for path in (path for package in packages for path in package.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if "/migrations/" in relative:
            continue
        calls = [
            node
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None))
            in {"send_mail_on_commit", "EmailMultiAlternatives", "EmailMessage", "send_mail", "send_mass_mail"}
        ]
        if calls:
            found[relative] = len(calls)
    assert found == MAIL_SENDERS, "a new kind of email: render it in this file's tests and list it"


def test_every_link_of_every_email_and_of_the_feed_is_on_site_url(client, django_capture_on_commit_callbacks):
    from tests.newsletters.helpers import seed_league

    seeded = seed_league()
    master = seeded.league.master
    player = seeded.tigers.owner
    sent: dict[str, list] = {}

    def collect(kind: str) -> None:
        assert mail.outbox, f"no mail for {kind}"
        sent[kind] = list(mail.outbox)
        mail.outbox.clear()

    mail.outbox.clear()
    # Notifications, every kind (one builder; each kind has its own unsubscribe link and header).
    for kind in Kind.values:
        with django_capture_on_commit_callbacks(execute=True):
            notify(kind=kind, messages=[(player.pk, f"A {kind} happened", seeded.league.get_absolute_url())])
        collect(f"notification {kind}")

    # The newsletter, built and published by the master through its pages.
    client.force_login(master)
    from newsletters import services as newsletter_services
    from newsletters.periods import Period

    with django_capture_on_commit_callbacks(execute=True):
        newsletter = newsletter_services.newsletter_request(league=seeded.league, period=Period.round(1, 2))
    newsletter.refresh_from_db()
    publish = reverse("newsletters:publish", kwargs={"league_slug": seeded.league.slug, "key": newsletter.period_key})
    assert client.post(publish, {"send_email": "on"}).status_code == 302
    sent["newsletter"] = [m for m in mail.outbox if m.subject.startswith(f"[{seeded.league.name}]")]
    assert len(sent["newsletter"]) == 5
    mail.outbox.clear()
    client.logout()

    # The password reset and the change of email (and its notice), through their pages.
    assert client.post(reverse("password_reset"), {"email": player.email}).status_code == 302
    collect("password reset")
    client.force_login(player)
    assert client.post(reverse("email_change"), {"email": "tiger@example.org", "password": PASSWORD}).status_code == 302
    collect("email change")
    confirm = re.search(r"https?://[^\s/]+(/\S+)", sent["email change"][0].body).group(1)
    assert client.post(confirm).status_code == 302
    collect("email changed notice")
    from rest_framework.authtoken.models import Token

    Token.objects.create(user=player)
    new = "Lantern-Harbour-27"
    changed = client.post(
        reverse("password_change"), {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    )
    assert changed.status_code == 302
    collect("password changed, API token revoked")

    problems = {kind: off_site([link for m in messages for link in mail_links(m)]) for kind, messages in sent.items()}
    assert {kind: bad for kind, bad in problems.items() if bad} == {}
    without_links = [kind for kind, messages in sent.items() if not any(mail_links(m) for m in messages)]
    assert without_links == ["email changed notice"]  # the only mail with no link

    # The newsletter feed, asked for from another allowed host.
    feed = client.get(reverse("newsletters:feed", kwargs={"league_slug": seeded.league.slug}))
    assert feed.status_code == 200
    found = links(feed.content.decode())
    assert len(found) >= 3 and off_site(found) == []
    assert "testserver" not in feed.content.decode() and "localhost" not in feed.content.decode()


def test_site_url_comes_from_the_environment_and_the_readme_documents_it():
    from tests.test_settings import _run_settings

    assert (
        _run_settings({"SITE_URL": "https://league.example.org/"}, "print(s.SITE_URL)") == "https://league.example.org"
    )
    assert _run_settings({}, "print(s.SITE_URL)") == "http://localhost:8000"  # local use: runserver's
    readme = (ROOT / "README.md").read_text().split("## Configuration", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"^\| `SITE_URL` \|", readme, re.MULTILINE)
