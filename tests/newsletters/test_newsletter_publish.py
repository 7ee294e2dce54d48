"""Publishing: the email to every player, failures isolated and retried, the feed, the archive
frozen as published, and the editorial sanitized."""

from __future__ import annotations

import feedparser
import pytest
from django.core import mail
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from matches import services as match_services
from newsletters import services
from newsletters.models import Newsletter, NewsletterDelivery
from newsletters.periods import Period
from newsletters.tasks import DELIVERY_MAX_RETRIES
from tests.newsletters.backends import FailingForSomeBackend
from tests.newsletters.helpers import play


@pytest.fixture
def built(seeded, django_capture_on_commit_callbacks):
    """The seeded league's round 2 newsletter, built (draft)."""

    def make(period: Period = Period.round(1, 2)) -> Newsletter:
        with django_capture_on_commit_callbacks(execute=True):
            newsletter = services.newsletter_request(league=seeded.league, period=period)
        newsletter.refresh_from_db()
        assert newsletter.is_built
        return newsletter

    return make


def publish(newsletter, actor, capture, **kw) -> Newsletter:
    with capture(execute=True):
        published = services.newsletter_publish(newsletter=newsletter, actor=actor, **kw)
    published.refresh_from_db()
    return published


@pytest.mark.django_db
def test_publishing_emails_every_player_a_text_and_html_message(
    seeded, built, mailoutbox, django_capture_on_commit_callbacks
):
    newsletter = built()
    services.newsletter_update(
        newsletter=newsletter, title="The Apes stun the Squids", editorial="What a *round*.", actor=seeded.league.master
    )
    published = publish(newsletter, seeded.league.master, django_capture_on_commit_callbacks)

    assert published.is_published and published.published_at is not None
    assert published.permalink == "https://league.example" + reverse(
        "newsletters:detail", kwargs={"league_slug": seeded.league.slug, "key": "season-1-round-2"}
    )
    players = {u.email for u in seeded.players}
    assert len(players) == 5
    assert {m.to[0] for m in mailoutbox} == players
    assert len(mailoutbox) == 5
    message = mailoutbox[0]
    assert message.subject == "[Moonlight Test League] The Apes stun the Squids"
    assert "Upset! Apes beat Squids 3–1" in message.body
    assert "What a *round*." in message.body
    assert published.permalink in message.body
    ((html, mimetype),) = message.alternatives
    assert mimetype == "text/html"
    assert "<em>round</em>" in html and "Upset! Apes beat Squids 3–1" in html and "<svg" in html
    assert f'href="https://league.example/teams/{seeded.apes.pk}/"' in html  # links made absolute
    deliveries = NewsletterDelivery.objects.filter(newsletter=published)
    assert deliveries.count() == 5
    assert set(deliveries.values_list("status", flat=True)) == {NewsletterDelivery.Status.SENT}
    assert set(deliveries.values_list("attempts", flat=True)) == {1}

    # Asking again emails nobody twice; publishing twice is refused.
    with django_capture_on_commit_callbacks(execute=True):
        assert services.newsletter_email_players(newsletter=published) == []
    assert len(mailoutbox) == 5
    with pytest.raises(ValidationError):
        services.newsletter_publish(newsletter=published, actor=seeded.league.master)


@pytest.fixture
def eager_retries():
    """Celery runs an eager task's retries in-process only when eager errors do not propagate
    (a worker retries with backoff instead)."""
    from league.celery import app

    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = True


