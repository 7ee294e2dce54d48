"""A league table in its game's columns (issue 28, part 3): ``games.protocol.Column`` checks what a
game declares, and ``league.table_layout`` draws exactly the columns given, in order, for the
running table and the final one."""

from __future__ import annotations

import re

import pytest

from games import registry
from games.protocol import STRENGTH, Column, default_columns
from league.table_layout import render_table


@pytest.mark.parametrize(
    "kwargs",
    [
        {"key": "Points"},  # not a lower-case name
        {"key": "x" * 41},
        {"key": "won", "cell": "bar"},
        {"key": "won", "hide_below": "xl"},
        {"key": "won", "heading": ""},
        {"key": "won", "heading": "A long heading"},
    ],
)
def test_a_column_a_game_gets_wrong_is_refused(kwargs):
    column = {"heading": "W", "title": "Won", **kwargs}
    with pytest.raises(ValueError):
        Column(**column)


def _titles(html: str) -> list[str]:
    return re.findall(r'<th scope="col"[^>]*title="([^"]*)"', html)


def _cells(html: str) -> list[list[str]]:
    return [re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S) for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)]


ROW = {
    "position": 1,
    "team": "Ink Shadow",
    "owner": "akane",
    "played": 4,
    "won": 3,
    "drawn": 0,
    "lost": 1,
    "points": 9,
    "points_for": 17,
    "points_against": 5,
    "points_difference": 12,
    "rating": 1040,
    "places_text": "1st ×3 · 2nd ×1",
    "values": {"throws": 11},
}


def test_the_table_is_drawn_in_the_columns_given_and_their_order():
    columns = (
        Column("won", "W", "Won"),
        Column("throws", "Thr.", "Throws thrown", hide_below="sm"),
        Column("places_text", "Places", "Places taken", cell="text"),
        Column("points", "Pts", "League points", strong=True),
    )
    html = render_table(columns, [(ROW, None)], entrant="player", system="glicko2")
    assert _titles(html) == ["Won", "Throws thrown", "Places taken", "League points"]
    header = re.search(r"<thead>.*?</thead>", html, re.S).group(0)
    assert 'class="text-end d-none d-sm-table-cell" title="Throws thrown">Thr.</th>' in header
    assert '<th scope="col" class="" ' not in header and 'title="Places taken">Places</th>' in header
    body = [cells for cells in _cells(html) if cells]
    assert body == [["1", "3", "11", "1st ×3 · 2nd ×1", "9"]]
    assert '<td class="text-end fw-bold">9</td>' in html and "Next fixture" not in html


def test_an_empty_table_spans_its_columns():
    html = render_table(default_columns(None), [], entrant="player", system="plackett_luce", show_next=True)
    assert 'colspan="9"' in html and "No players entered yet." in html  # #, player, six columns, next
    assert "Strength rating (Plackett–Luce) from the player's results" in html


@pytest.mark.parametrize("key", sorted(registry.GAMES))
def test_every_games_final_table_keeps_its_columns_but_the_strength(key):
    site = registry.game_of(key)
    running = site.columns(None)
    final = site.columns(None, archived=True)
    assert STRENGTH in running and STRENGTH not in final
    assert [c for c in running if c != STRENGTH] == list(final)
    html = render_table(final, [(ROW, None)], entrant="team", system="glicko2", testid="final-table")
    assert 'data-testid="final-table"' in html and _titles(html) == [c.title for c in final]


def test_each_game_speaks_its_own_columns():
    class Season:
        game_rules = {}

    timed = type("Timed", (), {"game_rules": {"time_limit_minutes": 45}})()
    titles = {key: [c.title for c in registry.game_of(key).columns(Season())] for key in registry.GAMES}
    assert "Points scored" in titles[registry.ALLSTARS] and "Team rating" in titles[registry.ALLSTARS]
    assert "Drawn on time" not in titles[registry.NINJUTSU] and "Points scored" not in titles[registry.NINJUTSU]
    assert "Drawn on time" in [c.title for c in registry.game_of(registry.NINJUTSU).columns(timed)]
    assert titles[registry.KAGE_MASTERS][:3] == ["Tables played", "Places taken at the tables", "Total treasure"]
    assert titles[registry.KAGE_MASTERS][-1] == "Place points"
