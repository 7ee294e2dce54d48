"""The player's dashboard (issue 14, part 1): the signed-in home page lists what waits for the
player, each item linking to where it is dealt with, in bounded lists whose queries and rows do not
grow with the league's history. The worlds are built in tests/league/dashboard_world.py."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from common.dbstats import count_rows
from league import dashboard
from matches import services as match_services
from matches.models import Match
from teams.models import AdvancementRoll, Team
from tests.factories import LeagueFactory, UserFactory, make_team
from tests.league.dashboard_world import DashWorld, large_world, small_world
from tests.support import no_deferred_loads, record_for

pytestmark = pytest.mark.usefixtures("catalog")


def pks(items) -> list[int]:
    return [getattr(item, "match", item).pk for item in items]


def home(client, user):
    client.force_login(user)
    return client.get(reverse("home")).content.decode()


# --- the selector ----------------------------------------------------------------------------------


def test_the_dashboard_sorts_the_players_matches_into_their_lists():
    w = small_world()
    dash = dashboard.player_dashboard(w.player)
    fixtures = w.fixtures
    # Next fixtures: still to play (overdue, kicked off, not started), soonest deadline first.
    expected_next = fixtures["overdue"] + fixtures["in_play"] + fixtures["next"]
    assert pks(dash.next_fixtures) == pks(sorted(expected_next, key=lambda m: m.round_number))
    assert pks(dash.to_confirm) == pks(fixtures["to_confirm"])
    assert pks(dash.disputed) == pks(fixtures["disputed"])
    assert pks(dash.rejected) == pks(fixtures["rejected"])
    assert [r.pk for r in dash.rolls] == [r.pk for r in w.rolls]
    # Each match knows the player's side and the opponent.
    for item in [*dash.next_fixtures, *dash.to_confirm, *dash.disputed, *dash.rejected]:
        assert item.mine == [w.team]
        assert len(item.opponents) == 1 and item.opponents[0].owner_id != w.player.pk
    # The deadline is the round's (no fixture has its own); the first one has passed.
    first = dash.next_fixtures.items[0]
    assert first.due == w.season.rounds.get(round_number=first.match.round_number).deadline
    assert first.due < w.today <= dash.next_fixtures.items[1].due
    assert dash.waiting == 3  # one to confirm, one rejected, one roll


def test_the_teams_show_their_stored_rating_and_treasury_and_the_applications_their_state():
    w = small_world()
    Team.objects.filter(pk=w.team.pk).update(rating=17, treasury=42)
    dash = dashboard.player_dashboard(w.player)
    mine = {t.pk: t for t in dash.teams}
    assert (mine[w.team.pk].rating, mine[w.team.pk].treasury) == (17, 42)
    applications = {t.pk: t.entry_status for t in dash.applications}
    assert applications == {
        w.player_applications["pending"][0].pk: Team.EntryStatus.PENDING,
        w.player_applications["refused"][0].pk: Team.EntryStatus.REFUSED,
    }
    assert dash.in_a_league and not dash.mastered


def test_a_players_own_submission_and_other_players_matches_are_not_listed():
    w = small_world()
    match = w.fixtures["in_play"][0]
    home_side, away_side = match.sides.order_by("slot")
    record = record_for(match, {home_side.team_id: 1, away_side.team_id: 1})
    match_services.match_submit_result(match=match, record=record, actor=w.player)
    dash = dashboard.player_dashboard(w.player)
    listed = pks([*dash.next_fixtures, *dash.to_confirm, *dash.disputed, *dash.rejected])
    assert match.pk not in listed  # waiting for the opponent, not for the player
    others = Match.objects.filter(season=w.season).exclude(sides__team=w.team)
    assert not set(listed) & set(others.values_list("pk", flat=True))
    # The opponent sees it to confirm.
    opponent = (away_side if home_side.team_id == w.team.pk else home_side).team.owner
    assert match.pk in pks(dashboard.player_dashboard(opponent).to_confirm)


def test_a_chosen_roll_and_a_released_models_roll_are_not_waiting():
    w = small_world()
    roll = w.rolls[0]
    AdvancementRoll.objects.filter(pk=roll.pk).update(status=AdvancementRoll.Status.CHOSEN)
    assert not dashboard.player_dashboard(w.player).rolls
    AdvancementRoll.objects.filter(pk=roll.pk).update(status=AdvancementRoll.Status.PENDING)
    roll.ninja.status = "released"
    roll.ninja.save(update_fields=["status"])
    assert not dashboard.player_dashboard(w.player).rolls


def test_a_fixtures_own_deadline_wins_over_its_rounds():
    w = small_world()
    match = w.fixtures["next"][-1]
    own = w.today + dt.timedelta(days=30)
    Match.objects.filter(pk=match.pk).update(deadline=own)
    dash = dashboard.player_dashboard(w.player)
    assert dash.next_fixtures.items[-1].match.pk == match.pk and dash.next_fixtures.items[-1].due == own


def test_each_list_shows_its_first_items_and_counts_the_rest():
    w = small_world()
    lists = dashboard.player_matches(w.player, limit=1)
    next_total = len(w.fixtures["overdue"] + w.fixtures["in_play"] + w.fixtures["next"])
    assert (len(lists[dashboard.NEXT]), lists[dashboard.NEXT].total) == (1, next_total)
    assert lists[dashboard.NEXT].more == next_total - 1
    assert lists[dashboard.NEXT].seasons == [w.season]
    for key in (dashboard.TO_CONFIRM, dashboard.DISPUTED_RESULT, dashboard.REJECTED):
        assert (len(lists[key]), lists[key].total, lists[key].more) == (1, 1, 0)


# --- the page --------------------------------------------------------------------------------------


def test_the_page_links_each_item_to_where_it_is_dealt_with(client):
    w = small_world()
    html = home(client, w.player)
    for match in w.fixtures["next"] + w.fixtures["overdue"]:
        assert reverse("matches:presheet", args=[match.pk]) in html
    assert reverse("matches:detail", args=[w.fixtures["to_confirm"][0].pk]) in html
    assert reverse("matches:detail", args=[w.fixtures["disputed"][0].pk]) in html
    assert reverse("matches:result", args=[w.fixtures["rejected"][0].pk]) in html
    assert reverse("matches:advancement_choose", args=[w.rolls[0].pk]) in html
    assert w.player_applications["pending"][0].league.get_absolute_url() in html
    assert "waiting for the master" in html and "application refused" in html
    assert "(overdue)" in html and "3 things wait for you" in html
    assert f"{w.team.treasury} <small" in html
    assert 'data-testid="next-fixtures"' in html and 'data-testid="my-teams"' in html


def test_the_master_finds_the_desk_from_the_dashboard(client):
    w = small_world()
    html = home(client, w.master)
    desk = reverse("league:season_desk", kwargs={"slug": w.league.slug, "number": w.season.number})
    assert 'data-testid="mastered"' in html and desk in html
    assert desk not in home(client, w.player)


def test_empty_states_say_what_to_do_next(client):
    newcomer = UserFactory()
    html = home(client, newcomer)
    assert 'data-testid="empty-teams"' in html and 'data-testid="empty-fixtures"' in html
    assert reverse("teams:create") in html and "Nothing waits for you" in html
    make_team(owner=newcomer, name="Loners")
    html = home(client, newcomer)
    assert "Loners" in html and "Apply to a league" in html and reverse("league:list") in html


def test_the_anonymous_home_page_is_the_front_page(client):
    league = LeagueFactory(name="Open Court")
    html = client.get(reverse("home")).content.decode()
    assert "Open Court" in html and reverse("signup") in html
    assert league.get_absolute_url() in html
    assert "Your next fixtures" not in html and "Welcome," not in html


# --- queries and rows --------------------------------------------------------------------------------


def measure(client, user) -> tuple[int, int, str]:
    client.force_login(user)
    client.get(reverse("home"))  # warm (session)
    with CaptureQueriesContext(connection) as queries, count_rows() as counted:
        response = client.get(reverse("home"))
    assert response.status_code == 200
    return len(queries.captured_queries), counted.rows, response.content.decode()


#: Rows the page may read at most, whatever the history: the session, the user and the unread count, the teams
#: shown, the applications, the rolls and the leagues run, each list of matches and their sides.
MAX_ROWS = 3 + dashboard.TEAM_LIMIT + 3 * dashboard.LIMIT + 4 * dashboard.LIMIT * 3


@pytest.mark.slow(reason="builds a small and a large league world to compare their query counts")
def test_queries_are_the_same_and_rows_bounded_in_a_small_and_a_large_world(client):
    small: DashWorld = small_world()
    large: DashWorld = large_world()
    small_queries, small_rows, _ = measure(client, small.player)
    large_queries, large_rows, html = measure(client, large.player)
    # 9 for the page (the matches' lists: a ranking, then the matches chosen and their sides), and
    # the unread count of notifications in the navigation (notifications/): the large world has
    # told its player of many more things than the small one
    assert small_queries == large_queries == 10
    # The large world holds more of everything than a list shows: the lists are cut, with a count.
    dash = dashboard.player_dashboard(large.player)
    for name in ("teams", "next_fixtures", "to_confirm", "rejected", "rolls"):
        bounded = getattr(dash, name)
        assert bounded.more > 0 and len(bounded) in (dashboard.LIMIT, dashboard.TEAM_LIMIT), name
    assert f"And {dash.to_confirm.more} more result" in html and "all your teams" in html
    assert small_rows < large_rows <= MAX_ROWS, (small_rows, large_rows)


# --- what the match lines read (issue 29, part 2: the fetch names its fields) ----------------------


def test_every_kind_of_match_line_reads_only_what_the_fetch_read(client):
    from rules.models import Challenge
    from tests.matches.test_kage_result_entry import kage_season, table

    w = small_world()
    waiting = w.fixtures["to_confirm"][0]
    Match.objects.filter(pk=waiting.pk).update(upkeep_waits=True)
    challenge = Challenge.objects.order_by("pk").first()
    assert challenge is not None  # the catalog's challenges
    playoff = w.fixtures["next"][0]
    Match.objects.filter(pk=playoff.pk).update(stage="playoff-1", round_number=1, challenge=challenge)
    friendly = w.fixtures["overdue"][0]
    Match.objects.filter(pk=friendly.pk).update(season=None, league=None, friendly=True)
    season, players = kage_season(3)
    players[0].owner = w.player
    players[0].save(update_fields=["owner"])
    seated = table(season, players)
    client.force_login(w.player)
    with no_deferred_loads():
        html = client.get(reverse("home")).content.decode()
    upcoming = html.split('data-testid="next-fixtures"')[1].split("</table>")[0]
    assert "playoffs round 1" in upcoming and "Friendly" in upcoming
    assert f'<div class="text-muted">{escape(challenge.name)}</div>' in upcoming
    others = [p.name for p in players[1:]]
    assert f"{others[0]}</a> and <a" in upcoming and others[1] in upcoming, upcoming
    assert reverse("league:season_fixtures", args=[season.league.slug, season.number]) in upcoming
    assert reverse("matches:presheet", args=[playoff.pk]) in upcoming
    assert reverse("matches:presheet", args=[seated.pk]) not in upcoming
    todo = html.split('data-testid="dashboard-todo"')[1].split("</section>")[0]
    assert "Ronin upkeep" in todo and reverse("matches:detail", args=[waiting.pk]) in todo
    assert w.team.get_absolute_url() in todo
