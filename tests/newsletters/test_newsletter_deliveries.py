"""The master sees the emails of a published newsletter that are not sent, and sends them again
after confirming (issue 11, finding 3: deliveries of a newsletter published during a broker outage
stayed pending forever, and nothing showed them)."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from newsletters import services
from newsletters.models import Newsletter, NewsletterDelivery
from newsletters.periods import Period
from tests.newsletters.backends import FailingForSomeBackend

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(seeded, settings, django_capture_on_commit_callbacks) -> Newsletter:
    """Round 2's newsletter, published: one player's mailbox refuses everything (failed), and one
    delivery's task was lost (pending, as after a broker outage before the fix)."""
    settings.EMAIL_BACKEND = "tests.newsletters.backends.FailingForSomeBackend"
    FailingForSomeBackend.reset(always_fail=[seeded.tigers.owner.email])
    with django_capture_on_commit_callbacks(execute=True):
        newsletter = services.newsletter_request(league=seeded.league, period=Period.round(1, 2))
    newsletter.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        services.newsletter_publish(newsletter=newsletter, actor=seeded.league.master)
    lost = NewsletterDelivery.objects.get(newsletter=newsletter, user=seeded.squids.owner)
    NewsletterDelivery.objects.filter(pk=lost.pk).update(status=NewsletterDelivery.Status.PENDING, sent_at=None)
    mail.outbox.clear()
    newsletter.refresh_from_db()
    return newsletter


def deliveries_url(newsletter: Newsletter) -> str:
    return reverse(
        "newsletters:deliveries", kwargs={"league_slug": newsletter.league.slug, "key": newsletter.period_key}
    )


def test_the_master_sees_the_unsent_emails_and_sends_them_again(
    seeded, published, client, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    client.force_login(seeded.league.master)
    page = client.get(published.get_absolute_url()).content.decode()
    assert "See the emails not sent, and send them again" in page
    with django_assert_max_num_queries(10):
        response = client.get(deliveries_url(published))
    body = response.content.decode()
    assert response.status_code == 200
    assert "3 sent, 1 waiting, 1 failed" in body
    assert seeded.tigers.owner.username in body and "SMTPRecipientsRefused" in body  # the failed one, with why
    assert seeded.squids.owner.username in body  # the waiting one
    assert seeded.foxes.owner.username not in body  # sent: not listed
    assert "Send 2 emails again" in body  # the confirmation names what it does

    FailingForSomeBackend.reset()  # the mailbox works again
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(deliveries_url(published), follow=True)
    assert response.status_code == 200 and "2 emails are being sent again." in response.content.decode()
    assert sorted(m.to[0] for m in mail.outbox) == sorted([seeded.tigers.owner.email, seeded.squids.owner.email])
    statuses = set(NewsletterDelivery.objects.filter(newsletter=published).values_list("status", flat=True))
    assert statuses == {NewsletterDelivery.Status.SENT}
    assert "Every email of this newsletter is sent." in client.get(deliveries_url(published)).content.decode()

    # Nothing left: asking again sends nobody a second email.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(deliveries_url(published))
    assert len(mail.outbox) == 2


def test_a_get_changes_nothing_and_only_the_master_may_resend(seeded, published, client):
    before = list(NewsletterDelivery.objects.order_by("id").values_list("status", "attempts"))
    client.force_login(seeded.league.master)
    assert client.get(deliveries_url(published)).status_code == 200
    client.force_login(seeded.tigers.owner)
    assert client.get(deliveries_url(published)).status_code == 403
    assert client.post(deliveries_url(published)).status_code == 403
    assert list(NewsletterDelivery.objects.order_by("id").values_list("status", "attempts")) == before
    assert mail.outbox == []
