"""What a newcomer and a league hit first, in a real browser (issue 27): headless Chromium, on a
desktop and on a phone, against pytest-django's live server; every page visited is audited by
axe-core (WCAG 2.1 A and AA, tests/e2e/axe.py) with the main walk's helpers.

1. **A fresh demo sign-in.** The demo seeded exactly as `make run` seeds it (the Makefile's
   arguments), then the README's log-ins typed into the log-in page: the master on a desktop, a
   player on a phone (finding 1).
2. **The playoffs guard.** A "round robin, then playoffs" season with no fixture yet: its page
   offers the schedule, not "Start the playoffs" (finding 3).
3. **The challenge chooser told.** A fixture whose dice said "player 2 chooses": player 2's
   dashboard lists the choice, the match page names him, and he chooses on his phone (finding 5).
4. **The ronin's owner decides its upkeep.** A league whose results need no confirmation: the
   opponent's result waits for the ronin's owner, who releases it on his phone (finding 6).

Screenshots go to test-artifacts/e2e-trust/NN-step.png. The test skips when chromium is missing,
but fails when REQUIRE_SERVICES=1 or CI=true (tests.conftest.need).
"""

from __future__ import annotations

import random
import re

import pytest
from django.core.management import call_command

from tests.e2e import test_walkthrough as main_walk
from tests.e2e.test_walkthrough import DESKTOP, PHONE
from tests.e2e.test_walkthrough_kage import KageWalk
from tests.factories import PASSWORD

ARTIFACTS = main_walk.ARTIFACTS.parent / "e2e-trust"


class TrustWalk(KageWalk):
    def shot(self, page, step: str, *, full_page: bool = True) -> None:
        self.n += 1
        path = ARTIFACTS / f"{self.n:02d}-{step}.png"
        page.screenshot(path=str(path), full_page=full_page)
        self.shots.append(path.name)
        self.audit(page, label=step, when="new document")

    def report(self) -> dict:
        return {
            "axe_core": self.axe_version,
            "audits": sum(self.audited.values()),
            "not_audited": sorted(self.visited - set(self.audited)),
        }


