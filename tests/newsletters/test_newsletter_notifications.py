"""A newsletter published (issue 14, part 3): every player is told in the site's list; the email
is the newsletter itself, sent only to those who take newsletters by email, with a one-click
unsubscribe link for the newsletter kind."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from django.urls import resolve

from newsletters import services
from newsletters.models import NewsletterDelivery
from newsletters.periods import Period
from notifications import services as notification_services
from notifications.models import Kind, Notification
from notifications.tokens import read_token

pytestmark = pytest.mark.django_db


def build_and_publish(seeded, capture):
    with capture(execute=True):
        newsletter = services.newsletter_request(league=seeded.league, period=Period.round(1, 2))
    newsletter.refresh_from_db()
    with capture(execute=True):
        services.newsletter_publish(newsletter=newsletter, actor=seeded.league.master)
    newsletter.refresh_from_db()
    return newsletter


def test_publishing_tells_every_player_but_the_publisher_and_honours_the_email_choice(
    seeded, mailoutbox, django_capture_on_commit_callbacks
):
    carol = seeded.foxes.owner
    notification_services.preferences_set(user=carol, choices={Kind.NEWSLETTER: (False, True)})
    Notification.objects.all().delete()
    newsletter = build_and_publish(seeded, django_capture_on_commit_callbacks)

    told = set(Notification.objects.filter(kind=Kind.NEWSLETTER).values_list("user__username", flat=True))
    assert told == {"alice", "bob", "carol", "dave"}  # not the master who published it
    assert set(Notification.objects.filter(kind=Kind.NEWSLETTER).values_list("url", flat=True)) == {
        newsletter.get_absolute_url()
    }
    # one email per player who takes them (the master too: he is a recipient of his league's newsletter)
    assert sorted(m.to[0] for m in mailoutbox) == sorted(
        ["alice@example.org", "bob@example.org", "dave@example.org", "sensei@example.org"]
    )
    assert NewsletterDelivery.objects.get(user=carol).status == NewsletterDelivery.Status.SKIPPED
    message = next(m for m in mailoutbox if m.to == ["alice@example.org"])
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = message.extra_headers["List-Unsubscribe"].strip("<>")
    token = resolve(urlparse(link).path).kwargs["token"]
    found = read_token(token)
    assert found is not None and found.kind == Kind.NEWSLETTER and found.user_id == seeded.tigers.owner_id
