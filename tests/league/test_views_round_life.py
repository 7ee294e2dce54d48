"""Issue 13 part 2 through the test client: house rules for byes and forfeits, the swiss table
with byes and strength-of-schedule tie-breakers."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from league.models import Bye, Round, ScheduleRun, Season
from matches.models import Match
from tests.league.helpers import HOUSE_RULES, generate, home_away, make_season

pytestmark = pytest.mark.usefixtures("catalog")


def url(name, season=None, **kw):
    if season is not None:
        kw.update(slug=season.league.slug, number=season.number)
    return reverse(f"league:{name}", kwargs=kw or None)


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
    assert "between 0 and 20" in page.content.decode().lower()  # the range the engine gives (issue 27, 7)


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


# --- the round life cycle's pages ----------------------------------------------------------------


def teams_of(season):
    return [e.team for e in season.entries.select_related("team").order_by("id")]


def weekly_season(n=4):
    season = make_season(n, format=Season.Format.RANDOM_WEEKLY, with_ninja=True)
    generate(season, ScheduleRun.Kind.RANDOM_WEEKLY)
    return season


def test_the_master_sets_a_rounds_dates_and_the_fixtures_page_flags_overdue(client, django_assert_max_num_queries):
    season = weekly_season()
    client.force_login(season.league.master)
    page = client.get(url("round_dates", season, round_number=1))
    assert page.status_code == 200 and 'name="deadline"' in page.content.decode()
    bad = client.post(url("round_dates", season, round_number=1), {"starts_on": "2026-03-08", "deadline": "2026-03-01"})
    assert bad.status_code == 200 and "cannot come before" in bad.content.decode()
    done = client.post(
        url("round_dates", season, round_number=1), {"starts_on": "2020-03-01", "deadline": "2020-03-07"}
    )
    assert done.status_code == 302
    assert Round.objects.get(season=season).deadline == dt.date(2020, 3, 7)
    with django_assert_max_num_queries(12):
        html = client.get(url("season_fixtures", season)).content.decode()
    assert "deadline 7 Mar 2020" in html and "2 overdue" in html and html.count(">Overdue<") == 2
    assert "Reschedule" in html and "Edit the pairing" in html and "Forfeit…" in html
    client.logout()
    public = client.get(url("season_fixtures", season)).content.decode()
    assert "2 overdue" in public and "Reschedule" not in public


def test_the_fixtures_page_query_count_does_not_grow_with_rounds(client, django_assert_max_num_queries):
    season = make_season(8)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    with django_assert_max_num_queries(10):
        assert client.get(url("season_fixtures", season)).status_code == 200


def test_the_master_reschedules_a_fixture(client):
    season = weekly_season()
    match = Match.objects.filter(season=season).first()
    client.force_login(season.league.master)
    assert client.get(url("fixture_reschedule", pk=match.pk)).status_code == 200
    response = client.post(
        url("fixture_reschedule", pk=match.pk), {"date": "2026-04-02", "deadline": "2026-04-05", "place": "Dojo"}
    )
    assert response.status_code == 302
    match.refresh_from_db()
    assert (match.date, match.deadline, match.place) == (dt.date(2026, 4, 2), dt.date(2026, 4, 5), "Dojo")
    html = client.get(url("season_fixtures", season)).content.decode()
    assert "at Dojo" in html and "Rescheduled" in html
    client.force_login(teams_of(season)[0].owner)
    assert client.post(url("fixture_reschedule", pk=match.pk), {"date": "2026-04-09"}).status_code == 403


def test_editing_a_pairing_shows_the_changes_and_the_broken_rules_before_applying(client):
    season = make_season(4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    m1, m2 = Match.objects.filter(season=season, round_number=1).order_by("id")
    (a, b), (c, d) = home_away(m1), home_away(m2)
    client.force_login(season.league.master)
    assert client.get(url("fixture_pairing", pk=m1.pk)).status_code == 200
    preview = client.post(url("fixture_pairing", pk=m1.pk), {"home": a, "away": c})
    html = preview.content.decode()
    assert preview.status_code == 200 and "What changes" in html and "becomes" in html
    assert "Rules of the schedule this breaks" in html and "rematch" in html
    assert 'name="accept_violations"' in html and "Apply it anyway" in html
    assert home_away(m1) == (a, b)  # a preview writes nothing
    refused = client.post(url("fixture_pairing", pk=m1.pk), {"home": a, "away": c, "confirm": "True"})
    assert refused.status_code == 200 and home_away(m1) == (a, b)
    applied = client.post(
        url("fixture_pairing", pk=m1.pk), {"home": a, "away": c, "confirm": "True", "accept_violations": "on"}
    )
    assert applied.status_code == 302
    assert home_away(m1) == (a, c) and home_away(m2) == (b, d)


def test_a_pairing_swap_that_breaks_nothing_applies_after_the_preview(client):
    season = make_season(4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    m1 = Match.objects.filter(season=season, round_number=1).order_by("id").first()
    a, b = home_away(m1)
    client.force_login(season.league.master)
    html = client.post(url("fixture_pairing", pk=m1.pk), {"home": b, "away": a}).content.decode()
    assert "No rule of the schedule is broken" in html and "Apply the change" in html
    assert client.post(url("fixture_pairing", pk=m1.pk), {"home": b, "away": a, "confirm": "True"}).status_code == 302
    assert home_away(m1) == (b, a)


def test_the_master_records_a_walkover_and_the_match_page_says_so(client, django_assert_max_num_queries):
    season = weekly_season()
    match = Match.objects.filter(season=season).first()
    _home, away = home_away(match)
    client.force_login(season.league.master)
    page = client.get(url("fixture_forfeit", pk=match.pk)).content.decode()
    assert "scores 3 league points and earns 10 koban" in page and "No post-game sequence" in page
    assert client.post(url("fixture_forfeit", pk=match.pk), {"forfeiting": str(away), "reason": ""}).status_code == 200
    response = client.post(url("fixture_forfeit", pk=match.pk), {"forfeiting": str(away), "reason": "No-show"})
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.FORFEITED
    with django_assert_max_num_queries(14):
        detail = client.get(match.get_absolute_url()).content.decode()
    assert "Forfeited: No-show" in detail and "wins by walkover (10 koban)" in detail and "Void…" in detail
    again = client.get(url("fixture_forfeit", pk=match.pk)).content.decode()
    assert "only a fixture not yet played can be forfeited" in again


def test_a_voided_fixture_is_replayed_from_its_page(client):
    season = weekly_season()
    match = Match.objects.filter(season=season).first()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.VOIDED, void_reason="Wrong challenge")
    client.force_login(season.league.master)
    detail = client.get(match.get_absolute_url()).content.decode()
    assert "Replay…" in detail
    page = client.get(url("fixture_replay", pk=match.pk)).content.decode()
    assert "Voided: Wrong challenge." in page and "Create the replay" in page
    response = client.post(url("fixture_replay", pk=match.pk))
    replay = Match.objects.get(replay_of=match)
    assert response.status_code == 302 and response["Location"] == replay.get_absolute_url()
    assert "replayed as" in client.get(match.get_absolute_url()).content.decode()
    assert "already" in client.get(url("fixture_replay", pk=match.pk)).content.decode()


def test_players_may_not_change_fixtures(client):
    season = weekly_season()
    match = Match.objects.filter(season=season).first()
    client.force_login(match.sides.first().team.owner)
    for name in ("fixture_reschedule", "fixture_pairing", "fixture_forfeit", "fixture_replay"):
        assert client.get(url(name, pk=match.pk)).status_code == 403
    assert client.get(url("round_dates", season, round_number=1)).status_code == 403


def test_the_schedule_form_takes_the_round_dates(client, django_capture_on_commit_callbacks):
    season = make_season(4)
    client.force_login(season.league.master)
    assert 'name="interval_days"' in client.get(season.get_absolute_url()).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            url("schedule_generate", season),
            {"kind": "round_robin", "round_number": "0", "starts_on": "2026-05-01", "deadline": "2026-05-03"},
        )
    assert list(Round.objects.filter(season=season).values_list("round_number", "starts_on")) == [
        (1, dt.date(2026, 5, 1)),
        (2, dt.date(2026, 5, 8)),
        (3, dt.date(2026, 5, 15)),
    ]
