"""The master's desk (issue 14, part 2): per round, how many fixtures are played, waiting for
confirmation, disputed, overdue, in play and not started; what waits for the master (disputes,
confirmations, overdue fixtures, applications, advancement rolls blocking a kick-off), one click
to each; and the current round's progress on the league's front page, for everybody. The worlds
are built in tests/league/dashboard_world.py."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from common.dbstats import count_rows
from league import dashboard
from league import services as league_services
from league.models import Season
from matches.models import Match
from teams.models import AdvancementRoll, Ninja
from tests.factories import UserFactory
from tests.league.dashboard_world import DashWorld, large_world, small_world
from tests.league.helpers import generate, make_season, play, play_round
from tests.support import no_deferred_loads

pytestmark = pytest.mark.usefixtures("catalog")

STATES = ("played", "waiting", "disputed", "overdue", "in_play", "not_started")


def desk_url(season: Season) -> str:
    return reverse("league:season_desk", kwargs={"slug": season.league.slug, "number": season.number})


def counts(progress) -> dict[str, int]:
    return {name: getattr(progress, name) for name in STATES if getattr(progress, name)}


# --- the rounds --------------------------------------------------------------------------------------


def test_each_round_counts_its_fixtures_by_state():
    w = small_world()  # 8 teams: 4 fixtures a round; round 1 played, then the player's fixtures
    rounds = dashboard.round_progress(w.season)
    assert [r.round_number for r in rounds] == list(range(1, 8))
    by_number = {r.round_number: counts(r) for r in rounds}
    assert by_number == {
        1: {"played": 4},
        2: {"overdue": 4},  # its deadline was yesterday: nothing played
        3: {"waiting": 1, "not_started": 3},  # the player's opponent entered a result
        4: {"disputed": 1, "not_started": 3},
        5: {"in_play": 1, "not_started": 3},  # the rejected result: kicked off, to enter again
        6: {"in_play": 1, "not_started": 3},
        7: {"not_started": 4},
    }
    assert all(r.total == 4 for r in rounds)
    assert rounds[1].deadline == w.today - dt.timedelta(days=1) and rounds[1].anchor == "round-2"


def test_a_fixtures_own_deadline_comes_before_its_rounds():
    """A fixture's own deadline counts, else its round's: one of round 2 (overdue by its round)
    given a deadline to come is not started, one of round 3 (in time by its round) given a passed
    deadline is overdue (the counts are grouped by the fixture's own deadline, the round's applied
    after)."""
    w = small_world()
    later, earlier = w.today + dt.timedelta(days=3), w.today - dt.timedelta(days=3)
    moved = Match.objects.filter(season=w.season, round_number=2).order_by("pk").first()
    Match.objects.filter(pk=moved.pk).update(deadline=later)
    late = Match.objects.filter(season=w.season, round_number=3, status=Match.Status.SCHEDULED).order_by("pk")
    late = late.filter(kicked_off_at__isnull=True).first()
    Match.objects.filter(pk=late.pk).update(deadline=earlier)
    by_number = {r.round_number: counts(r) for r in dashboard.round_progress(w.season)}
    assert by_number[2] == {"overdue": 3, "not_started": 1}
    assert by_number[3] == {"waiting": 1, "overdue": 1, "not_started": 2}
    desk = dashboard.master_desk(w.season)
    assert late.pk in {m.pk for m in desk.overdue} and moved.pk not in {m.pk for m in desk.overdue}


def test_voided_fixtures_are_left_out_and_forfeits_count_as_played():
    w = small_world()
    overdue = list(Match.objects.filter(season=w.season, round_number=2).order_by("id"))
    league_services.fixture_forfeit(
        match=overdue[0], forfeiting=[overdue[0].sides.first().team_id], reason="No-show", actor=w.master
    )
    Match.objects.filter(pk=overdue[1].pk).update(status=Match.Status.VOIDED)
    round_2 = next(r for r in dashboard.round_progress(w.season) if r.round_number == 2)
    assert counts(round_2) == {"played": 1, "overdue": 2}


def test_the_current_round_is_the_first_with_a_fixture_still_open():
    w = small_world()
    assert dashboard.season_progress(w.season).round_number == 2
    play_round(w.season, 2)
    assert dashboard.season_progress(w.season).round_number == 3
    for match in Match.objects.filter(season=w.season).exclude(status__in=Match.DECIDED_STATUSES):
        Match.objects.filter(pk=match.pk).update(status=Match.Status.SCHEDULED)
        play(match, 1, 0)
    last = dashboard.season_progress(w.season)
    assert last.round_number == 7 and last.played == last.total == 4 and last.percent == 100


def test_a_season_without_fixtures_has_no_rounds():
    season = make_season(2)
    assert dashboard.round_progress(season) == [] and dashboard.season_progress(season) is None


# --- what waits for the master -------------------------------------------------------------------------


def test_the_desk_lists_disputes_confirmations_overdue_fixtures_applications_and_blocking_rolls():
    w = small_world()
    desk = dashboard.master_desk(w.season)
    assert [m.pk for m in desk.disputed] == [m.pk for m in w.fixtures["disputed"]]
    assert [m.pk for m in desk.waiting] == [m.pk for m in w.fixtures["to_confirm"]]
    overdue = set(Match.objects.filter(season=w.season, round_number=2).values_list("pk", flat=True))
    assert {m.pk for m in desk.overdue} == overdue and desk.overdue.total == 4
    assert [t.pk for t in desk.applications] == [t.pk for t in w.applications]
    assert [r.pk for r in desk.blocking_rolls] == [r.pk for r in w.rolls]
    assert desk.current.round_number == 2
    totals = desk.totals
    assert (totals.played, totals.overdue, totals.total) == (4, 4, 28)


def test_only_rolls_that_block_a_kick_off_of_the_season_are_listed():
    w = small_world()
    roll = w.rolls[0]
    team = roll.ninja.team
    assert [r.pk for r in dashboard.blocking_rolls(w.season)] == [roll.pk]
    # Every fixture of the team kicked off or played: nothing left to block.
    waiting = Match.objects.filter(season=w.season, sides__team=team, status="scheduled", kicked_off_at__isnull=True)
    kicked = list(waiting.values_list("pk", flat=True))
    Match.objects.filter(pk__in=kicked).update(kicked_off_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    assert not dashboard.blocking_rolls(w.season)
    Match.objects.filter(pk__in=kicked).update(kicked_off_at=None)
    # A released model's roll does not block (kick_off_blockers reads active models only).
    Ninja.objects.filter(pk=roll.ninja_id).update(status=Ninja.Status.RELEASED)
    assert not dashboard.blocking_rolls(w.season)
    Ninja.objects.filter(pk=roll.ninja_id).update(status=Ninja.Status.ACTIVE)
    AdvancementRoll.objects.filter(pk=roll.pk).update(status=AdvancementRoll.Status.CHOSEN)
    assert not dashboard.blocking_rolls(w.season)


def test_the_desks_lists_are_bounded_with_a_count():
    w = small_world()
    lists = dashboard.desk_matches(w.season, today=w.today, limit=2)
    assert (len(lists[dashboard.DESK_OVERDUE]), lists[dashboard.DESK_OVERDUE].total) == (2, 4)
    assert lists[dashboard.DESK_OVERDUE].more == 2


# --- the pages ---------------------------------------------------------------------------------------


def test_the_desk_page_links_to_where_each_thing_is_dealt_with(client):
    w = small_world()
    client.force_login(w.master)
    html = client.get(desk_url(w.season)).content.decode()
    fixtures = reverse("league:season_fixtures", kwargs={"slug": w.league.slug, "number": w.season.number})
    assert f"{fixtures}#round-2" in html and f"{fixtures}#round-7" in html
    assert reverse("matches:settle", args=[w.fixtures["disputed"][0].pk]) in html
    assert reverse("matches:detail", args=[w.fixtures["to_confirm"][0].pk]) in html
    assert reverse("league:fixture_forfeit", args=[w.fixtures["overdue"][0].pk]) in html
    assert reverse("league:fixture_reschedule", args=[w.fixtures["overdue"][0].pk]) in html
    assert reverse("matches:advancement_choose", args=[w.rolls[0].pk]) in html
    assert reverse("league:applications", kwargs={"slug": w.league.slug}) in html
    assert 'data-testid="desk-rounds"' in html and "4 of 28 fixtures played" in html


def test_the_desk_is_the_masters_only(client):
    w = small_world()
    url = desk_url(w.season)
    response = client.get(url)
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    for user in (w.player, UserFactory()):
        client.force_login(user)
        assert client.get(url).status_code == 403
    client.force_login(w.master)
    assert client.get(url).status_code == 200
    assert client.post(url).status_code == 405  # a page to read: nothing to post


def test_a_finished_seasons_desk_is_closed(client):
    season = make_season(2)
    league_services.season_finish(season=season)
    client.force_login(season.league.master)
    assert client.get(desk_url(season)).status_code == 404


def test_the_season_page_links_to_the_desk_for_the_master_only(client):
    w = small_world()
    url = desk_url(w.season)
    assert url not in client.get(w.season.get_absolute_url()).content.decode()
    client.force_login(w.player)
    assert url not in client.get(w.season.get_absolute_url()).content.decode()
    client.force_login(w.master)
    assert url in client.get(w.season.get_absolute_url()).content.decode()
    fixtures = reverse("league:season_fixtures", kwargs={"slug": w.league.slug, "number": w.season.number})
    assert url in client.get(fixtures).content.decode()  # the season's tabs


def test_the_league_front_page_shows_the_current_rounds_progress_to_everybody(client):
    w = small_world()
    html = client.get(w.league.get_absolute_url()).content.decode()
    assert 'data-testid="league-progress"' in html
    assert "Round 2: 0 of 4 played" in html and "4 overdue" in html
    assert desk_url(w.season) not in html
    client.force_login(w.master)
    assert desk_url(w.season) in client.get(w.league.get_absolute_url()).content.decode()


# --- what the fixture lines read (issue 29, part 2: the fetch names its fields) ---------------------


def test_every_kind_of_desk_line_reads_only_what_the_fetch_read(client):
    from tests.matches.test_kage_result_entry import kage_season, table

    w = small_world()
    playoff = w.fixtures["disputed"][0]
    Match.objects.filter(pk=playoff.pk).update(stage="playoff-1", round_number=1)
    kicked, waiting_kick_off = Match.objects.filter(season=w.season, round_number=2).order_by("pk")[:2]
    Match.objects.filter(pk=kicked.pk).update(kicked_off_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    client.force_login(w.master)
    with no_deferred_loads():
        html = client.get(desk_url(w.season)).content.decode()
    disputed = html.split('data-testid="desk-disputed"')[1].split("</ul>")[0]
    assert "Playoffs, round 1" in disputed and reverse("matches:settle", args=[playoff.pk]) in disputed
    names = [side.team.name for side in playoff.sides.order_by("slot")]
    assert f'{escape(names[0])}</a> <span class="text-muted">v</span> <a' in disputed and escape(names[1]) in disputed
    waiting = html.split('data-testid="desk-waiting"')[1].split("</ul>")[0]
    assert "Round 3" in waiting and reverse("matches:detail", args=[w.fixtures["to_confirm"][0].pk]) in waiting
    overdue = html.split('data-testid="desk-overdue"')[1].split("</ul>")[0]
    assert "deadline " in overdue  # the round's, annotated
    # Kicked off: it can be forfeited, not rescheduled.
    assert reverse("league:fixture_forfeit", args=[kicked.pk]) in overdue
    assert reverse("league:fixture_reschedule", args=[kicked.pk]) not in overdue
    assert reverse("league:fixture_reschedule", args=[waiting_kick_off.pk]) in overdue
    # A Kage Masters table of three: its players listed with "and".
    season, players = kage_season(3)
    seated = table(season, players)
    Match.objects.filter(pk=seated.pk).update(status=Match.Status.DISPUTED)
    client.force_login(season.league.master)
    with no_deferred_loads():
        html = client.get(desk_url(season)).content.decode()
    disputed = html.split('data-testid="desk-disputed"')[1].split("</ul>")[0]
    assert f"{escape(players[1].name)}</a> and <a" in disputed and escape(players[0].name) in disputed
    assert reverse("matches:settle", args=[seated.pk]) in disputed


# --- queries and rows --------------------------------------------------------------------------------


def measure(client, world: DashWorld) -> tuple[int, int, str]:
    client.force_login(world.master)
    url = desk_url(world.season)
    client.get(url)  # warm (session)
    with CaptureQueriesContext(connection) as queries, count_rows() as counted:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries.captured_queries), counted.rows, response.content.decode()


@pytest.mark.slow(reason="builds a small and a large league world to compare their query counts")
def test_queries_are_the_same_in_a_small_and_a_large_world(client):
    small, large = small_world(), large_world()
    small_queries, small_rows, _ = measure(client, small)
    large_queries, large_rows, html = measure(client, large)
    # With the navigation's unread count (notifications/); the lists: a ranking, the matches, their sides
    assert small_queries == large_queries == 11
    desk = dashboard.master_desk(large.season)
    for name in ("waiting", "overdue", "applications", "blocking_rolls"):
        bounded = getattr(desk, name)
        assert len(bounded) == dashboard.LIMIT and bounded.more > 0, name
    assert f"And {desk.overdue.more} more" in html
    # Rows: a line per round (the season's length, not its history of results), and the lists'
    # first items with their sides; the large season has 23 rounds.
    # 4: with the unread count's row; the lists: their ranking's rows, then the matches and sides
    fixed = 4 + 3 * dashboard.LIMIT + 3 * dashboard.LIMIT * 3 + 2 * dashboard.LIMIT
    # Each round: its dates' row, and its fixtures' counts grouped by status and where their
    # deadline stands (one to three groups in a round being played): rows follow the rounds.
    assert large_rows <= fixed + 4 * len(desk.rounds), (small_rows, large_rows)
    # The front page's progress summary: two queries in both worlds.
    for world in (small, large):
        with CaptureQueriesContext(connection) as queries:
            dashboard.season_progress(world.season)
        assert len(queries.captured_queries) == 2


# --- a long season: the rounds around the current one, the rest folded ------------------------------


def test_a_long_seasons_desk_folds_the_rounds_far_from_the_current_one(client):
    season = make_season(12, format=Season.Format.ROUND_ROBIN)  # 11 rounds of 6 fixtures
    generate(season, "round_robin")
    for r in range(1, 6):
        play_round(season, r)
    # Round 9 has a result waiting for confirmation: shown, though far ahead.
    waiting = Match.objects.filter(season=season, round_number=9).first()
    play(waiting, 2, 1, status=Match.Status.SUBMITTED)
    desk = dashboard.master_desk(season)
    assert desk.current.round_number == 6
    rows = desk.round_rows
    titles = [r.title for r in rows]
    assert titles == [
        "Round 1 to round 4 (4 rounds)",
        "Round 5",
        "Round 6",
        "Round 7",
        "Round 8",
        "Round 9",
        "Round 10 to round 11 (2 rounds)",
    ]
    folded = rows[0]
    assert folded.folded and folded.played == 24 and folded.total == 24 and folded.anchor == "round-1"
    assert rows[-1].not_started == 12 and rows[5].waiting == 1
    # Nothing is lost: the rows add up to the season.
    assert sum(r.total for r in rows) == desk.totals.total == 66
    assert sum(r.played for r in rows) == desk.totals.played == 30

    client.force_login(season.league.master)
    html = client.get(desk_url(season)).content.decode()
    assert html.count('data-testid="desk-rounds-folded"') == 2
    assert "Round 1 to round 4 (4 rounds)" in html and "Round 10 to round 11 (2 rounds)" in html
