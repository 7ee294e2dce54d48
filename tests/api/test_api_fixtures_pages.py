"""``seasons/{id}/fixtures/`` in pages of whole rounds: one answer with every round took 19 s of
CPU and 12 MB at 256 teams (0.86 s and 728 KB at 64), open to anyone at 120 requests a minute.
Each page is the same list of rounds the schema describes, ``?page=`` as every page parameter is
read, and the ``Link`` header names the next and previous pages."""

from __future__ import annotations

import pytest
from django.test import Client

from api import views as api_views
from league.models import ScheduleRun
from tests.api.schema import check_response
from tests.league.helpers import generate, make_season

pytestmark = pytest.mark.usefixtures("catalog")


def get(url: str, **params):
    resp = Client().get(url, params, HTTP_ACCEPT="application/json")
    check_response(resp, "GET")
    return resp


def test_the_fixtures_come_a_page_of_whole_rounds_at_a_time(monkeypatch):
    monkeypatch.setattr(api_views, "API_FIXTURES_PAGE_SIZE", 13)  # two rounds of six games a page
    season = make_season(12)  # 11 rounds
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    url = f"/api/v1/seasons/{season.pk}/fixtures/"
    first = get(url)
    assert first.status_code == 200
    assert [r["round_number"] for r in first.json()] == [1, 2]
    assert all(len(r["matches"]) == 6 for r in first.json())
    assert first["Link"] == f'<http://testserver{url}?page=2>; rel="next"'
    middle = get(url, page="3")
    assert [r["round_number"] for r in middle.json()] == [5, 6]
    assert middle["Link"] == f'<http://testserver{url}?page=4>; rel="next", <http://testserver{url}?page=2>; rel="prev"'
    last = get(url, page="6")
    assert [r["round_number"] for r in last.json()] == [11] and 'rel="next"' not in last["Link"]
    every = [r["round_number"] for page in range(1, 7) for r in get(url, page=str(page)).json()]
    assert every == list(range(1, 12))
    assert get(url, page="7").status_code == 404  # past the last page, as every list
    for refused in ("0", "abc", "", "1.0"):
        resp = get(url, page=refused)
        assert resp.status_code == 400 and "page" in resp.json(), refused


def test_a_season_with_no_fixtures_is_one_empty_page_and_a_small_one_one_page():
    season = make_season(4)
    url = f"/api/v1/seasons/{season.pk}/fixtures/"
    empty = get(url)
    assert empty.status_code == 200 and empty.json() == [] and "Link" not in empty
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    whole = get(url)
    assert [r["round_number"] for r in whole.json()] == [1, 2, 3] and "Link" not in whole
    assert get(url, page="2").status_code == 404
