"""The Ninjutsu battle odds page /rules/ninjutsu/odds/ (issue 17, part 2): the battle dice, and the
attacker's exact chance for every rank against every rank, with the shuriken each side brings;
no database queries; bad input is refused with the form's errors, never a 500."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.urls import reverse

from games.ninjutsu.engine import Rank, battle_odds

# django_assert_num_queries needs a database connection, though the page makes no queries.
pytestmark = pytest.mark.django_db

URL = "/rules/ninjutsu/odds/"


def cells(html: str) -> list[str]:
    table = html[html.index('data-testid="ninjutsu-odds"') :].split("</table>")[0]
    return re.findall(r"exactly ([\d/]+)</small>", table)


def test_url_name():
    assert reverse("rules:ninjutsu_odds") == URL


def test_without_shuriken_the_hand_worked_cases(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert "d6" in html and "d8" in html and "d12" in html
    found = [Fraction(c) for c in cells(html)]
    assert len(found) == 9  # attacker rank by attacker rank, each against the three defender ranks
    # d6 against d6: the attacker needs a strictly higher roll: 15 of the 36 pairs.
    assert found[0] == Fraction(15, 36)
    # d6 against d12: 0+1+2+3+4+5 = 15 of the 72 pairs.
    assert found[2] == Fraction(15, 72)
    # the Soke's d12 against a d6: 6 faces above 6 win outright (36 pairs), plus 15 below: 51 of 72.
    assert found[6] == Fraction(51, 72)
    assert "41.7%" in html  # 15/36, as a percentage


def test_shuriken_change_the_odds_as_the_engine_says(client):
    html = client.get(URL, {"attacker_shuriken": 2, "defender_shuriken": 1}).content.decode()
    expected = [battle_odds(a, d, attacker_shuriken=2, defender_shuriken=1).attacker_wins for a in Rank for d in Rank]
    assert [Fraction(c) for c in cells(html)] == expected
    assert "2 shuriken against 1" in html


@pytest.mark.parametrize(
    "bad", [{"attacker_shuriken": 11}, {"defender_shuriken": -1}, {"attacker_shuriken": "x" * 5000}]
)
def test_bad_input_shows_the_form_errors_and_no_table(client, bad):
    response = client.get(URL, bad)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="ninjutsu-odds"' not in html
    assert "Correct the numbers above" in html


def test_blank_numbers_count_as_none_brought(client):
    blank = client.get(URL, {"attacker_shuriken": "", "defender_shuriken": ""}).content.decode()
    assert cells(blank) == cells(client.get(URL).content.decode())
    combat = client.get("/rules/odds/", {"attack": 4, "defense": 3, "assists_attacker": ""}).content.decode()
    assert "4 attack dice against 3 defense dice" in combat  # a blank assist is no assist