def log_in(page, base: str, username: str, password: str, next_path: str = "/") -> None:
    page.goto(f"{base}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(re.escape(next_path) + "$"))


@pytest.mark.slow(reason="seeds the demo as make run does, then four walks in Chromium, each page audited by axe-core")
def test_what_a_newcomer_and_a_league_hit_first(transactional_db, live_server, catalog, eager_celery, browser):
    from django.db import connections

    try:
        walk_through(live_server.url, browser)
    finally:
        connections.close_all()  # the sync API's thread has its own connection (as the main walk)


def walk_through(base: str, browser) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    walk = TrustWalk()
    contexts = []

    def page_for(who: str, device: dict):
        ctx = browser.new_context(**device)
        contexts.append(ctx)
        page = walk.watch(ctx.new_page(), who)
        page.set_default_timeout(15_000)
        return page

    demo_sign_in(base, walk, page_for)
    playoffs_guard(base, walk, page_for)
    chooser_told(base, walk, page_for)
    owner_decides_upkeep(base, walk, page_for)

    for ctx in contexts:
        ctx.close()
    assert not walk.problems, walk.problems
    report = walk.report()
    assert not report["not_audited"], f"pages visited but not audited by axe-core: {report['not_audited']}"
    assert not walk.violations, (
        f"axe-core {report['axe_core']} found {len(walk.violations)} WCAG 2.1 A/AA violations on "
        f"{report['audits']} audits:\n" + "\n".join(str(v) for v in walk.violations)
    )


def demo_sign_in(base: str, walk, page_for) -> None:
    """Finding 1: the README's demo log-ins, after the demo is seeded as `make run` seeds it."""
    from tests.league.test_seed_demo_logins import make_seed_arguments, readme_setup

    arguments = make_seed_arguments()
    password = arguments[arguments.index("--password") + 1]
    call_command("seed_demo", *arguments)
    assert f"`{password}`" in readme_setup() and "`demo-master`" in readme_setup()
    master = page_for("demo-master", DESKTOP)
    log_in(master, base, "demo-master", password)
    assert "demo-master" in master.inner_text("header, nav")
    walk.shot(master, "demo-master-signed-in")
    player = page_for("demo-akane", PHONE)
    log_in(player, base, "demo-akane", password, "/")
    assert "Your teams" in player.inner_text("main")
    walk.shot(player, "demo-player-dashboard")


def playoffs_guard(base: str, walk, page_for) -> None:
    """Finding 3: no "Start the playoffs" before the regular season has fixtures."""
    from tests.league.helpers import make_season

    season = make_season(4, playoff_teams=2)
    page = page_for("guard-master", DESKTOP)
    log_in(page, base, season.league.master.username, PASSWORD, season.get_absolute_url())
    main = page.inner_text("main")
    assert page.get_by_role("button", name=re.compile("Start the playoffs")).count() == 0
    assert "Start the playoffs (top 2): not yet." in main and "no regular-season fixtures yet" in main, main
    assert page.get_by_role("button", name="Generate the whole schedule").count() == 1
    walk.shot(page, "playoffs-not-before-the-season")


def chooser_told(base: str, walk, page_for) -> None:
    """Finding 5: the player the dice named is told, named, and chooses."""
    from league import services as league_services
    from matches.models import Match
    from rules.engine.league import random_challenge
    from tests.league.helpers import make_season

    season = make_season(2, format="self_arranged")
    home, away = [e.team for e in season.entries.select_related("team__owner").order_by("id")]
    seed = next(s for s in range(500) if random_challenge(rng=random.Random(s)).chooser == "player2")
    match = league_services.fixture_arrange(season=season, home=home, away=away, rng=random.Random(seed))
    assert match.challenge_chooser == Match.ChallengeChooser.PLAYER2
    page = page_for("chooser", PHONE)
    log_in(page, base, away.owner.username, PASSWORD, "/")
    assert "Choose the challenge" in page.inner_text("main")
    walk.shot(page, "chooser-dashboard")
    page.goto(f"{base}{match.get_absolute_url()}")
    assert f"{away.name} ({away.owner.username}) chooses the challenge" in page.inner_text("main")
    walk.shot(page, "chooser-named-on-the-match")
    page.get_by_role("link", name=re.compile("Choose the challenge")).first.click()
    page.wait_for_load_state()
    walk.shot(page, "chooser-choice")
    from rules.models import Challenge

    page.locator("select[name=challenge]").select_option(value=str(Challenge.objects.get(slug="brawl").pk))
    page.get_by_role("button", name="Set the challenge").click()
    page.wait_for_load_state()
    match.refresh_from_db()
    assert match.challenge is not None and match.challenge.slug == "brawl"
    walk.shot(page, "chooser-chose")


def owner_decides_upkeep(base: str, walk, page_for) -> None:
    """Finding 6: an opponent's result waits for the ronin's owner, who decides on his phone."""
    from matches import services as match_services
    from matches.models import Match, UpkeepDecision
    from rules.models import Challenge
    from tests.factories import LeagueFactory, UserFactory, make_legal_team
    from tests.support import record_for

    league = LeagueFactory(name="Ronin Hall", results_need_confirmation=False)
    home = make_legal_team("tora", owner=UserFactory(username="tiger"), name="Tigers", league=league)
    away = make_legal_team("tanchyo", owner=UserFactory(username="heron"), name="Herons", league=league)
    match = match_services.match_create(
        teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league
    )
    match_services.match_kick_off(match=match)
    match_services.match_submit_result(match=match, record=record_for(match, (2, 1)), actor=home.owner)
    tengu = away.ninjas.get(profile__slug="tengu")
    page = page_for("heron", PHONE)
    log_in(page, base, "heron", PASSWORD, match.get_absolute_url())
    waits = page.inner_text("[data-testid=upkeep-waits]")
    assert "it waits for Herons to decide its ronin's upkeep" in waits, waits
    walk.shot(page, "upkeep-waits-for-the-owner")
    form = page.locator("[data-testid=upkeep-form]")
    form.get_by_label("Release").check()
    form.get_by_role("button", name="Decide the upkeep").click()
    page.wait_for_url(f"{base}{match.get_absolute_url()}")
    assert "Upkeep decided; the post-game sequence is applied." in page.inner_text(".alert-success")
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    assert UpkeepDecision.objects.get(match=match, ninja=tengu).paid is False
    walk.shot(page, "upkeep-decided")
