"""Errors a user can meet have styled pages (issue 11, finding 11): 403, 404 and 500 (and 400, and
the expired-form 403) with the site's navigation and a sentence saying what happened. With DEBUG
off, as in production.
"""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from tests.factories import LeagueFactory, UserFactory

NAV = ('href="/leagues/"', 'href="/teams/"', 'href="/rules/"', "Moonlight League", "/static/css/site")


@pytest.fixture(autouse=True)
def production_errors(settings):
    settings.DEBUG = False


def assert_styled(resp, status: int, sentence: str) -> str:
    body = resp.content.decode()
    assert resp.status_code == status
    for piece in NAV:
        assert piece in body, piece
    assert sentence in body
    assert "<title>" in body and "Moonlight League</title>" in body
    return body


def test_404_page(db):
    client = Client()
    for url in ("/teams/999999/", "/no-such-page/", "/leagues/no-such-league/"):
        body = assert_styled(client.get(url), 404, "There is no page at this address")
        assert "Log in" in body  # the navigation knows who is (not) signed in


def test_404_page_for_a_member_shows_their_name(db):
    client = Client()
    client.force_login(UserFactory(username="lost-player"))
    body = assert_styled(client.get("/teams/999999/"), 404, "There is no page at this address")
    assert "lost-player" in body


def test_403_page_says_what_is_not_allowed(db):
    league = LeagueFactory(slug="not-yours")
    client = Client()
    client.force_login(UserFactory(username="not-the-master"))
    body = assert_styled(
        client.get(reverse("league:edit", kwargs={"slug": league.slug})), 403, "You may not see or do this"
    )
    assert "Only the league&#x27;s ninja master may do this." in body
    assert "not-the-master" in body


def test_expired_form_page(db):
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory())
    assert_styled(client.post(reverse("teams:create"), {"name": "x"}), 403, "This form has expired")


def test_400_page(db):
    assert_styled(Client().get("/teams/?page=%00"), 400, "could not understand this request")


def test_500_page(db, monkeypatch):
    import league.selectors

    def broken(*args, **kwargs):
        raise RuntimeError("the database fell over")

    monkeypatch.setattr(league.selectors, "leagues_for_list", broken)
    client = Client(raise_request_exception=False)
    client.force_login(UserFactory(username="unlucky"))
    body = assert_styled(client.get(reverse("league:list")), 500, "Something went wrong on our side")
    assert "The error has been logged" in body
    assert "the database fell over" not in body and "Traceback" not in body
    assert "unlucky" not in body and "Log in" not in body  # rendered without the request


def test_500_page_needs_no_request_and_no_query(db, django_assert_num_queries):
    """Django renders 500.html with no context: it must not need the user, messages or the database."""
    from django.views.defaults import server_error

    request = RequestFactory().get("/")
    with django_assert_num_queries(0):
        resp = server_error(request)
    assert_styled(resp, 500, "Something went wrong on our side")
