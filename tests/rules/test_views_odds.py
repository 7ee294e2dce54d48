"""The public combat odds page /rules/odds/ through the test client: no database queries."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.urls import reverse

from rules.engine.dice import Element
from rules.engine.odds import combat_odds

# django_assert_num_queries needs a database connection, though the page makes no queries.
pytestmark = pytest.mark.django_db

URL = "/rules/odds/"


def pct(p) -> str:
    return f"{100 * float(p):.1f}%"


def row_pct(html: str, name: str) -> str:
    match = re.search(rf'<tr id="odds-{name}">.*?<strong>([\d.]+%)</strong>', html, re.S)
    assert match, f"no row for {name}"
    return match.group(1)


def test_url_name():
    assert reverse("rules:odds") == URL


def test_default_page_shows_the_initial_odds(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    odds = combat_odds(4, 3)
    assert "4 attack dice against 3 defense dice" in html
    assert row_pct(html, "void") == pct(odds[Element.VOID])
    assert row_pct(html, "none") == pct(odds[None])
    assert '<svg role="img"' in html and html.count("<rect ") == 7
    assert 'method="get"' in html.lower()


def test_bonuses_change_the_pools(client, django_assert_num_queries):
    params = dict(attack=3, defense=2, assists_attacker=2, assists_defender=1, back_strike="on", stealth="on")
    with django_assert_num_queries(0):
        response = client.get(URL, params)
    html = response.content.decode()
    assert "7 attack dice against 3 defense dice" in html
    odds = combat_odds(7, 3)
    for element in Element:
        assert row_pct(html, element.value.lower()) == pct(odds[element])
    # the table sums to 100% (rounding aside) and the exact fractions are in the titles
    assert f'title="exactly {Fraction(odds[Element.VOID])}"' in html


def test_full_grid_of_defender_injured(client):
    html = client.get(URL, {"attack": 10, "defense": 1}).content.decode()
    grid = html.split('id="odds-grid-table"', 1)[1]
    cells = re.findall(r"<td[^>]*>([\d.]+%)</td>", grid)
    assert len(cells) == 100
    assert cells[0] == pct(combat_odds(1, 1)[Element.VOID])
    assert cells[-1] == pct(combat_odds(10, 10)[Element.VOID])
    assert 'class="table-primary fw-bold">' + pct(combat_odds(10, 1)[Element.VOID]) in grid


@pytest.mark.parametrize(
    "params",
    [
        {"attack": "abc", "defense": 3},
        {"attack": 11, "defense": 3},
        {"attack": 0, "defense": 3},
        {"attack": 4, "defense": ""},
        {"attack": 4, "defense": 3, "assists_attacker": 4},
        {"attack": 4, "defense": 3, "assists_defender": -1},
    ],
)
def test_invalid_input_is_a_form_error_not_a_500(client, params, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get(URL, params)
    assert response.status_code == 200
    html = response.content.decode()
    assert "invalid-feedback" in html or "is-invalid" in html
    assert 'id="odds-table"' not in html
    assert 'id="odds-grid-table"' in html
