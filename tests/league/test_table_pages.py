"""The season page's league table a page at a time (issue 29: a big league's cold render bounded by
what the page shows): ``?table=<n>``, 64 rows a page (``selectors.TABLE_PAGE_SIZE``), the whole
ranking read lean (``selectors.table_ranking``) and what a row shows, with its next fixture, read
for the page's rows alone (``selectors.table_page``, ``next_fixtures(season, teams)``).

The oracle is the whole table (``selectors.league_table``, which the CSV export and the API still
read): each page shows its slice of it, positions and names, every position once across pages.
"""

from __future__ import annotations

import html
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from common import fragments
from common.dbstats import count_rows
from league import selectors
from league.models import ScheduleRun, Season, SeasonEntry
from matches.models import Match
from rules.engine import standings
from tests.league.helpers import generate, make_season, play_round
from tests.worlds import shared_world

pytestmark = pytest.mark.usefixtures("catalog")

SIZE = selectors.TABLE_PAGE_SIZE
BIG, SMALL = 70, 8


def swiss_mid_season(n: int) -> Season:
    """A Swiss season of ``n`` teams: round 1 played (scores from each team's place among the
    season's ids, so every database gives the same shape), round 2 scheduled (every team has a
    next fixture)."""
    season = make_season(n, format=Season.Format.SWISS, swiss_rounds=3)
    generate(season, ScheduleRun.Kind.SWISS)
    place = {pk: i + 1 for i, pk in enumerate(sorted(season.entries.values_list("team_id", flat=True)))}

    def score(home: int, away: int) -> tuple[int, int]:
        h, a = place[home], place[away]
        return (1, 1) if (h + a) % 3 == 0 else (h % 5, a % 4)

    play_round(season, 1, score=score)
    generate(season, ScheduleRun.Kind.SWISS)
    season = Season.objects.select_related("league").get(pk=season.pk)
    # both seasons have teams level where head-to-head applies, so both run its query
    table = selectors.league_table(season)
    assert standings.head_to_head_groups([r.standing() for r in table], season.tie_breaker_list)
    return season


def dress(season: Season) -> None:
    """Colours and a motto on some teams, a strength rating in the other system on some and in the
    game's on others (what a row shows beyond its standings)."""
    from teams import services as team_services
    from teams.models import StrengthRating

    system = season.league.game_info.strength_system
    other = next(s for s in StrengthRating.System.values if s != system)
    for i, entry in enumerate(season.entries.select_related("team").order_by("team_id")):
        if i % 5 == 0:
            team_services.team_dress(team=entry.team, colour_primary="#aa0000", colour_secondary="", motto=f"Dawn {i}")
        if i % 3 == 0:
            StrengthRating.objects.create(team=entry.team, system=system, rating=1400 + 7 * i, deviation=60 + i)
        if i % 4 == 0:
            StrengthRating.objects.create(team=entry.team, system=other, rating=20 + i, deviation=3)


def build() -> dict:
    big = swiss_mid_season(BIG)
    dress(big)
    return {"big": big, "small": swiss_mid_season(SMALL), "empty": make_season(0)}


world_built, world = shared_world(build)


def url_of(season: Season, table: str | None = None) -> str:
    url = season.get_absolute_url()
    return url if table is None else f"{url}?table={table}"


_ROW = re.compile(r'<tr>\s*<td class="text-end">(\d+)</td>\s*<th scope="row"[^>]*>(?:<a href="[^"]*">)?([^<]*)<')


def table_rows(body: str) -> list[tuple[int, str]]:
    """(position, name) of each row of the page's league table."""
    table = body[body.index('data-testid="league-table"') :].split("</table>")[0]
    tbody = table.split("<tbody>")[1]
    assert tbody.count("<tr") == len(_ROW.findall(tbody))  # every row is a team's
    return [(int(position), html.unescape(name.strip())) for position, name in _ROW.findall(tbody)]


