"""Each game's pages are its own, in a real browser (issue 28, acceptance): a Ninjutsu league and a
Kage Masters league walked through in headless Chromium against pytest-django's live server, the
master on a desktop and a player on a phone.

Every page the walks reach is audited by axe-core (WCAG 2.1 A and AA, tests/e2e/axe.py, with the
main walk's helpers) and its main part is grepped for the All-Stars words (challenge(s), koban,
ronin, roster(s), advancement(s), upkeep, treasury, and "team"/"teams" for the players:
tests/league/test_games_own_words.py's list); the test fails naming each page and word.

* **Ninjutsu**: the master enters a game's result on his desktop; the fixture list shows the winner
  and how the Soke died ("Ink Shadow won: Soke killed in battle"); a player on his phone enters
  another game (the Soke's die left the Dojo), which waits for confirmation, and his opponent's
  result line reads so; the table, the entry's page, the statistics and the forfeit page speak of
  players.
* **Kage Masters**: a round of tables of 4 and 3. The master moves a player from the table of 4 to
  the table of 3 (the preview lists the repeat meetings it adds; confirmed), then records that a
  player at the new table of 4 dropped out before the game (the confirmation says he takes the last
  place); a player at that table enters the result of the three present on her phone, the master
  confirms it; the fixture list reads "Botan dropped out: last place" and the league table gives him
  the 4th place and no points.

Screenshots go to test-artifacts/e2e-games/NN-step.png. The test skips when chromium is missing,
but fails when REQUIRE_SERVICES=1 or CI=true (tests.conftest.need).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e import test_walkthrough as main_walk
from tests.e2e.test_walkthrough import DESKTOP, PHONE, Walk
from tests.league.test_games_own_words import all_stars_words

ARTIFACTS = main_walk.ARTIFACTS.parent / "e2e-games"
PASSWORD = "Moonlit-Path-2468!"


class GamesWalk(Walk):
    """The main walk's screenshots and audits in a folder of their own, and every page audited also
    grepped for the All-Stars words."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix
        self.words: dict[str, list[str]] = {}
        self.grepped: set[str] = set()

    def audit(self, page, *, label: str = "", when: str = "new page") -> None:
        before = sum(self.audited.values())
        super().audit(page, label=label, when=when)
        if sum(self.audited.values()) == before:
            return  # not audited now: grepped when it was
        html = page.raw.content()
        self.grepped.add(main_walk.page_path(page.url))
        if '<main id="main"' in html:
            found = all_stars_words(html)
            if found:
                self.words[f"{page.who} {main_walk.page_path(page.url)} ({label or 'arrival'})"] = found

    def shot(self, page, step: str, *, full_page: bool = True) -> None:
        self.n += 1
        path = ARTIFACTS / f"{self.prefix}-{self.n:02d}-{step}.png"
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
            "all_stars_words": self.words,
        }
        (ARTIFACTS / f"{self.prefix}-axe.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        return report

    def finish(self) -> None:
        assert not self.problems, self.problems
        report = self.report()
        assert not report["not_audited"], f"pages visited but not audited by axe-core: {report['not_audited']}"
        assert not self.violations, (
            f"axe-core {report['axe_core']} found {len(self.violations)} WCAG 2.1 A/AA violations on "
            f"{report['audits']} audits:\n" + "\n".join(str(v) for v in self.violations)
        )
        assert self.grepped >= set(self.audited), "a page audited but not grepped"
        assert not self.words, "All-Stars words on a players' game's pages:\n" + "\n".join(
            f"{page}: {words}" for page, words in self.words.items()
        )


def sign_in(page, base: str, username: str, next_path: str) -> None:
    page.goto(f"{base}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(re.escape(next_path) + "$"))


def visit(page, base: str, path: str) -> None:
    page.goto(f"{base}{path}")


def text_of(page, selector: str = "main") -> str:
    return re.sub(r"\s+", " ", page.inner_text(selector))


def _fresh_artifacts(prefix: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob(f"{prefix}-*.png"):
        old.unlink()


# --- Ninjutsu ------------------------------------------------------------------------------------

NINJUTSU_PLAYERS = ("Ink Shadow", "Moon Fox", "Red Crane", "Silent Oak")


def seed_ninjutsu():
    from games import registry as games
    from league import services
    from league.models import ScheduleRun, Season
    from tests.factories import UserFactory

    master = UserFactory(username="soke-master", password=PASSWORD)
    league = services.league_create(master=master, name="Ink Dojo", game=games.NINJUTSU)
    season = services.season_create(league=league, format=Season.Format.ROUND_ROBIN)
    for name in NINJUTSU_PLAYERS:
        user = UserFactory(username=name.lower().replace(" ", "-"), password=PASSWORD)
        services.application_accept(team=services.player_apply(user=user, league=league, display_name=name))
    run = services.schedule_request(season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, actor=master, seed=11)
    services.schedule_generate(run_id=run.pk)
    return league, season


def fill_ninjutsu(page, *, winner: str, ending: str, starter: str, colours=("Red", "Black")) -> None:
    page.get_by_label(winner, exact=True).check()
    page.select_option("#id_ending", ending)
    page.select_option("#id_starter", label=starter)
    page.fill("#id_colour_1", colours[0])
    page.fill("#id_colour_2", colours[1])


@pytest.mark.slow(reason="a Ninjutsu league in Chromium, desktop and phone, every page audited by axe-core")
def test_a_ninjutsu_league_speaks_its_own_words(transactional_db, live_server, catalog, eager_celery, browser):
    from django.db import connections

    try:
        ninjutsu_walk(live_server.url, browser)
    finally:
        connections.close_all()


def ninjutsu_walk(base: str, browser) -> None:
    from matches.models import Match

    _fresh_artifacts("ninjutsu")
    league, season = seed_ninjutsu()
    walk = GamesWalk("ninjutsu")
    fixtures_path = f"/leagues/{league.slug}/seasons/{season.number}/fixtures/"
    round_one = list(Match.objects.filter(season=season, round_number=1).order_by("pk"))
    first, second = round_one[0], round_one[1]
    names = {m.pk: [s.team.name for s in m.sides.order_by("slot").select_related("team")] for m in round_one}

    # 1. The master, on his desktop: the league, its season, the fixtures, a game's result entered.
    m_ctx = browser.new_context(**DESKTOP)
    m = walk.watch(m_ctx.new_page(), "master")
    m.set_default_timeout(15_000)
    sign_in(m, base, "soke-master", f"/leagues/{league.slug}/")
    walk.shot(m, "league")
    visit(m, base, f"/leagues/{league.slug}/rules/")
    walk.shot(m, "house-rules")
    visit(m, base, fixtures_path)
    walk.shot(m, "fixtures")
    visit(m, base, f"/matches/{first.pk}/")
    m.get_by_role("link", name="Enter the result").first.click()
    m.wait_for_url(re.compile(rf"/matches/{first.pk}/result/$"))
    winner, loser = names[first.pk]
    fill_ninjutsu(m, winner=winner, ending="soke_attacked", starter=loser)
    walk.shot(m, "ninjutsu-result-form")
    m.get_by_role("button", name="Submit the result").click()
    m.wait_for_url(f"{base}/matches/{first.pk}/")
    assert Match.objects.get(pk=first.pk).status == Match.Status.CONFIRMED  # the master's entry stands
    walk.shot(m, "ninjutsu-played")
    visit(m, base, fixtures_path)
    line = text_of(m, f"#match-{first.pk}")
    assert f"{winner} won: Soke killed in battle" in line, line
    assert "0 – 0" not in line
    walk.shot(m, "fixtures-winner-line")
    visit(m, base, f"/matches/{round_one[-1].pk}/")
    visit(m, base, f"/leagues/fixtures/{round_one[-1].pk}/forfeit/")
    forfeit = text_of(m)
    assert "league points" in forfeit
    walk.shot(m, "forfeit-page")
    visit(m, base, f"/leagues/{league.slug}/seasons/{season.number}/")
    heads = m.locator("[data-testid=league-table] thead th").all_inner_texts()
    assert heads[:5] == ["#", "Player", "P", "W", "L"], heads
    walk.shot(m, "season-table")
    visit(m, base, f"/leagues/{league.slug}/seasons/{season.number}/desk/")
    walk.shot(m, "desk")

    # 2. A player, on his phone: his own game (the Soke's die left the Dojo), waiting for his opponent.
    home, away = names[second.pk]
    player = Match.objects.get(pk=second.pk).sides.get(slot=1).team
    p_ctx = browser.new_context(**PHONE)
    p = walk.watch(p_ctx.new_page(), "player")
    p.set_default_timeout(15_000)
    sign_in(p, base, player.owner.username, f"/matches/{second.pk}/")
    walk.shot(p, "phone-match")
    p.get_by_role("link", name="Enter the result").first.click()
    p.wait_for_url(re.compile(rf"/matches/{second.pk}/result/$"))
    fill_ninjutsu(p, winner=away, ending="out_of_dojo", starter=home, colours=("White", "Blue"))
    walk.shot(p, "phone-result-form")
    p.get_by_role("button", name="Submit the result").click()
    p.wait_for_url(f"{base}/matches/{second.pk}/")
    assert Match.objects.get(pk=second.pk).status == Match.Status.SUBMITTED
    walk.shot(p, "phone-result-waiting")
    visit(p, base, fixtures_path)
    assert f"{away} won: Soke's die left the Dojo" in text_of(p, f"#match-{second.pk}")
    assert f"{winner} won: Soke killed in battle" in text_of(p, f"#match-{first.pk}")
    walk.shot(p, "phone-fixtures")
    for path in (
        f"/teams/{player.pk}/",
        f"/stats/teams/{player.pk}/history/",
        f"/leagues/{league.slug}/seasons/{season.number}/",
        f"/stats/leagues/{league.slug}/honours/",
        f"/stats/leagues/{league.slug}/leaderboards/",
        f"/newsletters/{league.slug}/",
        "/",
    ):
        visit(p, base, path)
    walk.shot(p, "phone-dashboard")

    for ctx in (m_ctx, p_ctx):
        ctx.close()
    walk.finish()
    assert len(walk.shots) >= 12, walk.shots


# --- Kage Masters --------------------------------------------------------------------------------

KAGE_PLAYERS = ("Akane", "Botan", "Chiyo", "Daigo", "Emi", "Fumio", "Goro")


def seed_kage():
    from games import registry as games
    from league import services
    from league.models import ScheduleRun, Season
    from tests.factories import UserFactory

    master = UserFactory(username="kage-master", password=PASSWORD)
    league = services.league_create(master=master, name="Kage Nights", game=games.KAGE_MASTERS)
    season = services.season_create(league=league, format=Season.Format.TABLES, swiss_rounds=3)
    for name in KAGE_PLAYERS:
        user = UserFactory(username=name.lower(), password=PASSWORD)
        services.application_accept(team=services.player_apply(user=user, league=league, display_name=name))
    run = services.schedule_request(season=season, kind=ScheduleRun.Kind.TABLES, actor=master, seed=7)
    services.schedule_generate(run_id=run.pk)
    return league, season


@pytest.mark.slow(reason="a Kage Masters round in Chromium, desktop and phone, every page audited by axe-core")
def test_a_kage_round_with_a_seating_move_and_a_drop_out(transactional_db, live_server, catalog, eager_celery, browser):
    from django.db import connections

    try:
        kage_walk(live_server.url, browser)
    finally:
        connections.close_all()


def table_names(match) -> list[str]:
    return [s.team.name for s in match.sides.order_by("slot").select_related("team")]


def kage_walk(base: str, browser) -> None:
    from matches.models import Match

    _fresh_artifacts("kage")
    league, season = seed_kage()
    walk = GamesWalk("kage")
    fixtures_path = f"/leagues/{league.slug}/seasons/{season.number}/fixtures/"
    tables = sorted(Match.objects.filter(season=season, round_number=1), key=lambda t: -t.sides.count())
    big, small = tables
    assert (big.sides.count(), small.sides.count()) == (4, 3)
    mover = table_names(big)[0]

    # 1. The master, on his desktop, moves a player from the table of 4 to the table of 3.
    m_ctx = browser.new_context(**DESKTOP)
    m = walk.watch(m_ctx.new_page(), "master")
    m.set_default_timeout(15_000)
    sign_in(m, base, "kage-master", fixtures_path)
    walk.shot(m, "fixtures")
    m.get_by_role("link", name="Move players between tables").click()
    m.wait_for_url(re.compile(r"/rounds/1/seating/$"))
    walk.shot(m, "seating-form")
    mover_id = big.sides.get(team__name=mover).team_id
    m.select_option(f"#id_seat_{mover_id}", str(small.pk))
    m.get_by_role("button", name="Show the changes").click()
    m.wait_for_load_state()
    preview = text_of(m)
    assert "Confirm the new seating" in preview and f"{mover} moves from table" in preview, preview
    assert "repeat meeting" in preview  # what it adds (none in round 1) is said either way
    walk.shot(m, "seating-preview")
    assert mover in table_names(big)  # nothing written before the confirmation
    m.get_by_role("button", name="Apply the seating").click()
    m.wait_for_url(f"{base}{fixtures_path}")
    assert mover in table_names(small) and len(table_names(small)) == 4
    walk.shot(m, "fixtures-reseated")

    # 2. A player at the new table of four drops out before the game: the master records it.
    absent = table_names(small)[1]
    present = [n for n in table_names(small) if n != absent]
    m.locator(f"#match-{small.pk}").get_by_role("link", name="A player dropped out…").click()
    m.wait_for_url(re.compile(rf"/leagues/fixtures/{small.pk}/drop-out/$"))
    walk.shot(m, "dropout-form")
    m.check(f"input[name=player][value='{Match.objects.get(pk=small.pk).sides.get(team__name=absent).team_id}']")
    m.get_by_label("Before the game (did not come)").check()
    m.get_by_role("button", name="Show what it does").click()
    m.wait_for_load_state()
    confirm = text_of(m)
    assert f"{absent} takes the last place at the table (4th)" in confirm, confirm
    walk.shot(m, "dropout-confirm")
    m.get_by_role("button", name="Record the drop-out").click()
    m.wait_for_url(f"{base}{fixtures_path}")
    assert f"{absent} dropped out: last place" in text_of(m, f"#match-{small.pk}")
    walk.shot(m, "fixtures-dropout")

    # 3. A player at that table enters the result of the three present on her phone.
    player = Match.objects.get(pk=small.pk).sides.get(team__name=present[0]).team
    p_ctx = browser.new_context(**PHONE)
    p = walk.watch(p_ctx.new_page(), "player")
    p.set_default_timeout(15_000)
    sign_in(p, base, player.owner.username, f"/matches/{small.pk}/")
    walk.shot(p, "phone-table")
    p.get_by_role("link", name=re.compile("Enter the result")).first.click()
    p.wait_for_url(re.compile(rf"/matches/{small.pk}/result/$"))
    assert p.locator("[data-testid^=kage-seat-]").count() == 3
    for name, (master, coins) in zip(present, (("Spy", 12), ("Assassin", 7), ("Firebrand", 4)), strict=True):
        p.get_by_label(f"{name}: Kage Master").select_option(master)
        p.get_by_label(f"{name}: coins").fill(str(coins))
        p.get_by_label(f"{name}: Location rewards").fill("0")
    walk.shot(p, "phone-result-form")
    p.get_by_role("button", name="Submit the result").click()
    p.wait_for_url(f"{base}/matches/{small.pk}/")
    assert Match.objects.get(pk=small.pk).status == Match.Status.SUBMITTED
    walk.shot(p, "phone-result-waiting")

    # 4. The master confirms it; the fixture list and the league table read the drop-out.
    visit(m, base, f"/matches/{small.pk}/")
    m.get_by_role("button", name="Confirm the result").click()
    m.wait_for_url(f"{base}/matches/{small.pk}/")
    assert Match.objects.get(pk=small.pk).status == Match.Status.CONFIRMED
    assert f"{absent} dropped out: last place" in text_of(m)
    walk.shot(m, "table-played")
    visit(m, base, fixtures_path)
    line = text_of(m, f"#match-{small.pk}")
    assert f"{absent} dropped out: last place" in line and f"{present[0]} 1st (12 treasure)" in line, line
    walk.shot(m, "fixtures-played")
    visit(m, base, f"/leagues/{league.slug}/seasons/{season.number}/")
    row = m.locator("[data-testid=league-table] tbody tr", has_text=absent).inner_text()
    assert "4th ×1" in row, row
    walk.shot(m, "season-table")
    for path in (
        f"/leagues/{league.slug}/",
        f"/leagues/{league.slug}/rules/",
        f"/leagues/{league.slug}/seasons/{season.number}/desk/",
    ):
        visit(m, base, path)
    walk.shot(m, "desk")

    # 5. The player's phone: the table's page, the league table, her entry and the statistics.
    for path in (
        f"/matches/{small.pk}/",
        f"/leagues/{league.slug}/seasons/{season.number}/",
        f"/teams/{player.pk}/",
        f"/stats/leagues/{league.slug}/leaderboards/",
        "/",
    ):
        visit(p, base, path)
    walk.shot(p, "phone-dashboard")

    for ctx in (m_ctx, p_ctx):
        ctx.close()
    walk.finish()
    assert len(walk.shots) >= 14, walk.shots