@pytest.mark.django_db
def test_a_failing_send_for_one_player_does_not_stop_the_others_and_is_retried(
    seeded,
    built,
    settings,
    eager_retries,
    django_capture_on_commit_callbacks,
):
    settings.EMAIL_BACKEND = "tests.newsletters.backends.FailingForSomeBackend"
    bad, flaky = seeded.tigers.owner.email, seeded.squids.owner.email
    FailingForSomeBackend.reset(always_fail=[bad], flaky={flaky: 2})
    published = publish(built(), seeded.league.master, django_capture_on_commit_callbacks)

    delivered = [m.to[0] for m in mail.outbox]
    assert sorted(delivered) == sorted(u.email for u in seeded.players if u.email != bad)
    assert delivered.count(flaky) == 1  # failed twice, retried, delivered once
    rows = {d.email: d for d in NewsletterDelivery.objects.filter(newsletter=published)}
    assert rows[flaky].status == NewsletterDelivery.Status.SENT and rows[flaky].attempts == 3
    assert rows[bad].status == NewsletterDelivery.Status.FAILED
    assert rows[bad].attempts == 1 + DELIVERY_MAX_RETRIES  # bounded retries
    assert "SMTPRecipientsRefused" in rows[bad].last_error
    assert FailingForSomeBackend.attempts[bad] == 1 + DELIVERY_MAX_RETRIES

    # Once the mailbox works, asking again sends only the failed one.
    FailingForSomeBackend.reset()
    with django_capture_on_commit_callbacks(execute=True):
        services.newsletter_email_players(newsletter=published)
    assert [m.to[0] for m in mail.outbox].count(bad) == 1
    assert len(mail.outbox) == 5


@pytest.mark.django_db
def test_a_failure_raised_eagerly_still_lets_the_others_through(
    seeded,
    built,
    settings,
    django_capture_on_commit_callbacks,
):
    """Eager mode with errors propagating (the embedded default): the failing send raises inside
    its own after-commit callback, which is robust, so the other players still get theirs."""
    settings.EMAIL_BACKEND = "tests.newsletters.backends.FailingForSomeBackend"
    bad = seeded.apes.owner.email
    FailingForSomeBackend.reset(always_fail=[bad])
    published = publish(built(), seeded.league.master, django_capture_on_commit_callbacks)
    assert sorted(m.to[0] for m in mail.outbox) == sorted(u.email for u in seeded.players if u.email != bad)
    failed = NewsletterDelivery.objects.get(newsletter=published, email=bad)
    assert (failed.status, failed.attempts) == (NewsletterDelivery.Status.FAILED, 1)


@pytest.mark.django_db
def test_a_player_without_an_email_address_is_skipped(seeded, built, mailoutbox, django_capture_on_commit_callbacks):
    owner = seeded.foxes.owner
    owner.email = ""
    owner.save(update_fields=["email"])
    published = publish(built(), seeded.league.master, django_capture_on_commit_callbacks)
    assert len(mailoutbox) == 4
    assert NewsletterDelivery.objects.get(newsletter=published, user=owner).status == NewsletterDelivery.Status.SKIPPED


@pytest.mark.django_db
def test_publishing_without_email_sends_nothing(seeded, built, mailoutbox, django_capture_on_commit_callbacks):
    publish(built(), seeded.league.master, django_capture_on_commit_callbacks, send_email=False)
    assert mailoutbox == []
    assert not NewsletterDelivery.objects.exists()


@pytest.mark.django_db
def test_a_published_newsletter_is_unchanged_after_later_results_and_a_rebuild(
    seeded,
    built,
    client,
    django_capture_on_commit_callbacks,
):
    newsletter = built()
    services.newsletter_update(
        newsletter=newsletter, title="Round two", editorial="As it was.", actor=seeded.league.master
    )
    published = publish(newsletter, seeded.league.master, django_capture_on_commit_callbacks, send_email=False)
    frozen = Newsletter.objects.values(
        "title", "editorial_html", "sections", "content_html", "content_text", "published_at", "builds"
    ).get(pk=published.pk)
    page_before = client.get(published.get_absolute_url()).content

    # Results change afterwards: the upset is voided, a third round is played.
    match_services.match_void(match=seeded.matches["r2b"], actor=seeded.league.master, reason="Wrong roster")
    play(seeded.league, seeded.season, 3, seeded.squids, seeded.tigers, 4, 0)
    # ... and the build runs again for the same period, by request, by the task and by the schedule.
    with django_capture_on_commit_callbacks(execute=True):
        again = services.newsletter_request(league=seeded.league, period=Period.round(1, 2))
    assert again.pk == published.pk
    services.newsletter_build(newsletter_id=published.pk)
    with pytest.raises(ValidationError):
        services.newsletter_update(newsletter=published, title="Changed", editorial="", actor=seeded.league.master)

    assert (
        Newsletter.objects.values(
            "title", "editorial_html", "sections", "content_html", "content_text", "published_at", "builds"
        ).get(pk=published.pk)
        == frozen
    )
    assert client.get(published.get_absolute_url()).content == page_before
    # The facts did change: a fresh composition of the same period no longer has the upset.
    fresh = services.compose_sections(Newsletter.objects.select_related("league", "season").get(pk=published.pk))
    assert len(fresh["reports"]) == 1
    assert "Upset! Apes beat Squids 3–1" in frozen["content_html"]


