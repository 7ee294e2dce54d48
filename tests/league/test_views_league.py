"""League pages through the test client: forms posted, permissions, query bounds."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from league import services
from league.models import League, ScheduleRun, Season, SeasonEntry
from matches.models import Match
from rules.engine.league import random_challenge
from rules.models import Challenge
from teams.models import Team
from tests.factories import LeagueFactory, UserFactory, make_team
from tests.league.helpers import HOUSE_RULES, add_team, generate, make_season, play, play_round

pytestmark = pytest.mark.usefixtures("catalog")


def login(client, user):
    client.force_login(user)
    return user


def url(name, season=None, **kw):
    if season is not None:
        kw.update(slug=season.league.slug, number=season.number)
    return reverse(f"league:{name}", kwargs=kw or None)


# --- leagues -------------------------------------------------------------------------------------


def test_home_and_league_list(client, django_assert_max_num_queries):
    season = make_season(3)
    user = login(client, season.entries.first().team.owner)
    with django_assert_max_num_queries(8):
        page = client.get(reverse("home"))
    assert page.status_code == 200 and season.league.name in page.content.decode()
    with django_assert_max_num_queries(6):
        page = client.get(url("list"))
    assert page.status_code == 200
    assert season.league.get_absolute_url() in page.content.decode()
    assert user.username


def test_create_league_posting_the_form_makes_the_user_master(client, django_assert_max_num_queries):
    user = login(client, UserFactory())
    assert client.get(url("create")).status_code == 200
    data = {
        **HOUSE_RULES,
        "name": "Moon Court",
        "description": "We play on Thursdays",
        "starting_koban": 110,
        "results_need_confirmation": "on",
        "tie_breaker_1": "head_to_head",
        "tie_breaker_2": "points_difference",
    }
    with django_assert_max_num_queries(12):
        response = client.post(url("create"), data)
    league = League.objects.get(name="Moon Court")
    assert response.status_code == 302 and response["Location"] == url("season_create", slug=league.slug)
    assert (league.master, league.starting_koban, league.tie_breakers) == (user, 110, "head_to_head,points_difference")
    # duplicate tie-breakers are refused
    data.update(name="Other", tie_breaker_3="head_to_head")
    response = client.post(url("create"), data)
    assert response.status_code == 200 and not League.objects.filter(name="Other").exists()


def test_anonymous_users_are_sent_to_log_in(client):
    league = LeagueFactory()
    response = client.get(url("edit", slug=league.slug))
    assert response.status_code == 302 and "login" in response["Location"]


def test_only_the_master_edits_house_rules(client, django_assert_max_num_queries):
    season = make_season(2, points_win=3)
    league = season.league
    login(client, season.entries.first().team.owner)
    assert client.get(url("edit", slug=league.slug)).status_code == 403
    assert client.post(url("edit", slug=league.slug), {"points_win": 5}).status_code == 403
    login(client, league.master)
    with django_assert_max_num_queries(6):
        assert client.get(url("edit", slug=league.slug)).status_code == 200
    data = {
        "description": "new",
        "starting_koban": 100,
        "revenue_win": 12,
        "revenue_draw": 8,
        "revenue_loss": 6,
        "points_win": 2,
        "points_draw": 1,
        "points_loss": 0,
        "dice_mode": "entered",
        "tie_breaker_1": "wins",
        "max_bonus_koban": 4,
    }
    response = client.post(url("edit", slug=league.slug), data)
    assert response.status_code == 302
    league.refresh_from_db()
    season.refresh_from_db()
    assert (league.points_win, league.revenue_win, league.tie_breakers, league.dice_mode) == (2, 12, "wins", "entered")
    assert not league.results_need_confirmation
    assert (league.underdog_bonuses, league.max_bonus_koban) == (False, 4)  # an unticked box turns them off
    assert (season.points_win, season.tie_breakers) == (3, "points_difference,points_for,head_to_head")  # frozen
    assert (season.underdog_bonuses, season.max_bonus_koban) == (True, 6)


def test_league_detail_page(client, django_assert_max_num_queries):
    season = make_season(6, with_ninja=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    play_round(season, 1)
    with django_assert_max_num_queries(12):
        page = client.get(season.league.get_absolute_url())
    assert page.status_code == 200
    login(client, season.league.master)
    with django_assert_max_num_queries(14):
        page = client.get(season.league.get_absolute_url())
    assert "House rules" in page.content.decode()


def test_apply_and_the_master_accepts_or_refuses(client, django_assert_max_num_queries):
    season = make_season(0)
    league = season.league
    player = login(client, UserFactory())
    team = make_team("tora", owner=player)
    assert client.get(url("apply", slug=league.slug)).status_code == 200
    response = client.post(url("apply", slug=league.slug), {"team": team.pk})
    assert response.status_code == 302
    team.refresh_from_db()
    assert (team.league, team.entry_status) == (league, Team.EntryStatus.PENDING)
    # the player cannot decide
    assert client.get(url("applications", slug=league.slug)).status_code == 403
    assert (
        client.post(url("applications", slug=league.slug), {"team": team.pk, "decision": "accept"}).status_code == 403
    )
    login(client, league.master)
    other = make_team("ika", league=league)
    with django_assert_max_num_queries(8):
        page = client.get(url("applications", slug=league.slug))
    assert team.name in page.content.decode() and other.name in page.content.decode()
    client.post(url("applications", slug=league.slug), {"team": team.pk, "decision": "accept"})
    client.post(url("applications", slug=league.slug), {"team": other.pk, "decision": "refuse"})
    assert Team.objects.get(pk=team.pk).entry_status == Team.EntryStatus.ACCEPTED
    assert Team.objects.get(pk=other.pk).entry_status == Team.EntryStatus.REFUSED
    assert SeasonEntry.objects.filter(season=season, team=team).exists()
    assert not SeasonEntry.objects.filter(team=other).exists()


def test_season_create_copies_house_rules(client):
    league = LeagueFactory(points_win=4)
    add_team(league)
    login(client, league.master)
    response = client.post(
        url("season_create", slug=league.slug), {"name": "", "format": "swiss", "swiss_rounds": "", "playoff_teams": 0}
    )
    assert response.status_code == 200 and not league.seasons.exists()  # swiss needs rounds
    response = client.post(
        url("season_create", slug=league.slug),
        {"name": "Spring", "format": "swiss", "swiss_rounds": 4, "playoff_teams": 4},
    )
    season = league.seasons.get()
    assert response.status_code == 302 and response["Location"] == season.get_absolute_url()
    assert (season.name, season.swiss_rounds, season.playoff_teams, season.points_win) == ("Spring", 4, 4, 4)
    assert season.entries.count() == 1
    other = login(client, UserFactory())
    assert (
        other
        and client.post(
            url("season_create", slug=league.slug), {"format": "round_robin", "playoff_teams": 0}
        ).status_code
        == 403
    )


# --- schedules -----------------------------------------------------------------------------------


def test_master_generates_a_schedule_through_the_task_and_twice_is_one_schedule(
    client, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    season = make_season(6)
    login(client, season.league.master)
    with django_assert_max_num_queries(20):
        page = client.get(season.get_absolute_url())
    assert "Generate the whole schedule" in page.content.decode()
    data = {"kind": "round_robin", "round_number": 0, "challenge": ""}
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(url("schedule_generate", season), data)
    # the run's task, dispatched once; then (the task runs in-process) the notification email of
    # each fixture to each of its two players (notifications/), and to the player the random
    # challenge generator named to choose a fixture's challenge (issue 27, finding 5)
    choosers = Match.objects.filter(season=season, challenge__isnull=True).exclude(challenge_chooser="").count()
    assert choosers and len(callbacks) == 1 + 2 * 15 + choosers
    run = ScheduleRun.objects.get(season=season)
    assert response.status_code == 302 and response["Location"] == run.get_absolute_url()
    assert run.status == ScheduleRun.Status.DONE and run.requested_by == season.league.master
    assert Match.objects.filter(season=season).count() == 15
    # the double-click: same run, nothing dispatched, still one schedule
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(url("schedule_generate", season), data)
    assert callbacks == [] and response["Location"] == run.get_absolute_url()
    assert ScheduleRun.objects.filter(season=season).count() == 1
    assert Match.objects.filter(season=season).count() == 15
    # the progress page and its JSON status
    with django_assert_max_num_queries(4):
        page = client.get(run.get_absolute_url())
    assert page.status_code == 200 and url("task_status", task_id=run.task_id) in page.content.decode()
    with django_assert_max_num_queries(2):
        status = client.get(url("task_status", task_id=run.task_id)).json()
    assert status["state"] == "SUCCESS" and status["done"] == status["total"] == 15 and status["percent"] == 100
    assert status["next_url"] == url("season_fixtures", season)
    assert client.get(url("task_status", task_id="nope")).status_code == 404


def test_a_pending_run_reports_its_state(client):
    season = make_season(4)
    run = services.schedule_request(season=season, kind=ScheduleRun.Kind.ROUND_ROBIN)
    status = client.get(url("task_status", task_id=run.task_id)).json()
    assert status["state"] == "PENDING" and not status["ready"]
    page = client.get(run.get_absolute_url())
    assert "progress-bar-animated" in page.content.decode()


def test_only_the_master_generates(client, django_capture_on_commit_callbacks):
    season = make_season(4)
    login(client, season.entries.first().team.owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("schedule_generate", season), {"kind": "round_robin", "round_number": 0})
    assert response.status_code == 403
    assert not ScheduleRun.objects.exists() and not Match.objects.exists()


def test_refused_generation_shows_why(client):
    season = make_season(1)
    login(client, season.league.master)
    page = client.get(season.get_absolute_url())
    assert "At least two teams" in page.content.decode()
    response = client.post(url("schedule_generate", season), {"kind": "round_robin", "round_number": 0}, follow=True)
    assert "At least two teams" in response.content.decode()
    assert not ScheduleRun.objects.exists()


@pytest.mark.parametrize("n", [4, 12])
def test_season_table_and_fixtures_pages_have_bounded_queries(n, client, django_assert_max_num_queries):
    season = make_season(n, with_ninja=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    play_round(season, 1, score=lambda h, a: (2, 2))
    login(client, season.entries.first().team.owner)
    with django_assert_max_num_queries(14):
        page = client.get(season.get_absolute_url())
    html = page.content.decode()
    assert page.status_code == 200 and 'data-testid="league-table"' in html
    nxt = Match.objects.filter(season=season, round_number=2).first()
    assert reverse("matches:presheet", args=[nxt.pk]) in html
    with django_assert_max_num_queries(10):
        page = client.get(url("season_fixtures", season))
    html = page.content.decode()
    assert page.status_code == 200 and "Round 1" in html and f"Round {n - 1}" in html
    assert "2 – 2" in html


def test_only_the_masters_season_page_reads_the_bracket_and_the_schedule_runs(client):
    """The runs and the bracket feed the master's panel alone (the schedule, the playoffs and the
    simulations' forms): a member's page and a visitor's read neither, and the master's shows them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    season = make_season(4, playoff_teams=4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)

    def tables_read(user) -> tuple[set[str], str]:
        client.logout()
        if user is not None:
            login(client, user)
        with CaptureQueriesContext(connection) as ctx:
            page = client.get(season.get_absolute_url())
        assert page.status_code == 200
        sql = " ".join(q["sql"] for q in ctx.captured_queries)
        return {t for t in ("league_schedulerun", "league_bracketslot") if f'"{t}"' in sql}, page.content.decode()

    member_reads, member_page = tables_read(season.entries.first().team.owner)
    visitor_reads, _ = tables_read(None)
    master_reads, master_page = tables_read(season.league.master)
    assert member_reads == set() and visitor_reads == set()
    assert master_reads == {"league_schedulerun", "league_bracketslot"}
    assert "Recent schedule runs" in master_page and "Recent schedule runs" not in member_page