def get(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def expected_rows(season: Season) -> list[tuple[int, str]]:
    return [(row.position, row.team.name) for row in selectors.league_table(season)]


def owner_at(season: Season, position: int):
    team_id = selectors.league_table(season)[position - 1].team.pk
    return season.entries.select_related("team__owner").get(team_id=team_id).team


# --- what a page shows ---------------------------------------------------------------------------


def test_the_pages_show_the_whole_tables_slices_each_position_once(world, client):
    big = world["big"]
    whole = expected_rows(big)
    first, second = table_rows(get(client, url_of(big))), table_rows(get(client, url_of(big, "2")))
    assert len(whole) == BIG and len(first) == SIZE and len(second) == BIG - SIZE
    assert first == whole[:SIZE] and second == whole[SIZE:]
    positions = [p for p, _ in first + second]
    assert sorted(positions) == list(range(1, BIG + 1)) and len(set(positions)) == BIG
    assert table_rows(get(client, url_of(big, "1"))) == first


def whole_table_rows(season: Season) -> list[str]:
    """Each row's HTML as the whole table (``league_table``, every next fixture) draws it."""
    from league import table_layout

    site, game = season.league.game_site, season.league.game_info
    nexts = selectors.next_fixtures(season)
    html = table_layout.render_table(
        site.columns(season),
        [(row, nexts.get(row.team.pk)) for row in selectors.league_table(season)],
        entrant=game.entrant,
        system=game.strength_system,
        scrolls=site.team_scrolls,
        show_next=True,
    )
    return row_html(html)


def row_html(body: str) -> list[str]:
    table = body[body.index('data-testid="league-table"') :].split("</table>")[0]
    return ["<tr>" + row.split("</tr>")[0] for row in table.split("<tbody>")[1].split("<tr>")[1:]]


def test_each_pages_rows_read_as_the_whole_tables_rows(world, client):
    """Every cell (colours, motto, owner, clan, strength rating, next fixture) as the unpaginated
    table draws it: a page's rows are made from the ranking's values, not read again."""
    big = world["big"]
    whole = whole_table_rows(big)
    first, second = row_html(get(client, url_of(big))), row_html(get(client, url_of(big, "2")))
    assert first == whole[:SIZE] and second == whole[SIZE:]
    joined = "".join(whole)
    assert 'fill="#aa0000"' in joined and "Dawn 5" in joined and 'title="± ' in joined  # dressed and rated


def test_a_page_renders_at_most_a_pages_rows_and_their_next_fixtures(world, client):
    big = world["big"]
    body = get(client, url_of(big))
    table = body[body.index('data-testid="league-table"') :].split("</table>")[0]
    assert table.split("<tbody>")[1].count("<tr") == SIZE
    assert body.count("pre-match sheet") == SIZE  # every row's next fixture, no more
    assert get(client, url_of(big, "2")).count("pre-match sheet") == BIG - SIZE


def test_the_selectors_page_is_its_slice_of_the_ranking_with_what_rows_show(world):
    big = world["big"]
    ranking = selectors.table_ranking(big)
    whole = selectors.league_table(big)
    assert [(r.position, r.team.pk, r.points) for r in ranking] == [(r.position, r.team.pk, r.points) for r in whole]
    # every stored figure of every row, as the whole table reads it (the ranking unpacks its columns)
    assert [(r.standing(), r.lost, r.byes) for r in ranking] == [(r.standing(), r.lost, r.byes) for r in whole]
    assert sorted(selectors._RANKING_STANDINGS) == sorted(SeasonEntry.STANDING_FIELDS)
    page = selectors.table_page(big, 2)
    assert (page.number, page.count, page.first, page.last, page.entries) == (2, 2, SIZE + 1, BIG, BIG)
    assert [r.as_dict() for r in page.rows] == [r.as_dict() for r in whole[SIZE:]]  # owner, clan...
    assert [r.strength for r in page.rows] == [r.strength for r in whole[SIZE:]]
    assert selectors.table_page(big, 99).number == 2 and selectors.table_page(big, -3).number == 1
    empty = selectors.table_page(world["empty"], 1)
    assert (empty.rows, empty.number, empty.count, empty.entries) == ([], 1, 1, 0)


def test_the_pager_is_under_a_table_of_more_than_one_page_only(world, client):
    big, small = world["big"], world["small"]
    body = get(client, url_of(big, "2"))
    assert 'aria-label="Pages of the league table" data-testid="table-pages"' in body
    pager = body[body.index('data-testid="table-pages"') :].split("</nav>")[0]
    assert 'aria-current="page"><span class="page-link">2</span>' in pager
    assert f'href="{big.get_absolute_url()}#table"' in pager  # page 1 is the season's own address
    assert "http" not in pager  # host-relative links
    assert f"Positions {SIZE + 1}–{BIG} of {BIG} teams" in pager
    first = get(client, url_of(big))
    assert f'href="{big.get_absolute_url()}?table=2#table" aria-label="Page 2"' in first
    assert 'data-testid="table-pages"' not in get(client, url_of(small))


@pytest.mark.parametrize(
    "value, page",
    [
        ("abc", 1),
        ("-1", 1),
        ("0", 1),
        ("", 1),
        ("1.5", 1),
        ("２", 1),  # a full-width digit is no number here
        ("99999999999999999999", 2),
        ("9" * 5000, 2),  # past int()'s digit limit
        ("0002", 2),
        ("3", 2),
    ],
)
def test_hostile_page_values_answer_the_nearest_page(world, client, value, page):
    big = world["big"]
    whole = expected_rows(big)
    rows = table_rows(get(client, url_of(big, value)))
    assert rows == whole[(page - 1) * SIZE : page * SIZE]


@pytest.mark.parametrize("value", ["2", "99999999999999999999", "-1", "abc"])
def test_a_one_page_table_answers_its_only_page(world, client, value):
    small = world["small"]
    assert table_rows(get(client, url_of(small, value))) == expected_rows(small)


def test_empty_states_render_as_before(world, client):
    empty = world["empty"]
    for value in (None, "2", "abc"):
        body = get(client, url_of(empty, value))
        assert "No teams entered yet." in body and 'data-testid="table-pages"' not in body
    unscheduled = make_season(3)  # entries, no fixtures
    rows = table_rows(get(client, url_of(unscheduled, "2")))
    assert [p for p, _ in rows] == [1, 2, 3] and "pre-match sheet" not in get(client, url_of(unscheduled))


# --- a member's line ------------------------------------------------------------------------------


def test_a_member_whose_team_is_on_another_page_is_told_where(world, client):
    big = world["big"]
    position = SIZE + 3
    team = owner_at(big, position)
    client.force_login(team.owner)
    body = get(client, url_of(big))
    line = re.search(r'data-testid="own-table-line">(.*?)</p>', body).group(1)
    assert f"Your team {html.escape(team.name)}: position {position}, " in line
    assert f'<a href="{big.get_absolute_url()}?table=2#table">page 2</a>' in line
    assert 'data-testid="own-table-line"' not in get(client, url_of(big, "2"))  # the page it is on

    top = owner_at(big, 1)
    client.force_login(top.owner)
    assert 'data-testid="own-table-line"' not in get(client, url_of(big))


# --- what a page reads ----------------------------------------------------------------------------


def member_page(client: Client, user, url: str) -> tuple[int, int, str]:
    client.force_login(user)
    client.get(url)  # warm (session)
    with CaptureQueriesContext(connection) as queries, count_rows() as counted:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries.captured_queries), counted.rows, response.content.decode()


