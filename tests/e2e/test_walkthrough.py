"""The whole site in a real browser: headless Chromium (Debian's, driven by Playwright's sync API)
against pytest-django's live server.

Two players and a ninja master sign up; the players found and recruit their teams through the
forms (choosing the chunin's ability), the master opens a league and a double round robin season,
accepts the applications and draws the schedule with Brawl as the challenge; player A opens the
pre-match sheet, kicks off and enters the result on a phone-sized screen (one model not on the board
collapses, the steppers count, his kaiken makes 5 injuries, which fill Brawl's "Injures an enemy
model", and is the All-Star: 13 XP, a new level; tabbing through the form, the sticky bar never covers
the focused field); player B logs in, sees the whole submitted record, and enters his own, different
one: the match is disputed; the master sees both records side by side and settles it; the next
fixture cannot kick off while the level's advancement is unchosen: player A follows the sheet's link,
chooses it, and kicks off; the league table changes; the master drafts, edits and publishes the
round's newsletter and player A reads it.

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

import pytest

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


def count(where, label: str):
    """A count field of the result form by its label (its steppers are buttons named after it)."""
    return where.get_by_role("spinbutton", name=re.compile("^" + re.escape(label)))


def focus_walk(page) -> tuple[int, list[str]]:
    """Tab from the form's first field to its buttons; at every stop, is the focused field clear of
    the sticky bar and on the screen? Returns (stops, the fields covered)."""
    page.locator("form.result-form input:not([type=hidden])").first.focus()
    covered: list[str] = []
    stops = 0
    for _ in range(400):
        state = page.evaluate(
            """async () => {
                // Let a smooth scroll (Bootstrap's, the script's) come to rest first.
                let last = -1, still = 0;
                for (let i = 0; i < 120 && still < 4; i++) {
                    await new Promise((done) => requestAnimationFrame(done));
                    still = window.scrollY === last ? still + 1 : 0;
                    last = window.scrollY;
                }
                const el = document.activeElement;
                const bar = document.querySelector("form.result-form .result-bar");
                if (!el || !el.closest("form.result-form") || el.closest(".result-bar")) return null;
                const r = el.getBoundingClientRect(), b = bar.getBoundingClientRect();
                return {name: el.name || el.id, bottom: r.bottom, top: r.top, bar: b.top};
            }"""
        )
        if state is None:
            break
        stops += 1
        if state["bottom"] > state["bar"] or state["top"] < 0:
            covered.append(state["name"])
        page.keyboard.press("Tab")
    return stops, covered


@pytest.mark.slow(
    reason="a whole league night in Chromium: about forty steps, each screenshotted and audited by axe-core"
)
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
    master.select_option("#id_format", "double_round_robin")
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

    # 4. The master accepts both teams and draws the double round robin (Brawl for every fixture).
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
    master.get_by_text(re.compile(r"2 fixtures created")).wait_for() if "schedule-runs" in master.url else None
    master.goto(f"{base}/leagues/{slug}/seasons/1/fixtures/")
    walk.shot(master, "fixtures")
    match, return_match = Match.objects.filter(season__league__slug=slug).order_by("round_number", "id")

    # 5. Player A sees the table before the game, opens the pre-match sheet, kicks off.
    a.goto(f"{base}/leagues/{slug}/seasons/1/")
    rows = a.locator("[data-testid=league-table] tbody tr")
    assert rows.count() == 2
    walk.shot(a, "table-before")
    a.goto(f"{base}/leagues/{slug}/seasons/1/fixtures/")
    a.get_by_role("link", name="pre-match sheet").first.click()
    a.wait_for_url(re.compile(rf"/matches/{match.pk}/sheet/$"))
    walk.shot(a, "presheet")
    with a.expect_navigation():
        a.get_by_role("button", name=re.compile("Kick off")).click()
    a.audit(label="kicked off")
    a.get_by_role("link", name="Enter the result").first.click()
    a.wait_for_url(re.compile(rf"/matches/{match.pk}/result/$"))

    # 6. ... and enters the result on the phone: 3-1, Shiro injures five and is the All-Star; Aka
    #    never reaches the board. Each model's fields are a group named after it.
    sections = a.locator("form.result-form section")
    assert sections.count() == 2
    aka = a.get_by_role("group", name=re.compile(r"^Aka\b"))
    aka.get_by_label("On the board").uncheck()
    assert aka.locator(".model-details").is_hidden()  # a model not on the board collapses
    for i in range(2):
        section = sections.nth(i)
        team = section.locator("h2").inner_text()
        count(section, f"{team}: points").fill("3" if team == "Paper Tigers" else "1")
        stars = int(re.search(r"Pick (\d+) Ninja All-Star", section.inner_text()).group(1))
        names = [n.split()[0] for n in section.locator("fieldset.model legend").all_inner_texts()]
        names = (["Shiro"] if team == "Paper Tigers" else []) + [n for n in names if n not in ("Shiro", "Aka")]
        for name in names[:stars]:
            section.get_by_role("group", name=re.compile(rf"^{name}\b")).get_by_label("Ninja All-Star").check()
    points = count(a, "Silver Foxes: points")
    a.get_by_role("button", name="One more: Silver Foxes: points").click()  # the steppers count
    assert points.input_value() == "2"
    a.get_by_role("button", name="One fewer: Silver Foxes: points").click()
    assert points.input_value() == "1"
    shiro = a.get_by_role("group", name=re.compile(r"^Shiro\b"))
    count(shiro, "Injuries inflicted").fill("5")
    # Brawl's "Injures an enemy model" follows the Injuries entered (the player may correct it).
    assert count(shiro, "Brawl: Injures an enemy model").input_value() == "5"
    shiro.scroll_into_view_if_needed()
    walk.shot(a, "result-entry-phone", full_page=False)  # what the phone shows, sticky buttons included
    stops, covered = focus_walk(a)
    assert stops >= 40 and not covered, f"the sticky bar covers the focused field at {covered} of {stops} tab stops"
    a.get_by_role("button", name="Submit the result").click()
    a.wait_for_url(re.compile(rf"/matches/{match.pk}/$"))
    assert "An opponent or the ninja master must confirm" in a.inner_text("main")
    walk.shot(a, "result-submitted")

    # 7. Player B logs in and sees the whole submitted record: who, the score, each model's feats.
    log_in(b, base, "botan", f"/matches/{match.pk}/")
    record = b.inner_text("[data-testid=submitted-record]")
    assert "Paper Tigers: 3 points" in record and "Silver Foxes: 1 point" in record and "1 points" not in record
    shiro_cells = b.locator("[data-testid=submitted-record] tr", has_text="Shiro").locator("td").all_inner_texts()
    assert shiro_cells[:4] == ["yes", "5", "0", "0"] and "Injures an enemy model ×5" in shiro_cells[4], shiro_cells
    assert "akira" in b.inner_text("[data-testid=awaiting]")
    walk.shot(b, "confirm-prompt")
    # He remembers 2-1, and enters his own record: the match is disputed.
    b.get_by_role("link", name="Enter your own record").click()
    b.wait_for_url(re.compile(rf"/matches/{match.pk}/result/$"))
    assert count(b, "Paper Tigers: points").input_value() == "3"  # the form starts from the record
    count(b, "Paper Tigers: points").fill("2")
    walk.shot(b, "counter-record", full_page=False)
    b.get_by_role("button", name="Submit the result").click()
    b.wait_for_url(re.compile(rf"/matches/{match.pk}/$"))
    assert "the match is disputed" in b.inner_text(".alert-warning")
    walk.shot(b, "disputed")

    # 8. The master sees both records side by side, the difference marked, and settles: the first.
    master.goto(f"{base}/matches/{match.pk}/")
    assert "1 difference," in master.inner_text("[data-testid=disputed]")
    assert master.locator("[data-testid=dispute] .diff").count() == 2  # the Tigers' points, in each record
    walk.shot(master, "dispute")
    master.get_by_role("link", name="Settle the dispute…").click()
    master.wait_for_url(re.compile(rf"/matches/{match.pk}/settle/$"))
    walk.shot(master, "settle")
    master.get_by_role("button", name="Apply the first record (akira)").click()
    master.wait_for_url(re.compile(rf"/matches/{match.pk}/$"))
    assert "Dispute settled" in master.inner_text(".alert-success")
    assert "became Experienced" in master.inner_text("main")
    walk.shot(master, "result-settled")
    shiro_row = Ninja.objects.get(team_id=tigers, name="Shiro")
    assert shiro_row.xp == 13  # 5 Injuries, 5 "Injures an enemy model" (Brawl) and the All-Star's 3

    # 9. The return fixture cannot kick off while Shiro's advancement is unchosen: the sheet says so
    #    and links to the choice; player A chooses, and kicks off.
    a.goto(f"{base}/teams/{tigers}/")
    assert "Roll pending" in a.inner_text(".scroll-roster")
    walk.shot(a, "scroll-roll-pending")
    a.goto(f"{base}/matches/{return_match.pk}/sheet/")
    blocked = a.locator("[data-testid=kick-off-blocked]")
    assert "Paper Tigers: Shiro became Experienced" in blocked.inner_text()
    assert a.get_by_role("button", name=re.compile("Kick off")).count() == 0
    walk.shot(a, "kick-off-blocked")
    blocked.get_by_role("link", name=re.compile("choose the advancement")).click()
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
    a.goto(f"{base}/matches/{return_match.pk}/sheet/")
    assert a.locator("[data-testid=kick-off-blocked]").count() == 0
    with a.expect_navigation():
        a.get_by_role("button", name=re.compile("Kick off")).click()
    assert "Kicked off" in a.inner_text(".alert-success")
    a.audit(label="return fixture kicked off")

    # 10. The league table has changed: the winner on top with 3 points.
    a.goto(f"{base}/leagues/{slug}/seasons/1/")
    top = a.locator("[data-testid=league-table] tbody tr").first
    cells = top.locator("td, th").all_inner_texts()  # the team's name is the row header
    assert "Paper Tigers" in cells[1] and cells[2] == "1" and cells[3] == "1", cells
    assert top.locator("td.fw-bold").inner_text() == "3"
    walk.shot(a, "table-after")

    # 11. The master drafts the round's newsletter, writes an editorial and publishes it.
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

    # 12. Player A reads it on the phone.
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


def pdf_pages(pdf: bytes) -> int:
    """Pages in a PDF: the page tree's /Count (Chromium writes it uncompressed)."""
    counts = [int(n) for n in re.findall(rb"/Count\s+(\d+)", pdf)]
    assert counts, "no page tree found in the PDF"
    return max(counts)


@pytest.mark.slow(reason="Chromium prints a full team scroll to PDF on A4 and on Letter")
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