def test_swiss_and_weekly_next_round_from_the_season_page(client, django_capture_on_commit_callbacks):
    season = make_season(4, format=Season.Format.SWISS, swiss_rounds=2)
    login(client, season.league.master)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url("schedule_generate", season), {"kind": "swiss", "round_number": 1})
    assert Match.objects.filter(season=season, round_number=1).count() == 2
    play_round(season, 1)
    assert "Pair swiss round 2" in client.get(season.get_absolute_url()).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url("schedule_generate", season), {"kind": "swiss", "round_number": 2})
    reasons = set(Match.objects.filter(season=season, round_number=2).values_list("pairing_reason", flat=True))
    assert reasons == {"score group 1", "score group 2"}
    assert "score group 1" in client.get(url("season_fixtures", season)).content.decode()


# --- playoffs ------------------------------------------------------------------------------------


def test_start_the_playoffs_is_offered_only_once_every_regular_fixture_is_decided(
    client, django_assert_max_num_queries
):
    """Issue 27, item 3: the season page offered "Start the playoffs" before any fixture existed."""
    season = make_season(4, playoff_teams=2)
    login(client, season.league.master)
    button = 'value="Start the playoffs (top 2)"'
    with django_assert_max_num_queries(20):
        page = client.get(season.get_absolute_url()).content.decode()
    assert button not in page and "no regular-season fixtures" in page
    assert 'value="Generate the whole schedule"' in page
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    for r in range(1, 3):
        play_round(season, r)
    with django_assert_max_num_queries(20):
        page = client.get(season.get_absolute_url()).content.decode()
    assert button not in page
    play_round(season, 3)
    with django_assert_max_num_queries(20):
        page = client.get(season.get_absolute_url()).content.decode()
    assert button in page


