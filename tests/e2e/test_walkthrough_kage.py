"""A Kage Masters table result in a real browser (issue 17, part 3): headless Chromium on a
phone-sized screen against pytest-django's live server.

A Kage Masters league and its season are seeded through the services, with a table of four
players. Player Akane signs in on her phone, opens the match, enters the table's result (a block a
player: Kage Master, coins, Location rewards, seat) after the form refuses two players with the
same Kage Master; player Botan signs in, sees the table waiting for confirmation and confirms it;
the played match shows the table by place and the season's league table the league points (one
for each opponent beaten) with treasure as the tie-break. Screenshots go to
test-artifacts/e2e-kage/NN-step.png; every page visited is audited by axe-core (WCAG 2.1 A and AA,
tests/e2e/axe.py) with the walk's helpers (tests/e2e/test_walkthrough.py). The test skips when
chromium is missing, but fails when REQUIRE_SERVICES=1 or CI=true (tests.conftest.need).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e import test_walkthrough as main_walk
from tests.e2e.test_walkthrough import PHONE, Walk

ARTIFACTS = main_walk.ARTIFACTS.parent / "e2e-kage"
PASSWORD = "Moonlit-Path-2468!"
NAMES = ("akane", "botan", "chiyo", "daigo")
#: (Kage Master, coins, Location rewards, first-round seat) by slot: Chiyo wins with 14, Akane and
#: Daigo share 2nd with 10, Botan is 4th with 4.
TABLE = [("Spy", 7, 3, 2), ("Assassin", 4, 0, 1), ("Firebrand", 9, 5, 4), ("Trickster", 10, 0, 3)]


class KageWalk(Walk):
    """The main walk's screenshots and audits, in a folder of their own."""

    def shot(self, page, step: str, *, full_page: bool = True) -> None:
        self.n += 1
        path = ARTIFACTS / f"{self.n:02d}-{step}.png"
        page.screenshot(path=str(path), full_page=full_page)
        self.shots.append(path.name)
        self.audit(page, label=step, when="new document")

    def report(self) -> dict:
        report = {
            "axe_core": self.axe_version,
            "pages": sorted(self.audited),
            "audits": sum(self.audited.values()),
            "violations": [str(v) for v in self.violations],
            "not_audited": sorted(self.visited - set(self.audited)),
        }
        (ARTIFACTS / "axe.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        return report


def seed():
    from games import registry as games
    from league import services as league_services
    from league.models import ScheduleRun, Season
    from matches.models import Match
    from tests.factories import UserFactory

    master = UserFactory(username="sensei", password=PASSWORD)
    league = league_services.league_create(master=master, name="Kage Nights", game=games.KAGE_MASTERS)
    season = league_services.season_create(league=league, format=Season.Format.TABLES, swiss_rounds=3)
    for name in NAMES:
        user = UserFactory(username=name, password=PASSWORD)
        entry = league_services.player_apply(user=user, league=league, display_name=name.capitalize())
        league_services.application_accept(team=entry)
    # the first round's table of four, laid by the table scheduler (seats in the order it drew)
    run = league_services.schedule_request(season=season, kind=ScheduleRun.Kind.TABLES, actor=master, seed=7)
    league_services.schedule_generate(run_id=run.pk)
    match = Match.objects.get(season=season, round_number=1)
    assert sorted(side.team.owner.username for side in match.sides.select_related("team__owner")) == sorted(NAMES)
    return league, season, match


def sign_in(page, base: str, username: str, next_path: str) -> None:
    page.goto(f"{base}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(re.escape(next_path) + "$"))


def fill_table(page, rows) -> None:
    names = [n.capitalize() for n in NAMES]
    for name, (master, coins, rewards, seat) in zip(names, rows, strict=True):
        page.get_by_label(f"{name}: Kage Master").select_option(master)
        page.get_by_label(f"{name}: coins").fill(str(coins))
        page.get_by_label(f"{name}: Location rewards").fill(str(rewards))
        page.get_by_label(f"{name}: first-round seat").fill(str(seat))


@pytest.mark.slow(reason="a Kage Masters table in Chromium on a phone-sized screen, each page audited by axe-core")
def test_kage_table_entered_on_a_phone_and_confirmed(transactional_db, live_server, catalog, eager_celery, browser):
    from django.db import connections

    try:
        walk_through(live_server.url, browser)
    finally:
        connections.close_all()  # the sync API's thread has its own connection (as the main walk)


def walk_through(base: str, browser) -> None:
    from matches.models import Match

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    league, season, match = seed()
    walk = KageWalk()
    match_path = f"/matches/{match.pk}/"

    # 1. Akane, on her phone, opens the table's match and its result form.
    a_ctx = browser.new_context(**PHONE)
    a = walk.watch(a_ctx.new_page(), "akane")
    a.set_default_timeout(15_000)
    sign_in(a, base, "akane", match_path)
    walk.shot(a, "kage-match-scheduled")
    a.get_by_role("link", name=re.compile("Enter the result")).first.click()
    a.wait_for_url(re.compile(rf"/matches/{match.pk}/result/$"))
    assert a.locator("[data-testid^=kage-seat-]").count() == 4
    walk.shot(a, "kage-result-form")

    # 2. Two players with the same Kage Master: refused, nothing saved.
    fill_table(a, [TABLE[0], ("Spy", *TABLE[1][1:]), *TABLE[2:]])
    a.get_by_role("button", name="Submit the result").click()
    a.wait_for_load_state()
    text = a.inner_text("main")
    assert "Akane already plays the Spy" in text or "Botan already plays the Spy" in text, text
    walk.shot(a, "kage-result-form-error")
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED

    # 3. The right table: submitted, waiting for another player.
    fill_table(a, TABLE)
    a.get_by_role("button", name="Submit the result").click()
    a.wait_for_url(f"{base}{match_path}")
    assert "An opponent or the ninja master must confirm it" in a.inner_text(".alert-success")
    walk.shot(a, "kage-result-submitted")
    match.refresh_from_db()
    assert match.status == Match.Status.SUBMITTED

    # 4. Botan, on his phone, sees the table by place and confirms it.
    b_ctx = browser.new_context(**PHONE)
    b = walk.watch(b_ctx.new_page(), "botan")
    b.set_default_timeout(15_000)
    sign_in(b, base, "botan", match_path)
    waiting = b.inner_text("[data-testid=kage-table]")
    assert "Chiyo" in waiting and "=2nd" in waiting and "Firebrand" in waiting
    walk.shot(b, "kage-result-to-confirm")
    b.get_by_role("button", name="Confirm the result").click()
    b.wait_for_url(f"{base}{match_path}")
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    played = b.inner_text("[data-testid=game-played]")
    assert "Chiyo" in played and "14" in played
    walk.shot(b, "kage-result-played")

    # 5. The league table: Chiyo 3 league points (three opponents beaten), Akane and Daigo 1 each
    # (10 treasure each), Botan 0.
    b.goto(f"{base}/leagues/{league.slug}/seasons/{season.number}/")
    rows = b.locator("[data-testid=league-table] tbody tr")
    first = rows.first.inner_text()
    assert "Chiyo" in first and re.search(r"\b3\b", first) and re.search(r"\b14\b", first), first
    assert "Treasure" in b.inner_text("[data-testid=league-table] thead")  # on the phone, in place of +/−
    assert "Botan" in rows.last.inner_text()
    walk.shot(b, "kage-league-table")

    for ctx in (a_ctx, b_ctx):
        ctx.close()
    assert not walk.problems, walk.problems
    report = walk.report()
    assert not report["not_audited"], f"pages visited but not audited by axe-core: {report['not_audited']}"
    assert not walk.violations, (
        f"axe-core {report['axe_core']} found {len(walk.violations)} WCAG 2.1 A/AA violations on "
        f"{report['audits']} audits:\n" + "\n".join(str(v) for v in walk.violations)
    )
    assert len(walk.shots) >= 6, walk.shots
