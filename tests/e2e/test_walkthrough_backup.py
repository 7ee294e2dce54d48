"""A league exported and imported from the site in a real browser (issue 27, finding 12): headless
Chromium on a phone-sized screen against pytest-django's live server.

The master of a league with a played result downloads its backup from the league's page, then
follows "Import a league from a backup", uploads the file under a new name and address, reads the
preview (what would be created; nothing yet), confirms, and lands on the new league's page, of
which they are the master. Every page is audited by axe-core (tests/e2e/axe.py).
"""

from __future__ import annotations

import pytest

from tests.e2e.axe import audit
from tests.e2e.test_walkthrough import PHONE

PASSWORD = "Moonlit-Path-2468!"


def seed():
    from league import services as league_services
    from matches import services as match_services
    from matches.models import Match
    from tests.factories import LeagueFactory, UserFactory, make_legal_team
    from tests.support import record_for

    master = UserFactory(username="kaito", password=PASSWORD)
    league = LeagueFactory(name="Lantern League", slug="lantern", master=master)
    season = league_services.season_create(league=league, format="double_round_robin")
    for clan, name in (("tora", "Paper Tigers"), ("kitsune", "Silver Foxes")):
        team = make_legal_team(clan, owner=UserFactory(), name=name, league=league)
        league_services.application_accept(team=team)
    run = league_services.schedule_request(season=season, kind="round_robin", seed=7)
    league_services.schedule_generate(run_id=run.pk)
    first = Match.objects.filter(season=season).order_by("round_number", "pk").first()
    match_services.match_kick_off(match=first)
    match_services.match_submit_result(match=first, record=record_for(first, (3, 1)), actor=master)
    match_services.match_confirm(match=first, actor=master)
    return league


def check(page, label: str) -> None:
    _, found = audit(page, label=label)
    assert not found, "\n".join(map(str, found))


@pytest.mark.slow(reason="a walk-through in Chromium, each page audited by axe-core")
def test_a_master_exports_and_imports_a_league(transactional_db, live_server, catalog, eager_celery, browser, tmp_path):
    from django.db import connections

    try:
        walk(live_server.url, browser, tmp_path)
    finally:
        connections.close_all()


def walk(base: str, browser, tmp_path) -> None:
    from league.models import League

    league = seed()
    context = browser.new_context(**PHONE, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "kaito")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")

    # The league's page: the backup downloads, and the import is beside it.
    page.goto(f"{base}{league.get_absolute_url()}")
    with page.expect_download() as download:
        page.get_by_role("link", name="Export the league (JSON)").click()
    backup = tmp_path / "lantern.json"
    download.value.save_as(backup)
    assert backup.read_bytes().startswith(b"{")
    page.get_by_role("link", name="Import a league from a backup").click()
    page.wait_for_url(f"{base}/exports/import/")
    check(page, "import: the upload form")

    # Upload under a new name and address: the preview says what would be made, nothing is yet.
    page.set_input_files("#id_document", str(backup))
    page.fill("#id_name", "Lantern Copy")
    page.fill("#id_slug", "lantern-copy")
    page.get_by_role("button", name="Check the backup").click()
    preview = page.locator("[data-testid=import-preview]")
    preview.wait_for()
    text = preview.inner_text()
    assert "1 season" in text and "2 teams" in text and "matches" in text, text
    assert not League.objects.filter(slug="lantern-copy").exists()
    check(page, "import: the preview")

    # Confirm: the new league, its master the one who imported it.
    page.get_by_role("button", name="Create the league").click()
    page.wait_for_url(f"{base}/leagues/lantern-copy/")
    copy = League.objects.get(slug="lantern-copy")
    assert copy.master.username == "kaito" and copy.name == "Lantern Copy"
    assert "Lantern Copy is imported" in page.content()
    check(page, "the imported league")
