"""A league's master manages a team only while it is entered in one of their running seasons
(issue 11, finding 1).

Reproduced as the probe did it: a player founds a team and applies to a league; the master then
tries to rename and release its ninja and to recruit with its koban, through the real pages. An
application gives no rights; a refusal or a withdrawal leaves none behind; the end of the season
takes them away; entry in the running season gives them.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from league import services as league_services
from league.models import Season
from teams.models import Ninja, Team, TreasuryEntry
from teams.permissions import RUNNING_SEASON_STATUSES, can_manage_team
from tests.factories import PASSWORD, LeagueFactory, UserFactory, make_team, recruit

pytestmark = pytest.mark.usefixtures("catalog")


@pytest.fixture
def master():
    return UserFactory(username="rights-master")


@pytest.fixture
def league(master):
    league = LeagueFactory(name="Rights League", slug="rights", master=master)
    league_services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    return league


@pytest.fixture
def applied(league):
    """A player's team with one ninja, applied to the league (pending)."""
    team = make_team("tora", owner=UserFactory(username="rights-player"), name="Applicants", league=league)
    recruit(team, "tora-kaiken", name="Kit")
    team.refresh_from_db()
    return team


def _login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


def master_attempts(client, team: Team) -> dict[str, int]:
    """Everything the probe tried as the master, with the status code of each answer."""
    ninja = team.ninjas.filter(status=Ninja.Status.ACTIVE).first()
    return {
        "recruit page": client.get(reverse("teams:recruit", args=[team.pk])).status_code,
        "recruit": client.post(
            reverse("teams:recruit_profile", args=[team.pk, "tora-kaiken"]), {"name": "Spy"}
        ).status_code,
        "rename": client.post(reverse("teams:ninja_rename", args=[team.pk, ninja.pk]), {"name": "Renamed"}).status_code,
        "release": client.post(reverse("teams:ninja_release", args=[team.pk, ninja.pk])).status_code,
        "ready": client.post(reverse("teams:ready", args=[team.pk])).status_code,
    }


def assert_refused_and_untouched(client, team: Team) -> None:
    before = (team.treasury, list(team.ledger.values_list("pk", flat=True)), team.ninjas.count())
    answers = master_attempts(client, team)
    assert answers == dict.fromkeys(answers, 403), answers
    team.refresh_from_db()
    assert (team.treasury, list(team.ledger.values_list("pk", flat=True)), team.ninjas.count()) == before
    assert team.ninjas.get().name == "Kit" and team.ninjas.get().status == Ninja.Status.ACTIVE
    assert not TreasuryEntry.objects.filter(team=team, created_by__username="rights-master").exists()


def test_a_pending_application_gives_the_master_no_rights(client, master, applied):
    assert applied.entry_status == Team.EntryStatus.PENDING
    assert not can_manage_team(master, applied)
    _login(client, master)
    assert_refused_and_untouched(client, applied)
    resp = client.get(reverse("teams:detail", args=[applied.pk]))
    assert reverse("teams:recruit", args=[applied.pk]).encode() not in resp.content


def test_a_refused_team_leaves_no_trace_of_rights(client, master, applied):
    league = applied.league
    league_services.application_refuse(team=applied)
    applied.refresh_from_db()
    assert applied.entry_status == Team.EntryStatus.REFUSED
    # Nothing ties the team to the league any more: its name is free there again.
    assert applied.league_id is None
    assert not Team.objects.filter(league=league).exists()
    assert not can_manage_team(master, applied)
    assert_refused_and_untouched(_login(client, master), applied)


def test_a_withdrawn_application_leaves_no_trace_of_rights(client, master, applied):
    league = applied.league
    player = _login(client, applied.owner)
    resp = player.post(reverse("league:application_withdraw", args=[league.slug]), {"team": applied.pk})
    assert resp.status_code == 302
    applied.refresh_from_db()
    assert (applied.league_id, applied.entry_status) == (None, Team.EntryStatus.NONE)
    client.logout()
    assert not can_manage_team(master, applied)
    assert_refused_and_untouched(_login(client, master), applied)


def test_entry_in_the_running_season_gives_rights_and_its_end_takes_them(client, master, applied):
    entry = league_services.application_accept(team=applied)
    assert entry is not None and entry.season.status in RUNNING_SEASON_STATUSES
    applied.refresh_from_db()
    assert can_manage_team(master, applied)
    _login(client, master)
    ninja = applied.ninjas.get()
    resp = client.post(reverse("teams:ninja_rename", args=[applied.pk, ninja.pk]), {"name": "Renamed by the master"})
    assert resp.status_code == 302
    assert Ninja.objects.get(pk=ninja.pk).name == "Renamed by the master"

    league_services.season_finish(season=entry.season)
    applied.refresh_from_db()
    assert applied.entry_status == Team.EntryStatus.ACCEPTED  # still in the league, between seasons
    assert not can_manage_team(master, applied)
    resp = client.post(reverse("teams:ninja_rename", args=[applied.pk, ninja.pk]), {"name": "Again"})
    assert resp.status_code == 403
    assert Ninja.objects.get(pk=ninja.pk).name == "Renamed by the master"


def test_accepted_but_waiting_for_the_next_season_gives_no_rights(master, league, applied):
    """Accepted after the current season was closed to new entries: not entered, no rights."""
    season = league.seasons.get()
    season.status = Season.Status.FINISHED
    season.save(update_fields=["status"])
    assert league_services.application_accept(team=applied) is None
    applied.refresh_from_db()
    assert not can_manage_team(master, applied)


def test_the_owner_keeps_their_rights_in_every_state(applied):
    owner = applied.owner
    assert can_manage_team(owner, applied)
    league_services.application_refuse(team=applied)
    applied.refresh_from_db()
    assert can_manage_team(owner, applied)


def test_another_leagues_master_has_no_rights_over_an_entered_team(league, applied):
    league_services.application_accept(team=applied)
    other = LeagueFactory(name="Elsewhere", slug="elsewhere").master
    assert not can_manage_team(other, applied)


def test_running_means_every_season_that_is_not_finished():
    assert set(RUNNING_SEASON_STATUSES) == set(Season.Status.values) - {Season.Status.FINISHED}
