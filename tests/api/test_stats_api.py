"""Leaderboards and strength ratings in the API (issue 16, part 5): the pages' selectors, values
hand-computed on the small league of tests/stats/helpers.py, every answer checked against the
schema (tests/api/conftest.py's Api client)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from stats import ratings
from stats.selectors import leaderboards as lb
from stats.selectors.leaderboards import Scope
from stats.selectors.ratings import strength_ratings
from teams.models import StrengthRating
from tests.api.conftest import Api
from tests.factories import LeagueFactory
from tests.league.conftest import celery_eager  # noqa: F401
from tests.stats.helpers import small_league

pytestmark = pytest.mark.django_db

LEADERBOARDS = "/api/v1/leaderboards/"
RATINGS = "/api/v1/ratings/"


@pytest.fixture
def small(catalog):
    return small_league()


@pytest.fixture
def reader():
    return Api(None, None)  # anonymous, as the pages are public


def boards(body) -> dict[str, dict]:
    return {board["key"]: board for board in body["results"]}


def figures(board) -> list[tuple[int, str, int]]:
    """(rank, the name behind the row, value)."""
    names = []
    for row in board["rows"]:
        thing = row["ninja"] or row["match"] or row["team"]
        names.append(thing.get("name", f"#{thing['id']}"))
    return [(row["rank"], name, row["value"]) for row, name in zip(board["rows"], names, strict=True)]


def test_all_time_boards_hand_computed(small, reader):
    body = reader.get(LEADERBOARDS).json()
    assert body["count"] == len(lb.BOARDS) and list(boards(body)) == list(lb.BOARDS)
    got = boards(body)
    name_a, name_b = small.na.name, small.nb.name
    # XP: na 6 + 4 + 1 (Water) + 2 = 13; nb 6 (the voided m6's 5 and -5 count nowhere).
    assert figures(got["xp"]) == [(1, name_a, 13), (2, name_b, 6)]
    # Injuries: na 2 + 1, nb 3 (not m6's 5): tied, listed by name.
    assert sorted(figures(got["injuries"])) == sorted([(1, name_a, 3), (1, name_b, 3)])
    assert figures(got["reveals"]) == [(1, name_a, 3)]
    # Wins: A m1, m3; B m2, the final. Koban: A 10 + 10 + 5 + 7, B 5 + 10 + 10, C 6 + 5 + 7.
    assert sorted(figures(got["wins"])) == [(1, "Alpha", 2), (1, "Bravo", 2)]
    assert figures(got["koban"]) == [(1, "Alpha", 32), (2, "Bravo", 25), (3, "Charlie", 18)]
    # Upsets: A (100) beat B (104) in m1 by a gap of 4; B (104) beat A (106) in the final: 2.
    upsets = got["biggest_upset"]["rows"]
    assert [(r["rank"], r["match"]["id"], r["winner"]["name"], r["loser"]["name"], r["value"]) for r in upsets] == [
        (1, small.m1.pk, "Alpha", "Bravo", 4),
        (2, small.final.pk, "Bravo", "Alpha", 2),
    ]
    assert (upsets[0]["winner_points"], upsets[0]["loser_points"]) == (3, 0)
    assert got["xp"]["scope"] == {"kind": "all", "title": "All leagues, all time", "league": None, "season": None}


def test_the_api_shows_the_pages_boards(small, reader):
    """One source of truth: every board's rows are the selector's, in its order."""
    for scope, params in (
        (Scope(), {}),
        (Scope(league=small.league), {"league": "small"}),
        (Scope(league=small.league, season=small.season2), {"season": small.season2.pk}),
    ):
        got = boards(reader.get(LEADERBOARDS, **params).json())
        for board in lb.leaderboards(scope):
            assert [(r["rank"], r["value"]) for r in got[board.key]["rows"]] == [(r.rank, r.value) for r in board.rows]
            assert got[board.key]["kind"] == board.kind and got[board.key]["title"] == board.title


def test_each_row_links_to_what_is_behind_it(small, reader):
    got = boards(reader.get(LEADERBOARDS).json())
    top = got["xp"]["rows"][0]
    assert top["ninja"]["url"].endswith(reverse("stats:ninja_career", args=[small.na.pk]))
    assert top["ninja"]["api_url"].endswith(reverse("api:ninja-detail", args=[small.na.pk]))
    assert top["team"]["id"] == small.a.pk and top["match"] is None
    assert reader.get(top["ninja"]["api_url"]).json()["name"] == small.na.name  # the link answers
    win = got["biggest_win"]["rows"][0]
    assert win["match"]["url"].endswith(reverse("matches:detail", args=[small.m1.pk]))
    assert win["match"]["api_url"].endswith(reverse("api:match-detail", args=[small.m1.pk]))
    assert win["ninja"] is None and win["team"] is None and win["ongoing"] is None
    runs = {row["team"]["name"]: row for row in got["unbeaten"]["rows"]}
    # A: W m1, W m3, L final, D m5 -> 2, over. B: L m1, W m2, W final -> 2, still going.
    assert (runs["Alpha"]["value"], runs["Alpha"]["first_match"]["id"], runs["Alpha"]["last_match"]["id"]) == (
        2,
        small.m1.pk,
        small.m3.pk,
    )
    assert runs["Alpha"]["ongoing"] is False and runs["Bravo"]["ongoing"] is True
    assert runs["Bravo"]["team"]["url"].endswith(reverse("stats:team_history", args=[small.b.pk]))


def test_a_season_and_one_board(small, reader):
    body = reader.get(LEADERBOARDS, season=small.season1.pk, board="koban").json()
    assert body["count"] == 1
    (koban,) = body["results"]
    # Season 1: A 10 + 10 + 5 = 25, B 5 + 10 + 10 = 25 (tied, by name), C 6 + 5 = 11.
    assert figures(koban) == [(1, "Alpha", 25), (1, "Bravo", 25), (3, "Charlie", 11)]
    assert koban["scope"] == {
        "kind": "season",
        "title": f"Small League — {small.season1.name}",
        "league": "small",
        "season": small.season1.pk,
    }
    assert koban["url"].endswith(reverse("stats:season_leaderboards", kwargs={"slug": "small", "number": 1}))
    assert koban["csv_url"].endswith(
        reverse("exports:season_leaderboards_csv", kwargs={"slug": "small", "number": 1}) + "?board=koban"
    )
    # Season 2: one draw (m5) and the voided m6: nobody won.
    assert reader.get(LEADERBOARDS, season=small.season2.pk, board="wins").json()["results"][0]["rows"] == []


def test_limit_and_pages(small, reader):
    body = reader.get(LEADERBOARDS, limit=1).json()
    assert all(len(board["rows"]) <= 1 for board in body["results"])
    assert boards(body)["koban"]["rows"][0]["team"]["name"] == "Alpha"
    page = reader.get(LEADERBOARDS, page_size=2, page=2).json()
    assert [b["key"] for b in page["results"]] == list(lb.BOARDS)[2:4] and page["next"] and page["previous"]


@pytest.mark.parametrize(
    "params,status",
    [
        ({"scope": "all", "league": "small"}, 400),
        ({"scope": "league"}, 400),
        ({"scope": "league", "league": "small", "season": 1}, 400),
        ({"scope": "season"}, 400),
        ({"scope": "everything"}, 400),
        ({"board": "nope"}, 400),
        ({"limit": 0}, 400),
        ({"limit": lb.MAX_LIMIT + 1}, 400),
        ({"season": "1.5"}, 400),
        ({"league": "no-such-league"}, 404),
        ({"season": 2**62}, 404),
    ],
)
def test_refused_queries(small, reader, params, status):
    assert reader.get(LEADERBOARDS, **params).status_code == status


def test_a_season_of_another_league(small, reader):
    LeagueFactory(name="Elsewhere", slug="elsewhere")
    assert reader.get(LEADERBOARDS, league="elsewhere", season=small.season1.pk).status_code == 400
    assert reader.get(LEADERBOARDS, league="small", season=small.season1.pk).status_code == 200


# --- strength ratings ---------------------------------------------------------------------------------


def test_ratings_are_the_pages_list(small, reader):
    ratings.ratings_recompute()
    body = reader.get(RATINGS).json()
    expected = list(strength_ratings(coaches=False, system=StrengthRating.System.GLICKO2))
    assert [r["team"]["id"] for r in body["results"]] == [row.team_id for row in expected]
    assert [r["rating"] for r in body["results"]] == [row.rating for row in expected]
    assert [r["position"] for r in body["results"]] == [1, 2, 3]
    # Two-team games confirmed: A m1, m3, the final, m5; B m1, m2, the final; C m2, m3, m5.
    games = {r["team"]["name"]: r["games"] for r in body["results"]}
    assert games == {"Alpha": 4, "Bravo": 3, "Charlie": 3}
    first = body["results"][0]
    assert first["kind"] == "team" and first["coach"] is None and first["system"] == "glicko2"
    assert first["spread"] == pytest.approx(2 * first["deviation"])
    assert first["team"]["url"].endswith(reverse("stats:team_history", args=[first["team"]["id"]]))
    alpha = next(r for r in body["results"] if r["team"]["name"] == "Alpha")
    assert alpha["clan"] == "tora" and alpha["owner"] == small.a.owner.username
    assert alpha["last_match"]["id"] == small.m5.pk  # A's latest rated game


def test_coach_ratings_pages_and_the_league_filter(small, reader):
    ratings.ratings_recompute()
    coaches = reader.get(RATINGS, kind="coach").json()
    owners = {small.a.owner.username, small.b.owner.username, small.c.owner.username}
    assert {r["coach"]["username"] for r in coaches["results"]} == owners
    assert all(r["team"] is None and r["kind"] == "coach" for r in coaches["results"])
    assert coaches["results"][0]["coach"]["url"].endswith(
        reverse("stats:coach", args=[coaches["results"][0]["coach"]["username"]])
    )
    second = reader.get(RATINGS, page_size=1, page=2).json()
    assert second["count"] == 3 and [r["position"] for r in second["results"]] == [2]
    LeagueFactory(name="Elsewhere", slug="elsewhere")
    assert reader.get(RATINGS, league="elsewhere").json()["count"] == 0
    assert reader.get(RATINGS, league="elsewhere", kind="coach").json()["count"] == 0
    assert reader.get(RATINGS, league="small", kind="coach").json()["count"] == 3
    # Only two-team games so far: nobody has a Plackett-Luce rating.
    assert reader.get(RATINGS, system="plackett_luce").json()["count"] == 0
    assert reader.get(RATINGS, kind="referee").status_code == 400
    assert reader.get(RATINGS, league="no-such-league").status_code == 404


def test_the_schema_documents_the_new_endpoints():
    from tests.api.schema import document

    paths = document()["paths"]
    for path, params in ((LEADERBOARDS, {"scope", "league", "season", "board", "limit"}), (RATINGS, {"kind"})):
        operation = paths[path]["get"]
        assert params | {"page", "page_size"} <= {p["name"] for p in operation["parameters"]}
        assert "Paginated" in operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]


@pytest.mark.throttle
def test_the_new_endpoints_are_throttled(small, reader, settings):
    from django.core.cache import cache

    for url in (LEADERBOARDS, RATINGS):
        cache.clear()
        settings.API_THROTTLE_RATES = {"anon": "2/min", "user": "1000/min", "write": "1000/min"}
        assert [reader.get(url).status_code for _ in range(3)] == [200, 200, 429]
