"""Newsletter pages through the test client: the master's flow, permissions, bounded queries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from newsletters import services
from newsletters.models import Newsletter, NewsletterDelivery
from newsletters.periods import Period
from tests.factories import PASSWORD, LeagueFactory, UserFactory, make_legal_team
from tests.newsletters.helpers import join, play


def url(name: str, newsletter: Newsletter | None = None, **kw) -> str:
    if newsletter is not None:
        kw.update(league_slug=newsletter.league.slug, key=newsletter.period_key)
    return reverse(f"newsletters:{name}", kwargs=kw)


@pytest.fixture
def draft(seeded, django_capture_on_commit_callbacks) -> Newsletter:
    with django_capture_on_commit_callbacks(execute=True):
        newsletter = services.newsletter_request(league=seeded.league, period=Period.round(1, 2))
    newsletter.refresh_from_db()
    return newsletter


@pytest.mark.django_db
def test_the_master_drafts_edits_previews_and_publishes_through_the_pages(
    seeded,
    client,
    mailoutbox,
    django_capture_on_commit_callbacks,
):
    league, master = seeded.league, seeded.league.master
    client.force_login(master)
    page = client.get(url("list", league_slug=league.slug))
    assert page.status_code == 200
    assert b"Draft the newsletter" in page.content and b"season-1-round-2" in page.content

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("build", league_slug=league.slug), {"period": "season-1-round-2"})
    newsletter = Newsletter.objects.get(league=league, period_key="season-1-round-2")
    assert response.status_code == 302 and response["Location"] == newsletter.get_absolute_url()
    status = client.get(url("status", newsletter)).json()
    assert status["state"] == "done" and status["percent"] == 100 and status["ready"] is True

    draft_page = client.get(newsletter.get_absolute_url()).content.decode()
    assert "Draft." in draft_page and "Upset! Apes beat Squids 3–1" in draft_page and "Publish…" in draft_page

    # Preview renders the Markdown without saving it.
    response = client.post(
        url("edit", newsletter), {"title": "Round two", "editorial": "**Bold** words", "preview": "1"}
    )
    assert response.status_code == 200
    assert "<strong>Bold</strong>" in response.content.decode()
    newsletter.refresh_from_db()
    assert newsletter.editorial == ""

    response = client.post(url("edit", newsletter), {"title": "Round two", "editorial": "**Bold** words", "save": "1"})
    assert response.status_code == 302
    newsletter.refresh_from_db()
    assert (newsletter.title, newsletter.editorial_html) == ("Round two", "<p><strong>Bold</strong> words</p>")

    confirm = client.get(url("publish", newsletter))
    assert (
        confirm.status_code == 200
        and b"Publish" in confirm.content
        and b"stays exactly as it is now" in confirm.content
    )
    newsletter.refresh_from_db()
    assert not newsletter.is_published  # the confirmation page changes nothing
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("publish", newsletter), {"send_email": "on"})
    assert response.status_code == 302
    newsletter.refresh_from_db()
    assert newsletter.is_published
    assert newsletter.permalink == "https://league.example" + newsletter.get_absolute_url()  # SITE_URL
    assert len(mailoutbox) == 5
    assert NewsletterDelivery.objects.filter(status="sent").count() == 5

    client.logout()
    public = client.get(newsletter.get_absolute_url())
    assert public.status_code == 200 and b"Round two" in public.content and b"Draft." not in public.content
    listing = client.get(url("list", league_slug=league.slug)).content.decode()
    assert "Round two" in listing and "Draft the newsletter" not in listing


@pytest.mark.django_db
def test_permissions_anonymous_player_and_master(seeded, draft, client):
    other = seeded.tigers.owner
    master_only = [
        ("get", url("detail", draft)),
        ("get", url("edit", draft)),
        ("get", url("publish", draft)),
        ("post", url("publish", draft)),
        ("post", url("rebuild", draft)),
        ("get", url("status", draft)),
        ("post", url("build", league_slug=seeded.league.slug)),
    ]
    for method, target in master_only:
        response = getattr(client, method)(target)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login")), target
    client.login(username=other.username, password=PASSWORD)
    for method, target in master_only:
        assert getattr(client, method)(target).status_code == 403, target
    assert Newsletter.objects.get(pk=draft.pk).status == Newsletter.Status.DRAFT
    # Drafts are not listed for players, and the feed is empty.
    listing = client.get(url("list", league_slug=seeded.league.slug)).content.decode()
    assert draft.title not in listing
    client.force_login(seeded.league.master)
    for method, target in master_only[:3] + master_only[5:6]:
        assert getattr(client, method)(target).status_code == 200, target


@pytest.mark.django_db
def test_a_published_newsletter_and_the_feed_are_public(seeded, draft, client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        services.newsletter_publish(newsletter=draft, actor=seeded.league.master, send_email=False)
    assert client.get(url("detail", draft)).status_code == 200
    assert client.get(url("feed", league_slug=seeded.league.slug)).status_code == 200
    client.force_login(seeded.tigers.owner)
    assert client.get(url("detail", draft)).status_code == 200
    # ... but its draft tools are gone for everyone, the master included.
    client.force_login(seeded.league.master)
    page = client.get(url("detail", draft)).content.decode()
    assert "Rebuild the draft" not in page and "Edit the editorial" not in page
    assert client.get(url("edit", draft)).status_code == 302


@pytest.mark.django_db
def test_unknown_period_or_league_is_404(seeded, draft, client):
    assert client.get(url("list", league_slug="no-such-league")).status_code == 404
    assert client.get(url("detail", league_slug=seeded.league.slug, key="season-9-round-9")).status_code == 404
    assert client.get(url("feed", league_slug="no-such-league")).status_code == 404


@pytest.mark.django_db
def test_asking_for_a_season_that_does_not_exist_is_refused(seeded, client):
    client.force_login(seeded.league.master)
    response = client.post(url("build", league_slug=seeded.league.slug), {"period": "season-7-round-1"}, follow=True)
    assert not Newsletter.objects.exists()
    assert response.status_code == 200


def _league_with_a_round_of(n_matches: int, tag: str, capture):
    """A league whose round 1 has ``n_matches`` confirmed matches (two teams, played repeatedly),
    its newsletter built and published."""
    master = UserFactory(username=f"master-{tag}")
    league = LeagueFactory(master=master, slug=f"queries-{tag}", name=f"Queries {tag}")
    from league import services as league_services

    season = league_services.season_create(league=league, format="round_robin")
    home = join(league, make_legal_team("tora", owner=UserFactory(username=f"h-{tag}"), name="Home", league=league))
    away = join(league, make_legal_team("ika", owner=UserFactory(username=f"a-{tag}"), name="Away", league=league))
    from tests.matches.conftest import choose_pending_rolls

    for i in range(n_matches):
        choose_pending_rolls(home, away)  # a team cannot kick off with an unchosen roll (issue 13)
        play(league, season, 1, home, away, 3 + i % 2, 1)
    with capture(execute=True):
        newsletter = services.newsletter_request(league=league, period=Period.round(1, 1))
    with capture(execute=True):
        services.newsletter_publish(newsletter=Newsletter.objects.get(pk=newsletter.pk), actor=master, send_email=False)
    newsletter.refresh_from_db()
    assert len(newsletter.sections["reports"]) == n_matches
    return newsletter


@pytest.mark.django_db
def test_the_newsletter_page_runs_a_fixed_number_of_queries(
    catalog,
    client,
    django_assert_max_num_queries,
    django_capture_on_commit_callbacks,
):
    small = _league_with_a_round_of(2, "small", django_capture_on_commit_callbacks)
    large = _league_with_a_round_of(8, "large", django_capture_on_commit_callbacks)
    counts = {}
    for newsletter in (small, large):
        for who in (None, newsletter.league.master):
            if who is None:
                client.logout()
            else:
                client.force_login(who)
            with CaptureQueriesContext(connection) as queries:
                response = client.get(newsletter.get_absolute_url())
            assert response.status_code == 200
            counts[(len(newsletter.sections["reports"]), who is not None)] = len(queries)
    assert counts[(2, False)] == counts[(8, False)]
    assert counts[(2, True)] == counts[(8, True)]
    with django_assert_max_num_queries(6):
        client.get(large.get_absolute_url())
    client.logout()
    with django_assert_max_num_queries(3):
        client.get(large.get_absolute_url())
    with django_assert_max_num_queries(3):
        client.get(reverse("newsletters:feed", kwargs={"league_slug": large.league.slug}))
    with django_assert_max_num_queries(3):
        client.get(reverse("newsletters:list", kwargs={"league_slug": large.league.slug}))


@pytest.mark.django_db
def test_the_league_page_links_to_its_newsletters_and_feed(seeded, client):
    page = client.get(seeded.league.get_absolute_url()).content.decode()
    assert url("list", league_slug=seeded.league.slug) in page
    assert url("feed", league_slug=seeded.league.slug) in page
