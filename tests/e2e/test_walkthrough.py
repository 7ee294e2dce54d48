"""The whole site in a real browser: headless Chromium (Debian's, driven by Playwright's sync API)
against pytest-django's live server.

Two players and a ninja master sign up; the players found and recruit their teams through the
forms (choosing the chunin's ability), the master opens a league and a round robin season, accepts
the applications and draws the schedule with Brawl as the challenge; player A opens the pre-match
sheet, kicks off and enters the result on a phone-sized screen (his kaiken makes 5 injuries and is
the All-Star: 8 XP, a new level); player B logs in and confirms; player A chooses the advancement
the level brought; the league table changes; the master drafts, edits and publishes the round's
newsletter and player A reads it.

A screenshot of every step is saved to test-artifacts/e2e/NN-step.png. Every page the walk visits
is audited by axe-core for the WCAG 2.1 A and AA rules (tests/e2e/axe.py): when the walk first
arrives at an address, at every screenshot of a later visit (the same page showing other data), and
with a menu opened; the test fails listing each violation (rule, page, target), and fails if a page
was visited but never audited.
The report is saved to test-artifacts/e2e/axe.json. The test skips when chromium is missing, but
fails when REQUIRE_SERVICES=1 or CI=true (tests.conftest.need).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from tests.e2e.axe import audit, page_path

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
PASSWORD = "Moonlit-Path-2468!"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


class Walk:
    """Screenshots numbered in the order they are taken, the problems the pages reported, and the
    accessibility audit of every page visited."""

    def __init__(self) -> None:
        self.n = 0
        self.shots: list[str] = []
        self.problems: list[str] = []
        self.visited: set[str] = set()  # the paths of every document a page loaded
        self.loads: dict[str, int] = {}  # who -> documents loaded so far
        self.audited: dict[str, int] = {}  # path -> audits run on it
        self.audited_load: dict[str, int] = {}  # who -> the document last audited
        self.violations: list = []
        self.axe_version = ""
        self.axe_seconds = 0.0

    def watch(self, page, who: str) -> AuditedPage:
        """Listen to the page's errors and navigations; return it wrapped so its arrivals are audited."""
        page.on("pageerror", lambda exc: self.problems.append(f"{who}: JavaScript error: {exc}"))
        # The Content-Security-Policy refuses anything inline: a page that still needed it says so here.
        page.on(
            "console",
            lambda msg: (
                self.problems.append(f"{who}: {msg.text}")
                if "Content Security Policy" in msg.text or "Refused to" in msg.text
                else None
            ),
        )
        page.on(
            "response",
            lambda r: (
                self.problems.append(f"{who}: {r.status} for {r.request.method} {r.url}")
                if r.status >= 500 or (r.status == 404 and "/static/" in r.url)
                else None
            ),
        )
        page.on("framenavigated", lambda frame: self._navigated(page, who, frame))
        return AuditedPage(page, self, who)

    def _navigated(self, page, who: str, frame) -> None:
        if frame == page.main_frame and frame.url.startswith("http"):
            self.visited.add(page_path(frame.url))
            self.loads[who] = self.loads.get(who, 0) + 1

    def audit(self, page: AuditedPage, *, label: str = "", when: str = "new page") -> None:
        """Run axe-core on the page. ``when``: "new page" (unless its address was audited before),
        "new document" (unless this very load was audited: a screenshot after an arrival), "now"."""
        path = page_path(page.url)
        if when == "new page" and path in self.audited:
            return
        if when == "new document" and self.audited_load.get(page.who) == self.loads.get(page.who):
            return
        started = time.monotonic()
        self.axe_version, found = audit(page.raw, label=label)
        self.axe_seconds += time.monotonic() - started
        self.violations.extend(found)
        self.audited[path] = self.audited.get(path, 0) + 1
        self.audited_load[page.who] = self.loads.get(page.who)

    def shot(self, page: AuditedPage, step: str, *, full_page: bool = True) -> None:
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
            "seconds": round(self.axe_seconds, 1),
            "violations": [str(v) for v in self.violations],
            "not_audited": sorted(self.visited - set(self.audited)),
        }
        (ARTIFACTS / "axe.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        return report


class AuditedPage:
    """A Playwright page whose arrivals are audited. The walk moves between pages with goto() and
    click-then-wait_for_url(), so after each of them axe-core runs on the page reached (the first
    time the walk reaches that address); a screenshot audits a later visit too, and audit() the page
    in a state scripts made (a menu opened). The walk's end checks that no visited page escaped."""

    def __init__(self, page, walk: Walk, who: str) -> None:
        self.raw, self.walk, self.who = page, walk, who

    def __getattr__(self, name):
        return getattr(self.raw, name)

    def goto(self, url: str, **kwargs):
        response = self.raw.goto(url, **kwargs)
        self.walk.audit(self)
        return response

    def wait_for_url(self, url, **kwargs) -> None:
        self.raw.wait_for_url(url, **kwargs)
        self.walk.audit(self)

    def audit(self, *, label: str) -> None:
        self.walk.audit(self, label=label, when="now")


def sign_up(page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", f"{username}@example.org")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/teams/new/$"))


