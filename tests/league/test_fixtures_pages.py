"""The season's fixtures in pages of whole rounds: a 64-team round robin's page listed 2,016 games
(1.3 MB, 1.8 s of CPU) and a 256-team one's 32,640 (21 MB, 32 s). A page holds as many whole
rounds as fit in ``FIXTURES_PAGE_SIZE`` lines and opens, without ``?page=``, on the round being
played; its queries do not grow with the season."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from common.pagecache import QUERY_PARAMETERS
from league import selectors
from league.models import ScheduleRun
from matches.models import Match
from tests.league.helpers import generate, make_season, play_round

pytestmark = pytest.mark.usefixtures("catalog")


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(selectors, "FIXTURES_PAGE_SIZE", 13)  # two rounds of six games a page


def fixtures(client, season, query: str = "") -> tuple[str, int]:
    url = f"/leagues/{season.league.slug}/seasons/{season.number}/fixtures/{query}"
    with CaptureQueriesContext(connection) as ctx:
        page = client.get(url)
    assert page.status_code == 200
    return page.content.decode(), len(ctx.captured_queries)


def rounds_shown(html: str) -> list[int]:
    import re

    return [int(n) for n in re.findall(r'<h2 class="h5">Round (\d+)', html)]


def test_a_page_holds_whole_rounds_and_opens_on_the_round_being_played(client, small_pages):
    season = make_season(12)  # 11 rounds of 6 games
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    for r in (1, 2, 3):
        play_round(season, r)
    client.force_login(season.entries.first().team.owner)
    html, _ = fixtures(client, season)
    assert rounds_shown(html) == [3, 4]  # page 2: round 4 is the first with games to play
    assert 'data-testid="fixtures-pages"' in html and "Page 2 of 6" in html
    assert "?page=1" in html and "Round 1 – Round 2" in html
    assert rounds_shown(fixtures(client, season, "?page=1")[0]) == [1, 2]
    assert rounds_shown(fixtures(client, season, "?page=6")[0]) == [11]
    # past the last page: the last; not a number: page 1
    assert rounds_shown(fixtures(client, season, "?page=999999999999")[0]) == [11]
    assert rounds_shown(fixtures(client, season, "?page=abc")[0]) == [1, 2]
    assert rounds_shown(fixtures(client, season, "?page=-3")[0]) == [1, 2]
    match = Match.objects.filter(season=season, round_number=9).first()
    assert selectors.fixtures_page_of(season, match) == 5
    # a game arranged or a challenge set sends the player back to the page listing it
    from league.views import _fixtures_url

    assert _fixtures_url(season, match).endswith("/fixtures/?page=5")
    assert rounds_shown(fixtures(client, season, "?page=5")[0]) == [9, 10]


def test_every_fixture_decided_opens_on_the_first_page_and_no_fixtures_says_so(client, small_pages):
    season = make_season(4)  # 3 rounds of 2 games: one page
    client.force_login(season.league.master)
    html, _ = fixtures(client, season)
    assert "No fixtures yet." in html and 'data-testid="fixtures-pages"' not in html
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    for r in (1, 2, 3):
        play_round(season, r)
    html, _ = fixtures(client, season)
    assert rounds_shown(html) == [1, 2, 3] and 'data-testid="fixtures-pages"' not in html


def test_the_queries_and_the_lines_stay_the_same_whatever_the_seasons_size(client, small_pages):
    shown = {}
    for n in (8, 16):
        season = make_season(n)
        generate(season, ScheduleRun.Kind.ROUND_ROBIN)
        play_round(season, 1)
        client.force_login(season.entries.first().team.owner)
        fixtures(client, season)  # the session, warm
        html, queries = fixtures(client, season)
        shown[n] = (queries, html.count('class="list-group-item'))
    assert shown[8][0] == shown[16][0]
    assert shown[16][1] <= 13 and shown[8][1] <= 13


def test_the_anonymous_page_cache_keeps_each_page_and_the_default_apart():
    normalise = QUERY_PARAMETERS["league:season_fixtures"]["page"]
    assert normalise("1") == "1" and normalise("0002") == "2"  # page 1 is not the page without a number
    assert normalise("abc") is None and normalise("0") is None