def test_the_season_page_runs_the_same_queries_at_8_and_70_teams_and_fetches_by_the_page(world, client):
    big, small = world["big"], world["small"]
    far = owner_at(big, BIG).owner  # on page 2: page 1 tells them where
    small_queries, small_rows, _ = member_page(client, owner_at(small, SMALL).owner, url_of(small))
    first_queries, first_rows, first = member_page(client, far, url_of(big))
    second_queries, second_rows, second = member_page(client, far, url_of(big, "2"))
    assert 'data-testid="own-table-line"' in first and 'data-testid="own-table-line"' not in second
    assert small_queries == first_queries == second_queries
    # The ranking reads every entry (a lean row each, and head-to-head's games between teams still
    # level): the positions need them all. Beyond it, a page reads for the rows it shows.
    beyond = {
        "small": small_rows - ranking_rows(small),
        "first": first_rows - ranking_rows(big),
        "second": second_rows - ranking_rows(big),
    }
    # A row shown reads its team's row and its next fixture's sides (one or two: its opponent may be
    # shown too) and at most a strength rating: 1 to 3 rows; the rest is the page's own overhead.
    overhead = beyond["small"] - SMALL  # at most
    assert beyond["second"] <= overhead + 3 * (BIG - SIZE), beyond  # 6 rows' worth, not 70's
    assert beyond["first"] <= overhead + 3 * SIZE, beyond
    assert beyond["first"] - beyond["second"] >= SIZE - (BIG - SIZE), beyond


def ranking_rows(season: Season) -> int:
    with count_rows() as counted:
        selectors.table_ranking(season)
    return counted.rows


