"""Issue 13 part 2 through the test client: house rules for byes and forfeits, the swiss table
with byes and strength-of-schedule tie-breakers."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league.models import Bye, ScheduleRun, Season
from tests.league.helpers import generate, make_season

pytestmark = pytest.mark.usefixtures("catalog")


def url(name, season=None, **kw):
    if season is not None:
        kw.update(slug=season.league.slug, number=season.number)
    return reverse(f"league:{name}", kwargs=kw or None)


HOUSE_RULES = {
    "description": "",
    "starting_koban": 100,
    "revenue_win": 10,
    "revenue_draw": 8,
    "revenue_loss": 6,
    "points_win": 3,
    "points_draw": 1,
    "points_loss": 0,
    "dice_mode": "server",
    "max_bonus_koban": 6,
    "underdog_bonuses": "on",
}


def test_the_master_sets_bye_and_forfeit_points_and_the_new_tie_breakers(client):
    season = make_season(2)
    league = season.league
    client.force_login(league.master)
    page = client.get(url("edit", slug=league.slug))
    for field in ("points_bye", "points_forfeit_win", "points_forfeit_loss", "revenue_forfeit_win"):
        assert f'name="{field}"' in page.content.decode()
    assert "Strength of schedule (Buchholz" in page.content.decode()
    data = {
        **HOUSE_RULES,
        "points_bye": "1",
        "points_forfeit_win": "2",
        "points_forfeit_loss": "",
        "revenue_forfeit_win": "5",
        "tie_breaker_1": "buchholz",
        "tie_breaker_2": "opponents_win_percentage",
    }
    assert client.post(url("edit", slug=league.slug), data).status_code == 302
    league.refresh_from_db()
    assert (league.points_bye, league.points_forfeit_win, league.points_forfeit_loss) == (1, 2, None)
    assert (league.revenue_forfeit_win, league.tie_breakers) == (5, "buchholz,opponents_win_percentage")
    assert (league.forfeit_loss_points, league.forfeit_win_revenue) == (0, 5)
    detail = client.get(league.get_absolute_url()).content.decode()
    assert "2/0, 5" in detail and "1 points" in detail


def test_house_rule_bounds_show_on_the_form(client):
    season = make_season(2)
    client.force_login(season.league.master)
    page = client.post(url("edit", slug=season.league.slug), {**HOUSE_RULES, "points_bye": "99"})
    assert page.status_code == 200
    assert "less than or equal to 20" in page.content.decode()


def test_the_swiss_table_shows_the_bye_points(client, django_assert_max_num_queries):
    season = make_season(5, format=Season.Format.SWISS, swiss_rounds=3, tie_breakers="buchholz")
    generate(season, ScheduleRun.Kind.SWISS)
    bye = Bye.objects.select_related("team").get(season=season)
    with django_assert_max_num_queries(16):
        page = client.get(season.get_absolute_url())
    html = page.content.decode()
    assert "a bye scores 3 points" in html
    rows = html.split("<tr")
    bye_row = next(r for r in rows if bye.team.name in r)
    assert ">3<" in bye_row.replace(" ", "")
