"""Strength ratings as a service (issue 16, part 4): recomputed from the confirmed history by an
idempotent task after every confirmed or voided result."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league import services as league_services
from matches import services as match_services
from matches.models import Match
from ratings import glicko2
from ratings.history import Period, Result, rate_history
from rules.models import Challenge
from stats import ratings
from teams.models import StrengthRating
from tests.factories import LeagueFactory, UserFactory, make_legal_team
from tests.league.helpers import add_team
from tests.matches.conftest import simple_record
from tests.stats.helpers import settle, small_league

pytestmark = pytest.mark.django_db

GLICKO2, PL = StrengthRating.System.GLICKO2, StrengthRating.System.PLACKETT_LUCE


def stored(system=GLICKO2, **subject):
    row = StrengthRating.objects.get(system=system, **subject)
    return row.rating, row.deviation, row.volatility, row.games


def test_recompute_rates_each_period_from_the_history(catalog):
    small = small_league()
    done = ratings.ratings_recompute()
    assert (done.matches, done.periods, done.skipped) == (5, 2, False)
    a, b, c = small.a.pk, small.b.pk, small.c.pk
    # The self-arranged games (m1, m2, m3, m5) are one period, their calendar week; the final is
    # playoff round 1, after it, with C (entered in season 1) sitting it out.
    expected = rate_history(
        [
            Period(
                "week",
                (
                    Result(small.m1.pk, (a, b), (1, 2)),
                    Result(small.m2.pk, (b, c), (1, 2)),
                    Result(small.m3.pk, (c, a), (2, 1)),
                    Result(small.m5.pk, (a, c), (1, 1)),
                ),
            ),
            Period("final", (Result(small.final.pk, (a, b), (2, 1)),), idle=frozenset({c})),
        ]
    )
    for team in (a, b, c):
        r = expected.glicko[team]
        assert stored(team_id=team) == (r.rating, r.rd, r.volatility, expected.games[team])
    assert StrengthRating.objects.get(team_id=a, system=GLICKO2).last_match_id == small.m5.pk
    # Coaches: one team each here, so the same figures.
    assert stored(coach=small.a.owner) == stored(team_id=a)
    assert not StrengthRating.objects.filter(system=PL).exists()


def test_recompute_is_idempotent(catalog):
    small_league()
    ratings.ratings_recompute()
    before = list(StrengthRating.objects.values_list("id", "rating", "deviation", "updated_at"))
    assert ratings.ratings_recompute().skipped is True
    forced = ratings.ratings_recompute(force=True)
    assert (forced.created, forced.updated, forced.deleted) == (0, 0, 0)
    assert list(StrengthRating.objects.values_list("id", "rating", "deviation", "updated_at")) == before


def test_a_team_that_always_wins_its_tables_rises_above_all_others(catalog):
    league = LeagueFactory()
    season = league_services.season_create(league=league, format="self_arranged")
    teams = [add_team(league, name=f"T{i}") for i in range(4)]
    ace, others = teams[0], teams[1:]
    for i in range(8):
        seated = [ace, *others[i % 3 :], *others[: i % 3]][: 3 + i % 2]
        match = match_services.match_create(teams=seated, season=season)
        scores = (9, *range(len(seated) - 1, 0, -1))
        settle(match, scores, ratings=(100,) * len(seated), koban=(0,) * len(seated), minute=i * 10_080)
    ratings.ratings_recompute()
    table = {r.team_id: r for r in StrengthRating.objects.filter(system=PL, team__isnull=False)}
    assert set(table) == {t.pk for t in teams}
    assert all(table[ace.pk].rating > table[o.pk].rating for o in others)
    assert all(table[ace.pk].conservative > table[o.pk].conservative for o in others)
    chances = ratings.predicted_chances([t.pk for t in teams])
    assert chances[0] == max(chances) and sum(chances) == pytest.approx(1)
    assert not StrengthRating.objects.filter(system=GLICKO2).exists()


@pytest.fixture
def played(catalog, django_capture_on_commit_callbacks):
    """Two teams, a real result confirmed through the services; the hooks run after commit."""
    league = LeagueFactory(master=UserFactory(username="master"))
    home = make_legal_team("tora", owner=UserFactory(username="alice"), name="Tigers", league=league)
    away = make_legal_team("ika", owner=UserFactory(username="bob"), name="Squids", league=league)
    match = match_services.match_create(
        teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league
    )
    with django_capture_on_commit_callbacks(execute=True):
        match = match_services.match_kick_off(match=match)
        match_services.match_submit_result(match=match, record=simple_record(match, points=(3, 1)), actor=league.master)
    return league, home, away, match


def test_a_confirmed_result_recomputes_the_ratings(played):
    _, home, away, _match = played
    winner, loser = glicko2.rate_period({}, [(home.pk, away.pk, 1.0)]).values()
    assert stored(team_id=home.pk) == (winner.rating, winner.rd, winner.volatility, 1)
    assert stored(team_id=away.pk)[0] == loser.rating < 1500 < winner.rating
    assert stored(coach=home.owner)[0] == winner.rating


def test_voiding_a_result_recomputes_the_ratings(played, django_capture_on_commit_callbacks):
    league, _home, _, match = played
    with django_capture_on_commit_callbacks(execute=True):
        match_services.match_void(match=Match.objects.get(pk=match.pk), actor=league.master, reason="Wrong teams")
    assert not StrengthRating.objects.exists()  # no confirmed game left: nobody is rated


def test_a_failing_hook_never_undoes_a_result(played, monkeypatch, django_capture_on_commit_callbacks):
    from matches import hooks

    def broken(match_id):
        raise RuntimeError("broker on fire")

    monkeypatch.setitem(hooks._changed, "broken", broken)
    league, _, _, match = played
    with django_capture_on_commit_callbacks(execute=True):
        match_services.match_void(match=Match.objects.get(pk=match.pk), actor=league.master, reason="Oops")
    assert Match.objects.get(pk=match.pk).status == Match.Status.VOIDED
    assert not StrengthRating.objects.exists()  # the ratings hook still ran


def test_ratings_show_on_the_scroll_the_table_and_the_pre_match_sheet(client, played):
    league, home, away, _ = played
    rating = StrengthRating.objects.get(team=home, system=GLICKO2)
    scroll = client.get(reverse("teams:detail", args=[home.pk])).content.decode()
    assert f"{rating.rating:.0f} <small>± {rating.spread:.0f}</small>" in scroll
    page = client.get(reverse("stats:ratings")).content.decode()
    assert page.index("Tigers") < page.index("Squids")  # the winner first
    assert "alice" in client.get(reverse("stats:coach_ratings")).content.decode()
    coach = client.get(reverse("stats:coach", kwargs={"username": "alice"})).content.decode()
    assert f"<strong>{rating.rating:.0f}</strong> ± {rating.spread:.0f} over 1 two-team game" in coach
    # The next game between them: each side's chance from the stored ratings.
    nxt = match_services.match_create(teams=[away, home], challenge=Challenge.objects.get(slug="brawl"), league=league)
    chances = ratings.predicted_chances([away.pk, home.pk])
    assert chances[1] > 0.5 > chances[0] and sum(chances) == pytest.approx(1)
    sheet = client.get(reverse("matches:presheet", args=[nxt.pk])).content.decode()
    assert f"<strong>{round(chances[1] * 100)}%</strong>" in sheet
    assert f"<strong>{round(chances[0] * 100)}%</strong>" in sheet


def test_the_league_table_shows_the_strength_rating(client, catalog):
    small = small_league()
    ratings.ratings_recompute()
    html = client.get(small.season2.get_absolute_url()).content.decode()
    a = StrengthRating.objects.get(team=small.a, system=GLICKO2)
    assert f'<span title="± {a.spread:.0f}">{a.rating:.0f}</span>' in html


def test_ratings_pages_empty_state_and_system_choice(client, catalog):
    html = client.get(reverse("stats:ratings"), {"system": "nonsense"}).content.decode()
    assert "Nobody is rated yet" in html
    assert client.get(reverse("stats:coach_ratings"), {"system": "plackett_luce"}).status_code == 200


def test_swiss_pairing_may_order_teams_by_strength(catalog):
    from league.models import ScheduleRun, Season
    from tests.league.helpers import generate, make_season

    def first_round(order):
        season = make_season(4, format=Season.Format.SWISS, swiss_rounds=3, swiss_order=order)
        teams = [e.team for e in season.entries.select_related("team").order_by("team__name")]
        # Strength the reverse of the table's order (all on 0 points, the table goes by name).
        for i, team in enumerate(teams):
            StrengthRating.objects.create(team=team, system=GLICKO2, rating=1400 + 100 * i, deviation=80)
        generate(season, ScheduleRun.Kind.SWISS)
        pairs = {frozenset(s.team_id for s in m.sides.all()) for m in Match.objects.filter(season=season)}
        return teams, pairs

    teams, pairs = first_round(Season.SwissOrder.TABLE)
    by_table = [t.pk for t in teams]  # 1 v 3, 2 v 4: top half meets bottom half
    assert pairs == {frozenset({by_table[0], by_table[2]}), frozenset({by_table[1], by_table[3]})}
    teams, pairs = first_round(Season.SwissOrder.STRENGTH)
    by_strength = [t.pk for t in reversed(teams)]
    assert pairs == {frozenset({by_strength[0], by_strength[2]}), frozenset({by_strength[1], by_strength[3]})}