def log_in(page, base: str, username: str, next_path: str) -> None:
    page.goto(f"{base}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(re.escape(next_path) + "$"))


def log_out(page, base: str) -> None:
    page.get_by_role("button", name="Menu").click()  # the phone's collapsed navbar
    page.get_by_role("button", name="Log out").wait_for()
    page.audit(label="navigation menu open")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(f"{base}/")


def create_team(page, base: str, name: str, clan: str, league_name: str | None = None) -> int:
    page.goto(f"{base}/teams/new/")
    page.fill("#id_name", name)
    page.select_option(
        "#id_clan", label=next(t for t in page.locator("#id_clan option").all_inner_texts() if t.startswith(clan))
    )
    if league_name:
        page.select_option("#id_league", label=league_name)
    page.get_by_role("button", name="Create team").click()
    page.wait_for_url(re.compile(r"/teams/\d+/recruit/$"))
    return int(re.search(r"/teams/(\d+)/recruit/", page.url).group(1))


def recruit(page, base: str, team_pk: int, slug: str, name: str, ability: str | None = None, walk=None) -> None:
    page.goto(f"{base}/teams/{team_pk}/recruit/")
    page.locator(f'a[href$="/recruit/{slug}/"]').click()
    page.wait_for_url(re.compile(rf"/recruit/{slug}/$"))
    page.fill("#id_name", name)
    if ability:
        page.get_by_label(f"{ability}:").check()
        if walk:
            walk.shot(page, "recruit-chunin-ability")
    page.get_by_role("button", name=re.compile(r"^Recruit for \d+ koban$")).click()
    page.wait_for_url(re.compile(rf"/teams/{team_pk}/recruit/$"))
    assert f"{name} joins" in page.inner_text(".alert-success")


def mark_ready(page, base: str, team_pk: int) -> None:
    page.goto(f"{base}/teams/{team_pk}/recruit/")
    page.get_by_role("button", name="Mark the roster ready").click()
    page.wait_for_url(re.compile(rf"/teams/{team_pk}/$"))
    assert "is ready to play" in page.inner_text("main")


def test_walkthrough(transactional_db, live_server, catalog, eager_celery, browser):
    from django.db import connections

    try:
        walk_through(live_server.url, browser)
    finally:
        # Under Playwright's sync API the test body runs in its own context, so its database
        # connection is not the one pytest-django closes: close it, or the test database cannot
        # be dropped at the end of the session.
        connections.close_all()


def walk_through(base: str, browser) -> None:
    from matches.models import Match
    from teams.models import Advancement, Ninja

    started = time.monotonic()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    walk = Walk()

    master_ctx, a_ctx, b_ctx = (
        browser.new_context(**DESKTOP),
        browser.new_context(**PHONE),
        browser.new_context(**PHONE),
    )
    for ctx in (master_ctx, a_ctx, b_ctx):
        ctx.set_default_timeout(15_000)
    master, a, b = (
        walk.watch(ctx.new_page(), who)
        for ctx, who in ((master_ctx, "master"), (a_ctx, "player A"), (b_ctx, "player B"))
    )

    # 1. The master signs up, founds a league and opens a round robin season.
    master.goto(base + "/")
    walk.shot(master, "home")
    sign_up(master, base, "sensei")
    master.goto(f"{base}/leagues/new/")
    master.fill("#id_name", "Lantern League")
    master.fill("#id_description", "Two clans under a paper moon.")
    walk.shot(master, "league-create")
    master.get_by_role("button", name="Create league").click()
    master.wait_for_url(re.compile(r"/leagues/[\w-]+/seasons/new/$"))
    slug = re.search(r"/leagues/([\w-]+)/seasons/new/", master.url).group(1)
    master.select_option("#id_format", "round_robin")
    master.get_by_role("button", name="Open the season").click()
    master.wait_for_url(re.compile(rf"/leagues/{slug}/seasons/1/$"))
    walk.shot(master, "season-open")

    # 2. Player A signs up, founds a Tora team applying to the league, recruits a legal roster.
    sign_up(a, base, "akira")
    walk.shot(a, "signup-done")
    tigers = create_team(a, base, "Paper Tigers", "Tora", league_name="Lantern League")
    walk.shot(a, "recruit-list", full_page=False)  # the clan's profiles (the ronin list follows)
    recruit(a, base, tigers, "tora-chunin", "Kenji", ability="Tiger Strike", walk=walk)
    for name in ("Shiro", "Kuro", "Aka"):
        recruit(a, base, tigers, "tora-kaiken", name)
    walk.shot(a, "recruit-legal", full_page=False)
    mark_ready(a, base, tigers)
    rating = a.inner_text("[data-testid=team-rating]").strip()
    assert rating.isdigit() and int(rating) > 0, rating
    assert "Tiger Strike" in a.inner_text(".scroll-roster")
    walk.shot(a, "team-scroll")

    # 3. Player B signs up, founds a Kitsune team, recruits, and applies through the league page.
    sign_up(b, base, "botan")
    foxes = create_team(b, base, "Silver Foxes", "Kitsune")
    recruit(b, base, foxes, "kitsune-chunin", "Yume", ability="Spirit Power")
    recruit(b, base, foxes, "kitsune-kaiken", "Hana")
    recruit(b, base, foxes, "kitsune-yajiri", "Sora")
    mark_ready(b, base, foxes)
    b.goto(f"{base}/leagues/{slug}/")
    b.get_by_role("link", name="Apply with a team").click()
    b.wait_for_url(re.compile(rf"/leagues/{slug}/apply/$"))
    b.select_option("#id_team", label="Silver Foxes (Kitsune)")
    b.get_by_role("button", name="Apply").click()
    b.wait_for_url(re.compile(rf"/leagues/{slug}/$"))
    assert "has applied" in b.inner_text(".alert-success")
    walk.shot(b, "applied")
    log_out(b, base)

    # 4. The master accepts both teams and draws the round robin (Brawl for every fixture).
    master.goto(f"{base}/leagues/{slug}/applications/")
    walk.shot(master, "applications")
    for team in ("Paper Tigers", "Silver Foxes"):
        master.locator("li.list-group-item", has_text=team).get_by_role("button", name="Accept").click()
        master.wait_for_url(re.compile(rf"/leagues/{slug}/applications/$"))
        assert f"{team} is accepted" in master.inner_text(".alert-success")
    master.goto(f"{base}/leagues/{slug}/seasons/1/")
    master.select_option("#id_challenge", label="Brawl")
    master.get_by_role("button", name="Generate the whole schedule").click()
    master.wait_for_url(re.compile(r"/schedule-runs/\d+/$|/seasons/1/fixtures/$"))
    master.get_by_text(re.compile(r"1 fixture created")).wait_for() if "schedule-runs" in master.url else None
    master.goto(f"{base}/leagues/{slug}/seasons/1/fixtures/")
    walk.shot(master, "fixtures")
    match = Match.objects.get(season__league__slug=slug)

    # 5. Player A sees the table before the game, opens the pre-match sheet, kicks off.
    a.goto(f"{base}/leagues/{slug}/seasons/1/")
    rows = a.locator("[data-testid=league-table] tbody tr")
    assert rows.count() == 2
    walk.shot(a, "table-before")
    a.goto(f"{base}/leagues/{slug}/seasons/1/fixtures/")
    a.get_by_role("link", name="pre-match sheet").click()
    a.wait_for_url(re.compile(rf"/matches/{match.pk}/sheet/$"))
    walk.shot(a, "presheet")
    with a.expect_navigation():
        a.get_by_role("button", name=re.compile("Kick off")).click()
    a.audit(label="kicked off")
    a.get_by_role("link", name="Enter the result").first.click()
    a.wait_for_url(re.compile(rf"/matches/{match.pk}/result/$"))

    # 6. ... and enters the result on the phone: 3-1, Shiro injures five and is the All-Star.
    sections = a.locator("form.result-form section")
    assert sections.count() == 2
    for i in range(2):
        section = sections.nth(i)
        team = section.locator("h2").inner_text()
        section.get_by_label(f"{team}: points").fill("3" if team == "Paper Tigers" else "1")
        stars = int(re.search(r"Pick (\d+) Ninja All-Star", section.inner_text()).group(1))
        cards = section.locator(".card")
        names = ["Shiro"] if team == "Paper Tigers" else []
        names += [n for n in cards.locator(".fw-bold").all_inner_texts() if n.split()[0] not in names]
        for name in [n.split()[0] for n in names][:stars]:
            section.locator(".card", has_text=name).get_by_label("Ninja All-Star").check()
    shiro = a.locator(".card", has_text="Shiro")
    shiro.get_by_label("Injuries inflicted").fill("5")
    shiro.scroll_into_view_if_needed()
    walk.shot(a, "result-entry-phone", full_page=False)  # what the phone shows, sticky buttons included
    a.get_by_role("button", name="Submit the result").click()
    a.wait_for_url(re.compile(rf"/matches/{match.pk}/$"))
    assert "An opponent or the ninja master must confirm" in a.inner_text("main")
    walk.shot(a, "result-submitted")

    # 7. Player B logs in and confirms.
    log_in(b, base, "botan", f"/matches/{match.pk}/")
    walk.shot(b, "confirm-prompt")
    b.get_by_role("button", name="Confirm the result").click()
    b.wait_for_url(re.compile(rf"/matches/{match.pk}/$"))
    assert "Result confirmed" in b.inner_text(".alert-success")
    assert "reached level 1" in b.inner_text("main")
    walk.shot(b, "result-confirmed")

    # 8. Player A chooses Shiro's advancement from the scroll.
    shiro_row = Ninja.objects.get(team_id=tigers, name="Shiro")
    assert shiro_row.xp == 8
    a.goto(f"{base}/teams/{tigers}/")
    assert "Roll pending" in a.inner_text(".scroll-roster")
    walk.shot(a, "scroll-roll-pending")
    a.locator(".scroll-roster tr", has_text="Shiro").get_by_role("link", name="choose").click()
    a.wait_for_url(re.compile(r"/matches/advancement/\d+/$"))
    choice = a.locator("input[name=choice]").first
    label = a.locator(f"label[for='{choice.get_attribute('id')}']").inner_text().strip()
    choice.check()
    walk.shot(a, "advancement-choose")
    a.get_by_role("button", name="Take this advancement").click()
    a.wait_for_url(re.compile(rf"/teams/{tigers}/$"))
    assert "Shiro takes:" in a.inner_text(".alert-success")
    assert Advancement.objects.filter(ninja=shiro_row).count() == 1, label
    walk.shot(a, "scroll-advanced")

    # 9. The league table has changed: the winner on top with 3 points.
    a.goto(f"{base}/leagues/{slug}/seasons/1/")
    top = a.locator("[data-testid=league-table] tbody tr").first
    cells = top.locator("td, th").all_inner_texts()  # the team's name is the row header
    assert "Paper Tigers" in cells[1] and cells[2] == "1" and cells[3] == "1", cells
    assert top.locator("td.fw-bold").inner_text() == "3"
    walk.shot(a, "table-after")

    # 10. The master drafts the round's newsletter, writes an editorial and publishes it.
    master.goto(f"{base}/newsletters/{slug}/")
    master.select_option("#id_period", "season-1-round-1")
    walk.shot(master, "newsletter-build")
    master.get_by_role("button", name="Draft the newsletter").click()
    master.wait_for_url(re.compile(rf"/newsletters/{slug}/season-1-round-1/$"))
    master.get_by_role("link", name="Edit the editorial").click()
    master.wait_for_url(re.compile(rf"/newsletters/{slug}/season-1-round-1/edit/$"))
    master.fill("#id_editorial", "**Paper Tigers** win the opening *Brawl*: Shiro injures five.")
    master.get_by_role("button", name="Save the draft").click()
    master.wait_for_url(re.compile(rf"/newsletters/{slug}/season-1-round-1/$"))
    walk.shot(master, "newsletter-draft")
    master.get_by_role("link", name="Publish…").click()
    master.wait_for_url(re.compile(rf"/newsletters/{slug}/season-1-round-1/publish/$"))
    master.get_by_role("button", name="Publish").click()
    master.wait_for_url(re.compile(rf"/newsletters/{slug}/season-1-round-1/$"))
    assert "Published" in master.inner_text(".alert-success")

    # 11. Player A reads it on the phone.
    a.goto(f"{base}/newsletters/{slug}/")
    a.locator("[data-testid=published] a").first.click()
    a.wait_for_url(re.compile(rf"/newsletters/{slug}/season-1-round-1/$"))
    article = a.inner_text("[data-testid=newsletter]")
    assert "Paper Tigers win the opening Brawl" in article
    assert "Silver Foxes" in article
    walk.shot(a, "newsletter-read")

    for ctx in (master_ctx, a_ctx, b_ctx):
        ctx.close()
    assert not walk.problems, walk.problems
    report = walk.report()
    assert not report["not_audited"], f"pages visited but not audited by axe-core: {report['not_audited']}"
    assert len(report["pages"]) >= 20, report["pages"]
    assert not walk.violations, (
        f"axe-core {report['axe_core']} found {len(walk.violations)} WCAG 2.1 A/AA violations on "
        f"{len({v.page for v in walk.violations})} of {report['audits']} audits:\n"
        + "\n".join(str(v) for v in walk.violations)
    )
    assert len(walk.shots) >= 20, walk.shots
    elapsed = time.monotonic() - started
    assert elapsed < 90, f"the walk-through took {elapsed:.0f} s"


def pdf_pages(pdf: bytes) -> int:
    """Pages in a PDF: the page tree's /Count (Chromium writes it uncompressed)."""
    counts = [int(n) for n in re.findall(rb"/Count\s+(\d+)", pdf)]
    assert counts, "no page tree found in the PDF"
    return max(counts)


def test_team_scroll_prints_on_one_page(transactional_db, live_server, catalog, browser):
    """The print stylesheet fits a 12-model roster with 20 game records on one A4 and one Letter page."""
    import datetime

    from django.db import connections

    from matches.models import Match, MatchNinja, MatchTeam
    from rules.models import Challenge
    from teams import services
    from tests.factories import make_team, recruit

    try:
        team = make_team("tora", name="The Very Long Named Claws of the Eastern Moon")
        services.treasury_post(team=team, amount=200, reason="correction", note="test funds")
        for slug, count in [
            ("tora-chunin", 1),
            ("tora-kaiken", 4),
            ("tora-yajiri", 2),
            ("tora-kunoichi", 2),
            ("tora-byakko", 1),
            ("tora-ryu", 1),
            ("moon-princess", 1),
        ]:
            recruit(team, slug, count)
        assert team.ninjas.count() == 12
        opponent = make_team("ika", name="Ink in the Tide of Endless Night")
        brawl = Challenge.objects.get(slug="brawl")
        for i in range(20):
            match = Match.objects.create(
                challenge=brawl,
                status=Match.Status.CONFIRMED,
                date=datetime.date(2026, 1, 1) + datetime.timedelta(days=7 * i),
            )
            side = MatchTeam.objects.create(match=match, team=team, slot=1, points=3, outcome="win", koban_earned=10)
            MatchTeam.objects.create(match=match, team=opponent, slot=2, points=1, outcome="loss", koban_earned=6)
            ninja = team.ninjas.first()
            MatchNinja.objects.create(side=side, ninja=ninja, name=ninja.name, all_star_awards=1)
        page = browser.new_page()
        page.goto(f"{live_server.url}/teams/{team.pk}/")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for paper in ("A4", "Letter"):
            pdf = page.pdf(format=paper, print_background=False)
            (ARTIFACTS / f"scroll-print-{paper}.pdf").write_bytes(pdf)
            assert pdf_pages(pdf) == 1, f"the scroll prints on {pdf_pages(pdf)} {paper} pages"
        page.goto(f"{live_server.url}/rules/")  # the counter does see a long document's pages
        assert pdf_pages(page.pdf(format="A4")) > 5
        page.close()
    finally:
        connections.close_all()