def test_bracket_page_and_advance(client, django_assert_max_num_queries, django_capture_on_commit_callbacks):
    season = make_season(4, playoff_teams=4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    for r in range(1, 4):
        play_round(season, r)
    login(client, season.league.master)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url("schedule_generate", season), {"kind": "playoff", "round_number": 1})
    semis = list(Match.objects.filter(season=season, stage="playoff-1"))
    assert len(semis) == 2
    with django_assert_max_num_queries(8):
        page = client.get(url("season_bracket", season))
    assert page.status_code == 200 and 'data-testid="bracket"' in page.content.decode()
    for m in semis:
        play(m, 3, 0)
    response = client.post(url("playoffs_advance", season))
    assert response.status_code == 302
    assert Match.objects.filter(season=season, stage="playoff-2").count() == 1
    assert "Final" in client.get(url("season_bracket", season)).content.decode()
    # players cannot advance the bracket
    login(client, season.entries.first().team.owner)
    assert client.post(url("playoffs_advance", season)).status_code == 403


# --- fixtures ------------------------------------------------------------------------------------


def chooser_fixture(season, chooser="player2"):
    teams = [e.team for e in season.entries.select_related("team").order_by("id")]
    seed = next(s for s in range(500) if random_challenge(rng=random.Random(s)).chooser == chooser)
    return services.fixture_create(
        season=season, round_number=1, home=teams[0], away=teams[1], rng=random.Random(seed)
    ), teams