def last_fixtures_teams(season: Season, fixtures: int) -> list[int]:
    """The teams of the season's last ``fixtures`` scheduled fixtures in the fixture order."""
    scheduled = sorted(Match.objects.filter(season=season, status=Match.Status.SCHEDULED), key=selectors._fixture_order)
    return [side.team_id for match in scheduled[-fixtures:] for side in match.sides.all()]


def test_next_fixtures_of_a_subset_read_only_their_fixtures_and_agree_with_the_whole(world):
    big = world["big"]
    whole = selectors.next_fixtures(big)
    subset = last_fixtures_teams(big, 3)  # not in the season's first three fixtures
    with CaptureQueriesContext(connection) as queries, count_rows() as counted:
        found = selectors.next_fixtures(big, subset)
    assert set(found) == set(subset) and found == {team: whole[team] for team in subset}
    # one query: the subset's own fixtures (three, two sides each), no window over the season
    assert len(queries) == 1 and counted.rows == 2 * 3, (len(queries), counted.rows)


# --- the caches ----------------------------------------------------------------------------------


@pytest.mark.page_cache
def test_the_anonymous_page_cache_keeps_each_page_apart(world, settings, fresh_locmem_cache):
    settings.PAGE_CACHE_SECONDS = 300
    big = world["big"]
    anon = Client()
    first, second = get(anon, url_of(big)), get(anon, url_of(big, "2"))
    assert table_rows(first) != table_rows(second)
    assert table_rows(second) == expected_rows(big)[SIZE:]
    with CaptureQueriesContext(connection) as queries:
        again_second, again_first, one = (
            get(anon, url_of(big, "2")),
            get(anon, url_of(big)),
            get(anon, url_of(big, "1")),
        )
    assert len(queries) == 0  # all three from the cache, each as it was stored
    assert again_second == second and again_first == first and one == first


@pytest.mark.page_cache
def test_each_page_is_a_fragment_of_its_own_page_1s_key_unchanged(world, client, fragment_cache):
    big = world["big"]
    client.force_login(owner_at(big, 1).owner)
    first, second = table_rows(get(client, url_of(big))), table_rows(get(client, url_of(big, "2")))
    assert fragment_cache.get(fragments.PREFIX + f"season-table:{big.pk}") is not None
    assert fragment_cache.get(fragments.PREFIX + f"season-table:{big.pk}:2") is not None
    assert fragment_cache.get(fragments.PREFIX + f"season-table:{big.pk}:3") is None  # "3" is page 2
    get(client, url_of(big, "3"))
    assert fragment_cache.get(fragments.PREFIX + f"season-table:{big.pk}:3") is None
    assert table_rows(get(client, url_of(big))) == first and table_rows(get(client, url_of(big, "2"))) == second


def test_a_table_games_pages_show_its_places_as_the_whole_table_does(client):
    """Kage Masters' places (subqueries, read for the page's rows alone) and its own columns."""
    from games import registry as games
    from matches import services as match_services
    from tests.league.test_games_own_words import players_league
    from tests.trust.world import KAGE_RECORD

    season = players_league(games.KAGE_MASTERS, SIZE + 3, format=Season.Format.SELF_ARRANGED)
    entries = [e.team for e in season.entries.order_by("team_id")]
    whole = selectors.league_table(season)
    # the table's last three play a table: its winner rises to the top, the others stay on page 2
    players = [row.team for row in whole[-3:]]
    table = match_services.match_create(teams=players, season=season)
    match_services.match_submit_game_result(match=table, record=KAGE_RECORD, actor=players[0].owner)
    for player in players[1:]:
        match_services.match_confirm(match=Match.objects.get(pk=table.pk), actor=player.owner)
    assert len(entries) == SIZE + 3
    rows = whole_table_rows(season)
    first, second = row_html(get(client, url_of(season))), row_html(get(client, url_of(season, "2")))
    assert first == rows[:SIZE] and second == rows[SIZE:]
    assert "1st ×1" in "".join(first) and ("2nd ×1" in "".join(second) or "3rd ×1" in "".join(second))


def test_the_csv_export_and_the_api_keep_the_whole_table(world, client):
    big = world["big"]
    csv = client.get(reverse("exports:table_csv", args=[big.league.slug, big.number]))
    assert csv.status_code == 200
    lines = [line for line in b"".join(csv).decode().splitlines() if line.strip()]
    assert len(lines) == 1 + BIG  # a heading and every row
    api = client.get(f"/api/v1/seasons/{big.pk}/table/")
    assert api.status_code == 200 and len(api.json()["rows"]) == BIG