@pytest.mark.django_db
def test_the_editorial_is_markdown_rendered_safely(seeded, built, client):
    newsletter = built()
    evil = (
        "Hello **ninjas** of the [league](https://example.org).\n\n"
        "<script>alert('x')</script>\n\n"
        '[click](javascript:alert(1)) <img src=x onerror=alert(2)> <a href="/" onclick="steal()">home</a>\n\n'
        '<style>body{display:none}</style><iframe src="https://evil.example"></iframe>'
    )
    updated = services.newsletter_update(
        newsletter=newsletter, title="Safe", editorial=evil, actor=seeded.league.master
    )
    html = updated.editorial_html
    assert "<strong>ninjas</strong>" in html
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">league</a>' in html
    for bad in ("<script", "alert('x')", "javascript:", "onerror", "onclick", "<style", "display:none", "<iframe"):
        assert bad not in html
    client.force_login(seeded.league.master)
    page = client.get(newsletter.get_absolute_url()).content.decode()
    assert "<strong>ninjas</strong>" in page and "alert('x')" not in page


@pytest.mark.django_db
def test_only_the_master_publishes_or_edits(seeded, built):
    newsletter = built()
    with pytest.raises(PermissionDenied):
        services.newsletter_publish(newsletter=newsletter, actor=seeded.tigers.owner)
    with pytest.raises(PermissionDenied):
        services.newsletter_update(newsletter=newsletter, title="x", editorial="", actor=seeded.tigers.owner)
    with pytest.raises(PermissionDenied):
        services.newsletter_request(league=seeded.league, period=Period.round(1, 1), actor=seeded.tigers.owner)


@pytest.mark.django_db
def test_the_feed_is_valid_atom_with_the_published_newsletters(
    seeded, built, client, django_capture_on_commit_callbacks
):
    first = publish(
        built(Period.round(1, 1)), seeded.league.master, django_capture_on_commit_callbacks, send_email=False
    )
    second = publish(
        built(Period.round(1, 2)), seeded.league.master, django_capture_on_commit_callbacks, send_email=False
    )
    built(Period.week_of(first.published_at))  # a draft: never in the feed

    response = client.get(reverse("newsletters:feed", kwargs={"league_slug": seeded.league.slug}))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    assert feed.feed.title == "Moonlight Test League newsletters"
    assert [e.title for e in feed.entries] == [second.title, first.title]
    assert feed.entries[0].link == "https://league.example" + second.get_absolute_url()  # SITE_URL
    assert "Upset! Apes beat Squids 3–1" in feed.entries[0].summary
    assert feed.entries[0].id != feed.entries[1].id
    assert feed.entries[0].published_parsed is not None


@pytest.mark.django_db
def test_the_page_shows_the_stored_period_label_without_reading_the_sections(
    seeded, built, client, django_capture_on_commit_callbacks
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    newsletter = publish(built(), seeded.league.master, django_capture_on_commit_callbacks, send_email=False)
    label = newsletter.sections["period"]["label"]
    assert label and newsletter.period_label == label
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(newsletter.get_absolute_url())
    assert response.status_code == 200 and label in response.content.decode()
    assert not [q["sql"][:300] for q in ctx.captured_queries if '"sections"' in q["sql"]]
