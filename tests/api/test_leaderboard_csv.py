"""Leaderboard CSV downloads (issue 16, part 6): linked from the leaderboard pages, the pages'
boards (values hand-computed on the small league of tests/stats/helpers.py), bounded, and safe to
open in a spreadsheet."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from api import exports
from stats.selectors import leaderboards as lb
from teams.models import Ninja, Team
from tests.league.conftest import celery_eager  # noqa: F401
from tests.stats.helpers import small_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def small(catalog):
    return small_league()


def table(resp, filename: str) -> list[dict[str, str]]:
    assert resp.status_code == 200 and resp["Content-Type"] == "text/csv; charset=utf-8"
    assert resp["Content-Disposition"] == f'attachment; filename="{filename}"'
    rows = list(csv.reader(io.StringIO(resp.content.decode())))
    assert rows[0] == exports.LEADERBOARD_COLUMNS
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def of(rows, board: str) -> list[dict[str, str]]:
    return [row for row in rows if row["board"] == board]


def test_the_pages_link_their_downloads(small, client):
    for page, download in (
        (reverse("stats:leaderboards"), reverse("exports:leaderboards_csv")),
        (
            reverse("stats:league_leaderboards", args=["small"]),
            reverse("exports:league_leaderboards_csv", args=["small"]),
        ),
        (
            reverse("stats:season_leaderboards", kwargs={"slug": "small", "number": 2}),
            reverse("exports:season_leaderboards_csv", kwargs={"slug": "small", "number": 2}),
        ),
    ):
        html = client.get(page).content.decode()
        assert f'href="{download}"' in html  # every board
        assert f'href="{download}?board=biggest_upset"' in html  # one board


def test_every_board_all_time_hand_computed(small, client):
    rows = table(client.get(reverse("exports:leaderboards_csv")), "all-time-leaderboards.csv")
    assert [row["board"] for row in rows] == sorted((r["board"] for r in rows), key=list(lb.BOARDS).index)
    xp = of(rows, "xp")
    # na 6 + 4 + 1 (Water) + 2 = 13; nb 6 (the voided m6 counts nowhere).
    assert [(r["rank"], r["ninja"], r["team"], r["value"], r["unit"]) for r in xp] == [
        ("1", small.na.name, "Alpha", "13", "XP"),
        ("2", small.nb.name, "Bravo", "6", "XP"),
    ]
    assert xp[0]["ninja_id"] == str(small.na.pk)
    assert xp[0]["url"] == "http://testserver" + reverse("stats:ninja_career", args=[small.na.pk])
    assert [(r["team"], r["value"]) for r in of(rows, "koban")] == [("Alpha", "32"), ("Bravo", "25"), ("Charlie", "18")]
    upset = of(rows, "biggest_upset")[0]
    assert (upset["winner"], upset["winner_points"], upset["loser_points"], upset["loser"], upset["value"]) == (
        "Alpha",
        "3",
        "0",
        "Bravo",
        "4",
    )
    assert upset["match_id"] == str(small.m1.pk) and upset["ninja"] == "" and upset["ongoing"] == ""
    assert upset["url"] == "http://testserver" + reverse("matches:detail", args=[small.m1.pk])
    runs = {r["team"]: r for r in of(rows, "unbeaten")}
    assert (runs["Alpha"]["value"], runs["Alpha"]["first_match_id"], runs["Alpha"]["last_match_id"]) == (
        "2",
        str(small.m1.pk),
        str(small.m3.pk),
    )
    assert runs["Alpha"]["ongoing"] == "no" and runs["Bravo"]["ongoing"] == "yes"
    assert runs["Charlie"]["url"] == "http://testserver" + reverse("stats:team_history", args=[small.c.pk])


def test_one_board_of_a_season(small, client):
    url = reverse("exports:season_leaderboards_csv", kwargs={"slug": "small", "number": 1})
    rows = table(client.get(url, {"board": "wins"}), "small-season-1-leaderboards-wins.csv")
    # Season 1: A won m1 and m3, B m2 and the final.
    assert {(r["board"], r["rank"], r["team"], r["value"]) for r in rows} == {
        ("wins", "1", "Alpha", "2"),
        ("wins", "1", "Bravo", "2"),
    }
    league = table(
        client.get(reverse("exports:league_leaderboards_csv", args=["small"]), {"board": "xp"}),
        "small-leaderboards-xp.csv",
    )
    assert [(r["ninja"], r["value"]) for r in league] == [(small.na.name, "13"), (small.nb.name, "6")]


def test_refusals(small, client):
    assert client.get(reverse("exports:leaderboards_csv"), {"board": "nope"}).status_code == 400
    assert client.get(reverse("exports:league_leaderboards_csv", args=["nowhere"])).status_code == 404
    missing = reverse("exports:season_leaderboards_csv", kwargs={"slug": "small", "number": 9})
    assert client.get(missing).status_code == 404
    assert client.post(reverse("exports:leaderboards_csv")).status_code == 405


def test_rows_are_bounded(small, client, monkeypatch):
    """At most LEADERBOARD_CSV_ROWS a board (the API's most), whatever the history."""
    assert exports.LEADERBOARD_CSV_ROWS == lb.MAX_LIMIT
    monkeypatch.setattr(exports, "LEADERBOARD_CSV_ROWS", 1)
    rows = table(client.get(reverse("exports:leaderboards_csv")), "all-time-leaderboards.csv")
    per_board = {key: len(of(rows, key)) for key in lb.BOARDS}
    assert max(per_board.values()) == 1 and per_board["koban"] == 1  # three teams earned koban


def test_names_that_look_like_formulas_are_quoted(small, client):
    Ninja.objects.filter(pk=small.na.pk).update(name='=HYPERLINK("http://evil")')
    Team.objects.filter(pk=small.a.pk).update(name="@SUM(A1)")
    Team.objects.filter(pk=small.b.pk).update(name="+Bravo")
    rows = table(client.get(reverse("exports:leaderboards_csv")), "all-time-leaderboards.csv")
    top = of(rows, "xp")[0]
    assert top["ninja"] == '\'=HYPERLINK("http://evil")' and top["team"] == "'@SUM(A1)"
    upset = of(rows, "biggest_upset")[0]
    assert (upset["winner"], upset["loser"]) == ("'@SUM(A1)", "'+Bravo")
    assert not any(cell.startswith(exports.FORMULA_START) for row in rows for cell in row.values())
    # numbers stay numbers
    assert top["value"] == "13"
