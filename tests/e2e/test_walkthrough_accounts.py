"""The dashboard, a confirmation and a password reset in a real browser (issue 14): headless
Chromium on a phone-sized screen against pytest-django's live server.

A season is seeded through the services: player A has kicked off and entered a result against
player B. Player B signs in: the dashboard lists the result to confirm and the next fixture; B
follows it and confirms. Player A, signed in, sees the unread count in the navigation and the
notification that the result is confirmed, and its email was sent (through the outbox's task).
Then A, who has forgotten the password, follows the log-in page's "Forgot your password?": a link
is mailed, A opens it, chooses a new password and signs in with it. Every page is audited by
axe-core (tests/e2e/axe.py).
"""

from __future__ import annotations

import re

import pytest
from django.core import mail

from tests.e2e.axe import audit
from tests.e2e.test_walkthrough import PHONE

PASSWORD = "Moonlit-Path-2468!"
NEW_PASSWORD = "Another-Moon-1357!"


def seed():
    from league import services as league_services
    from matches import services as match_services
    from matches.models import Match
    from tests.factories import LeagueFactory, UserFactory, make_legal_team
    from tests.support import record_for

    akira = UserFactory(username="akira", email="akira@example.org", password=PASSWORD)
    botan = UserFactory(username="botan", email="botan@example.org", password=PASSWORD)
    league = LeagueFactory(name="Lantern League", results_need_confirmation=True)
    season = league_services.season_create(league=league, format="double_round_robin")
    tigers = make_legal_team("tora", owner=akira, name="Paper Tigers", league=league)
    foxes = make_legal_team("kitsune", owner=botan, name="Silver Foxes", league=league)
    for team in (tigers, foxes):
        league_services.application_accept(team=team)
    run = league_services.schedule_request(season=season, kind="round_robin", seed=7)
    league_services.schedule_generate(run_id=run.pk)
    first = Match.objects.filter(season=season).order_by("round_number", "pk").first()
    match_services.match_kick_off(match=first)
    record = record_for(first, {s.team_id: (3 if s.team_id == tigers.pk else 1) for s in first.sides.all()})
    match_services.match_submit_result(match=first, record=record, actor=akira)
    first.refresh_from_db()
    assert first.status == Match.Status.SUBMITTED
    return season, first


@pytest.mark.slow(reason="a walk-through in Chromium, each page audited by axe-core")
def test_dashboard_confirmation_and_password_reset(
    transactional_db, live_server, catalog, eager_celery, browser, settings
):
    from django.db import connections

    settings.SITE_URL = live_server.url  # the emails' links lead to this server (SITE_URL, issue 27)
    try:
        walk(live_server.url, browser)
    finally:
        connections.close_all()


def check(page, label: str) -> None:
    _, found = audit(page, label=label)
    assert not found, "\n".join(map(str, found))


def walk(base: str, browser) -> None:
    from matches.models import Match

    _, match = seed()
    page = browser.new_context(**PHONE).new_page()
    page.set_default_timeout(15_000)

    # Player B signs in: the dashboard lists the result to confirm and the next fixture.
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "botan")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")
    todo = page.locator("[data-testid=to-confirm]")
    assert todo.count() == 1 and "Paper Tigers" in todo.inner_text()
    assert page.locator("[data-testid=next-fixtures] tbody tr").count() >= 1
    check(page, "dashboard with a result to confirm")

    # ... follows it and confirms.
    todo.get_by_role("link", name="Confirm or reject").click()
    page.wait_for_url(f"{base}/matches/{match.pk}/")
    check(page, "match waiting for confirmation")
    page.get_by_role("button", name="Confirm the result").click()
    page.wait_for_load_state()
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    page.goto(f"{base}/")
    assert page.locator("[data-testid=to-confirm]").count() == 0

    # Player A is told: the unread count, the notification, and its email.
    confirmed_mails = [m for m in mail.outbox if m.to == ["akira@example.org"] and "confirmed" in m.subject.lower()]
    assert len(confirmed_mails) == 1, [(m.to, m.subject) for m in mail.outbox]
    assert "/notifications/unsubscribe/" in confirmed_mails[0].body
    context = browser.new_context(**PHONE)
    a = context.new_page()
    a.set_default_timeout(15_000)
    a.goto(f"{base}/accounts/login/")
    a.fill("#id_username", "akira")
    a.fill("#id_password", PASSWORD)
    a.get_by_role("button", name="Log in").click()
    a.wait_for_url(f"{base}/")
    unread = a.locator("a.nav-link[href='/notifications/'] .badge")
    assert unread.count() == 1 and int(unread.text_content().split()[0]) >= 1
    a.goto(f"{base}/notifications/")
    items = a.locator("li.list-group-item")
    assert any("Result confirmed" in items.nth(i).inner_text() for i in range(items.count()))
    check(a, "notifications")
    a.get_by_role("button", name="Menu").click()
    a.get_by_role("button", name="Log out").click()
    a.wait_for_url(f"{base}/")

    # ... and has forgotten the password: reset by email.
    a.goto(f"{base}/accounts/login/")
    a.get_by_role("link", name="Forgot your password?").click()
    a.wait_for_url(f"{base}/accounts/password/reset/")
    check(a, "password reset form")
    sent = len(mail.outbox)
    a.fill("#id_email", "akira@example.org")
    a.get_by_role("button", name="Send the link").click()
    a.wait_for_url(f"{base}/accounts/password/reset/sent/")
    reset_mails = [m for m in mail.outbox[sent:] if m.to == ["akira@example.org"] and "password" in m.subject.lower()]
    assert len(reset_mails) == 1
    link = re.search(r"https?://\S+/accounts/password/reset/\S+/", reset_mails[0].body).group(0)
    a.goto(link)
    a.wait_for_url(re.compile(r"/accounts/password/reset/[^/]+/set-password/$"))
    check(a, "choose a new password")
    a.fill("#id_new_password1", NEW_PASSWORD)
    a.fill("#id_new_password2", NEW_PASSWORD)
    a.get_by_role("button", name="Set the password").click()
    a.wait_for_url(f"{base}/accounts/password/reset/done/")
    a.get_by_role("link", name="Log in").click()
    a.fill("#id_username", "akira")
    a.fill("#id_password", NEW_PASSWORD)
    a.get_by_role("button", name="Log in").click()
    a.wait_for_url(f"{base}/")
    assert "Welcome, akira" in a.inner_text("h1")
    context.close()
