"""Join by invitation (issue 14, part 5) and one team per player in a season (part 4's house rule)."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from league import services
from league.models import LeagueInvitation, Season, SeasonEntry
from teams.models import Team
from tests.factories import PASSWORD, LeagueFactory, UserFactory, make_team
from tests.league.helpers import HOUSE_RULES, add_team, make_season

pytestmark = pytest.mark.usefixtures("catalog")


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)


# --- invitations: services -------------------------------------------------------------------------


def test_an_invitation_lets_a_player_apply_and_the_master_still_decides():
    league = LeagueFactory()
    invitation = services.invitation_create(league=league, actor=league.master, days=7, max_uses=2)
    assert len(invitation.code) >= 20 and invitation.is_usable
    team = make_team("tora")
    services.invitation_apply(invitation=invitation, team=team, user=team.owner)
    team.refresh_from_db()
    assert team.league_id == league.pk and team.entry_status == Team.EntryStatus.PENDING
    invitation.refresh_from_db()
    assert invitation.uses == 1
    services.application_refuse(team=team)  # the link gave no right to a place
    team.refresh_from_db()
    assert team.league_id is None and team.entry_status == Team.EntryStatus.REFUSED


def test_an_invitation_stops_when_revoked_expired_or_used_up():
    league = LeagueFactory()
    used_up = services.invitation_create(league=league, actor=league.master, max_uses=1)
    first, second = make_team("tora"), make_team("ika")
    services.invitation_apply(invitation=used_up, team=first, user=first.owner)
    with pytest.raises(ValidationError, match="as many times"):
        services.invitation_apply(invitation=used_up, team=second, user=second.owner)
    revoked = services.invitation_revoke(
        invitation=services.invitation_create(league=league, actor=league.master, days=None)
    )
    with pytest.raises(ValidationError, match="revoked"):
        services.invitation_apply(invitation=revoked, team=second, user=second.owner)
    expired = services.invitation_create(league=league, actor=league.master, days=1)
    LeagueInvitation.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(ValidationError, match="expired"):
        services.invitation_apply(invitation=expired, team=second, user=second.owner)
    second.refresh_from_db()
    assert second.league_id is None
    assert LeagueInvitation.objects.get(pk=revoked.pk).uses == 0


def test_an_invitation_applies_only_with_ones_own_team_and_bounds_its_settings():
    league = LeagueFactory()
    invitation = services.invitation_create(league=league, actor=league.master)
    team = make_team("tora")
    with pytest.raises(ValidationError, match="your own"):
        services.invitation_apply(invitation=invitation, team=team, user=UserFactory())
    for kwargs in ({"days": 0}, {"days": 366}, {"max_uses": 0}, {"max_uses": 501}):
        with pytest.raises(ValidationError):
            services.invitation_create(league=league, actor=league.master, **kwargs)


# --- invitations: pages ----------------------------------------------------------------------------


def test_master_makes_and_revokes_links(client):
    league = LeagueFactory()
    login(client, league.master)
    url = reverse("league:invitations", kwargs={"slug": league.slug})
    assert client.get(url).status_code == 200
    assert not LeagueInvitation.objects.exists()  # the page (a GET) makes nothing
    assert client.post(url, {"days": "3", "max_uses": "5"}).status_code == 302
    invitation = LeagueInvitation.objects.get(league=league)
    assert invitation.max_uses == 5 and invitation.expires_at is not None
    body = client.get(url).content.decode()
    assert invitation.get_absolute_url() in body
    revoke = reverse("league:invitation_revoke", kwargs={"slug": league.slug, "pk": invitation.pk})
    assert client.get(revoke).status_code == 405
    client.post(revoke)
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None


def test_a_player_opens_a_link_sees_the_league_and_applies(client, django_assert_max_num_queries):
    league = LeagueFactory(name="Moonrise League", description="Night games by the shrine.")
    invitation = services.invitation_create(league=league, actor=league.master)
    player = UserFactory()
    team = make_team("tora", owner=player, name="Fireflies")
    make_team("ika", owner=player, name="Elsewhere", league=LeagueFactory())  # already applying elsewhere
    login(client, player)
    url = invitation.get_absolute_url()
    with django_assert_max_num_queries(12):
        body = client.get(url).content.decode()
    assert "Moonrise League" in body and "Night games" in body and "Fireflies" in body and "Elsewhere" not in body
    team.refresh_from_db()
    invitation.refresh_from_db()
    assert team.league_id is None and invitation.uses == 0  # a GET writes nothing
    resp = client.post(url, {"team": team.pk})
    assert resp.status_code == 302
    team.refresh_from_db()
    assert team.league_id == league.pk and team.entry_status == Team.EntryStatus.PENDING


def test_a_dead_link_says_why_and_a_post_to_it_writes_nothing(client):
    league = LeagueFactory()
    invitation = services.invitation_revoke(invitation=services.invitation_create(league=league, actor=league.master))
    team = make_team("tora")
    login(client, team.owner)
    resp = client.get(invitation.get_absolute_url())
    assert resp.status_code == 410 and "revoked" in resp.content.decode()
    client.post(invitation.get_absolute_url(), {"team": team.pk})
    team.refresh_from_db()
    assert team.league_id is None
    assert client.get(reverse("league:join", kwargs={"code": "no-such-code"})).status_code == 404


def test_a_link_needs_a_signed_in_player_and_the_list_the_master(client):
    league = LeagueFactory()
    invitation = services.invitation_create(league=league, actor=league.master)
    resp = client.get(invitation.get_absolute_url())
    assert resp.status_code == 302 and reverse("login") in resp["Location"]
    login(client, UserFactory())
    assert client.get(reverse("league:invitations", kwargs={"slug": league.slug})).status_code == 403


# --- one team per player in a season ---------------------------------------------------------------


def test_one_player_cannot_apply_with_a_second_team_unless_the_master_allows_it():
    league = LeagueFactory()
    owner = UserFactory()
    first = add_team(league, owner=owner)
    second = make_team("ika", owner=owner)
    with pytest.raises(ValidationError, match="one team per player"):
        services.team_apply(team=second, league=league)
    league.several_teams_per_owner = True
    league.save()
    services.team_apply(team=second, league=league)
    second.refresh_from_db()
    assert second.entry_status == Team.EntryStatus.PENDING and first.entry_status == Team.EntryStatus.ACCEPTED


def test_acceptance_follows_the_running_seasons_frozen_rule():
    season = make_season(0, format=Season.Format.SELF_ARRANGED, several_teams_per_owner=True)
    league = season.league
    owner = UserFactory()
    add_team(league, owner=owner)
    second = make_team("ika", owner=owner, league=league)  # allowed when it applied
    league.several_teams_per_owner = False  # the league's rule changes; the season's is frozen
    league.save()
    services.application_accept(team=second)
    assert SeasonEntry.objects.filter(season=season, team=second).exists()
    services.season_finish(season=season)
    with pytest.raises(ValidationError, match="one team per player"):
        services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    assert league.seasons.count() == 1


def test_acceptance_is_refused_when_the_season_allows_one_team_per_player():
    season = make_season(0, format=Season.Format.SELF_ARRANGED)
    league = season.league
    owner = UserFactory()
    add_team(league, owner=owner)
    league.several_teams_per_owner = True
    league.save()
    second = make_team("ika", owner=owner, league=league)
    with pytest.raises(ValidationError, match="one team per player"):
        services.application_accept(team=second)  # the season froze "one team per player"
    second.refresh_from_db()
    assert second.entry_status == Team.EntryStatus.PENDING


def test_a_retired_team_does_not_count_against_its_player():
    from teams import services as team_services

    league = LeagueFactory()
    owner = UserFactory()
    first = make_team("tora", owner=owner, league=league)
    services.application_accept(team=first)
    team_services.team_retire(team=first)
    second = make_team("ika", owner=owner, league=league)
    services.application_accept(team=second)
    second.refresh_from_db()
    assert second.entry_status == Team.EntryStatus.ACCEPTED


def test_the_house_rules_form_edits_the_rule(client):
    league = LeagueFactory()
    login(client, league.master)
    data = {**HOUSE_RULES, "several_teams_per_owner": "on"}
    resp = client.post(reverse("league:edit", kwargs={"slug": league.slug}), data)
    assert resp.status_code == 302, resp.content.decode()[:2000]
    league.refresh_from_db()
    assert league.several_teams_per_owner is True