def test_the_named_player_picks_the_challenge(client, django_assert_max_num_queries):
    season = make_season(3)
    match, teams = chooser_fixture(season, "player2")
    target = url("fixture_challenge", pk=match.pk)
    champion = Challenge.objects.get(name="Champion")
    # player 1 may not pick when the dice named player 2; an outsider neither
    login(client, teams[0].owner)
    assert client.get(target).status_code == 403
    login(client, teams[2].owner)
    assert client.post(target, {"challenge": champion.pk}).status_code == 403
    login(client, teams[1].owner)
    with django_assert_max_num_queries(8):
        assert client.get(target).status_code == 200
    assert "Choose the challenge" in client.get(url("season_fixtures", season)).content.decode()
    response = client.post(target, {"challenge": champion.pk})
    assert response.status_code == 302
    assert Match.objects.get(pk=match.pk).challenge == champion


def test_the_master_may_set_any_challenge_before_kick_off(client):
    season = make_season(2)
    match, _ = chooser_fixture(season, "player1")
    login(client, season.league.master)
    search = Challenge.objects.get(name="Search")
    assert client.post(url("fixture_challenge", pk=match.pk), {"challenge": search.pk}).status_code == 302
    assert Match.objects.get(pk=match.pk).challenge == search
    play(match, 1, 0)
    assert client.get(url("fixture_challenge", pk=match.pk)).status_code == 403


def test_players_arrange_games_only_for_their_own_team(client, django_assert_max_num_queries):
    season = make_season(3, format=Season.Format.SELF_ARRANGED)
    a, b, c = [e.team for e in season.entries.select_related("team").order_by("id")]
    target = url("fixture_create", season)
    login(client, a.owner)
    with django_assert_max_num_queries(10):
        assert client.get(target).status_code == 200
    assert "Arrange a game" in client.get(season.get_absolute_url()).content.decode()
    # b v c is not a's to arrange: b is not among a's teams, the form refuses it
    response = client.post(target, {"home": b.pk, "away": c.pk})
    assert response.status_code == 200 and not Match.objects.exists()
    response = client.post(target, {"home": a.pk, "away": c.pk, "date": "2026-12-24"})
    assert response.status_code == 302
    match = Match.objects.get()
    assert list(match.sides.values_list("slot", "team_id")) == [(1, a.pk), (2, c.pk)]
    assert str(match.date) == "2026-12-24"
    # someone without a team in the season
    login(client, UserFactory())
    assert client.get(target).status_code == 403
    # the master may arrange any game
    login(client, season.league.master)
    assert client.post(target, {"home": b.pk, "away": c.pk}).status_code == 302
    # not in a scheduled format
    rr = make_season(2)
    login(client, rr.entries.first().team.owner)
    assert client.get(url("fixture_create", rr)).status_code == 404


def test_rollover_through_the_form(client, django_assert_max_num_queries):
    season = make_season(4)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    for r in range(1, 4):
        play_round(season, r)
    login(client, season.entries.first().team.owner)
    assert client.get(url("season_rollover", season)).status_code == 403
    login(client, season.league.master)
    response = client.post(url("season_rollover", season), {"format": "round_robin", "playoff_teams": 0})
    assert response.status_code == 200  # the confirmation box is required
    response = client.post(
        url("season_rollover", season),
        {"name": "Winter", "format": "double_round_robin", "playoff_teams": 2, "confirm": "on"},
    )
    new = Season.objects.get(league=season.league, number=2)
    assert response.status_code == 302 and response["Location"] == new.get_absolute_url()
    assert (new.name, new.format, new.playoff_teams, new.entries.count()) == ("Winter", "double_round_robin", 2, 4)
    with django_assert_max_num_queries(8):
        page = client.get(Season.objects.get(pk=season.pk).get_absolute_url())
    assert 'data-testid="final-table"' in page.content.decode()
