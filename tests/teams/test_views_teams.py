"""Team building through the real forms: every rule of recruitment, errors shown, nothing written."""

import datetime

import pytest
from django.urls import reverse

from matches.models import Match, MatchNinja, MatchTeam
from rules.models import Challenge, Clan, Profile
from teams.models import Ninja, Team, TreasuryEntry
from tests.factories import PASSWORD, LeagueFactory, UserFactory, make_team, recruit

pytestmark = pytest.mark.usefixtures("catalog")


@pytest.fixture
def player(client):
    user = UserFactory()
    client.login(username=user.username, password=PASSWORD)
    return user


def snapshot(team):
    team.refresh_from_db()
    return (team.treasury, team.ledger.count(), team.ninjas.count())


def post_recruit(client, team, slug, **data):
    return client.post(reverse("teams:recruit_profile", args=[team.pk, slug]), data)


def test_signup_logs_in_and_leads_to_team_creation(client):
    resp = client.post(
        reverse("signup"),
        {"username": "kenji", "email": "", "password1": "Sh1nobi-Path-77", "password2": "Sh1nobi-Path-77"},
    )
    assert resp.status_code == 302 and resp["Location"] == reverse("teams:create")
    resp = client.get(reverse("teams:create"))
    assert resp.status_code == 200 and b"Create a team" in resp.content


def test_signup_validates_passwords(client):
    resp = client.post(reverse("signup"), {"username": "kenji", "password1": "123", "password2": "123"})
    assert resp.status_code == 200
    assert b"too short" in resp.content
    from django.contrib.auth import get_user_model

    assert not get_user_model().objects.filter(username="kenji").exists()


def test_create_team_form(client, player):
    clan = Clan.objects.get(slug="tora")
    resp = client.post(reverse("teams:create"), {"name": "Tiger Claws", "clan": clan.pk})
    team = Team.objects.get(name="Tiger Claws")
    assert resp.status_code == 302 and resp["Location"] == reverse("teams:recruit", args=[team.pk])
    assert team.owner == player and team.treasury == 100
    resp = client.post(reverse("teams:create"), {"name": "", "clan": clan.pk})
    assert resp.status_code == 200 and b"This field is required" in resp.content
    assert Team.objects.count() == 1


def test_create_team_requires_login(client):
    resp = client.get(reverse("teams:create"))
    assert resp.status_code == 302 and reverse("login") in resp["Location"]


def test_recruit_with_choice_and_custom_name(client, player):
    team = make_team("tora", owner=player)
    profile = Profile.objects.get(slug="tora-chunin")
    pounce = profile.abilities.get(name="Pounce")
    resp = post_recruit(client, team, "tora-chunin", name="Shiro", abilities=pounce.pk)
    assert resp.status_code == 302
    ninja = team.ninjas.get()
    assert ninja.name == "Shiro" and list(ninja.chosen_abilities.all()) == [pounce]
    assert snapshot(team) == (80, 2, 1)


def test_recruit_default_name_is_prefilled(client, player):
    team = make_team("tora", owner=player)
    recruit(team, "tora-kaiken")
    resp = client.get(reverse("teams:recruit_profile", args=[team.pk, "tora-kaiken"]))
    assert b'value="Kaiken 2"' in resp.content


def test_choice_is_required(client, player):
    team = make_team("tora", owner=player)
    resp = post_recruit(client, team, "tora-chunin", name="")
    assert resp.status_code == 200
    assert b"Choose 1 special ability for the Chunin." in resp.content
    assert snapshot(team) == (100, 1, 0)


def test_choice_must_belong_to_the_profile(client, player):
    team = make_team("tora", owner=player)
    other = Profile.objects.get(slug="tora-madoushi").abilities.first()
    resp = post_recruit(client, team, "tora-chunin", abilities=other.pk)
    assert resp.status_code == 200
    assert b"Select a valid choice" in resp.content
    assert snapshot(team) == (100, 1, 0)


def test_wrong_clan_is_refused(client, player):
    team = make_team("tora", owner=player)
    resp = post_recruit(client, team, "ika-kaiken")
    assert resp.status_code == 200
    assert b"is not of clan Tora" in resp.content
    assert snapshot(team) == (100, 1, 0)


def test_ronin_of_any_clan_is_allowed(client, player):
    team = make_team("tora", owner=player)
    resp = post_recruit(client, team, "moon-princess")
    assert resp.status_code == 302
    assert snapshot(team) == (82, 2, 1)


def test_allowance_maximum_is_enforced(client, player):
    team = make_team("tora", owner=player)
    recruit(team, "tora-kaiken", 4)
    before = snapshot(team)
    resp = post_recruit(client, team, "tora-kaiken")
    assert resp.status_code == 200
    assert b"The allowance for Kaiken is 2-4: the team already has 4." in resp.content
    assert snapshot(team) == before


def test_hero_and_ronin_only_once(client, player):
    team = make_team("tora", owner=player)
    recruit(team, "tora-byakko")
    recruit(team, "tengu")
    before = snapshot(team)
    for slug, name in (("tora-byakko", b"Byakko is already on the team"), ("tengu", b"Tengu is already on the team")):
        resp = post_recruit(client, team, slug)
        assert resp.status_code == 200
        assert name in resp.content
    assert snapshot(team) == before


def test_not_enough_koban(client, player):
    team = make_team("tora", owner=player)
    recruit(team, "tora-byakko")  # 24
    recruit(team, "tora-oni", 2)  # 36 -> 40 left
    recruit(team, "tora-chunin")  # 20 -> 20 left
    recruit(team, "tora-kaiken")  # 10 -> 10 left
    before = snapshot(team)
    resp = post_recruit(
        client, team, "tora-madoushi", abilities=Profile.objects.get(slug="tora-madoushi").abilities.first().pk
    )
    assert resp.status_code == 200
    assert b"Not enough koban: the Madoushi costs 13 and the treasury holds 10." in resp.content
    assert snapshot(team) == before


def test_duplicate_name_is_refused(client, player):
    team = make_team("tora", owner=player)
    recruit(team, "tora-kaiken", name="Kage")
    before = snapshot(team)
    resp = post_recruit(client, team, "tora-kaiken", name="Kage")
    assert resp.status_code == 200 and b"already on the team" in resp.content
    assert snapshot(team) == before


def test_another_player_cannot_recruit_for_my_team(client, player):
    team = make_team("tora")  # someone else's
    resp = post_recruit(client, team, "tora-kaiken")
    assert resp.status_code == 403
    assert snapshot(team) == (100, 1, 0)


def test_league_master_may_recruit_for_a_team_in_the_league(client, player):
    # "In the league" means entered in its running season: an application alone gives the master
    # no rights (issue 11, finding 1; tests/teams/test_team_rights.py).
    from league import services as league_services

    league = LeagueFactory(master=player)
    league_services.season_create(league=league, format="self_arranged")
    team = make_team("tora", league=league)
    league_services.application_accept(team=team)
    resp = post_recruit(client, team, "tora-kaiken")
    assert resp.status_code == 302
    assert snapshot(team) == (90, 2, 1)


def test_ready_lists_what_is_missing(client, player):
    team = make_team("tora", owner=player)
    recruit(team, "tora-kaiken")
    resp = client.post(reverse("teams:ready", args=[team.pk]), follow=True)
    assert b"Chunin: the team needs exactly 1 and has 0." in resp.content
    assert b"Kaiken: the team needs at least 2 and has 1." in resp.content
    team.refresh_from_db()
    assert team.status == Team.Status.BUILDING
    recruit(team, "tora-kaiken")
    recruit(team, "tora-chunin")
    client.post(reverse("teams:ready", args=[team.pk]))
    team.refresh_from_db()
    assert team.status == Team.Status.READY


def test_release_needs_confirmation_and_refunds_nothing(client, player):
    team = make_team("tora", owner=player)
    ninja = recruit(team, "tora-kaiken")
    url = reverse("teams:ninja_release", args=[team.pk, ninja.pk])
    resp = client.get(url)
    assert b"No koban are refunded" in resp.content
    ninja.refresh_from_db()
    assert ninja.status == Ninja.Status.ACTIVE
    client.post(url)
    ninja.refresh_from_db()
    assert ninja.status == Ninja.Status.RELEASED
    assert snapshot(team) == (90, 2, 1)


def test_rename(client, player):
    team = make_team("tora", owner=player)
    ninja = recruit(team, "tora-kaiken")
    client.post(reverse("teams:ninja_rename", args=[team.pk, ninja.pk]), {"name": "Tetsu"})
    ninja.refresh_from_db()
    assert ninja.name == "Tetsu"


def test_team_names_are_escaped(client, player):
    make_team("tora", owner=player, name="<script>alert(1)</script>")
    resp = client.get(reverse("teams:list"))
    assert b"<script>alert(1)</script>" not in resp.content
    assert b"&lt;script&gt;" in resp.content


def _play_games(team, n):
    opponent = make_team("ika")
    challenge = Challenge.objects.get(slug="brawl")
    for i in range(n):
        match = Match.objects.create(
            challenge=challenge,
            status=Match.Status.CONFIRMED,
            date=datetime.date(2026, 1, 1) + datetime.timedelta(days=i),
        )
        side = MatchTeam.objects.create(match=match, team=team, slot=1, points=3, outcome="win", koban_earned=10)
        MatchTeam.objects.create(match=match, team=opponent, slot=2, points=1, outcome="loss", koban_earned=6)
        ninja = team.ninjas.first()
        MatchNinja.objects.create(side=side, ninja=ninja, name=ninja.name, all_star_awards=1)


def _scroll_queries(client, team, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        resp = client.get(reverse("teams:detail", args=[team.pk]))
    assert resp.status_code == 200
    return len(ctx.captured_queries), resp


def test_scroll_query_count_does_not_grow(client, django_assert_max_num_queries):
    small = make_team("tora", name="Small")
    recruit(small, "tora-kaiken")
    big = make_team("tora", name="Big")
    big.treasury  # noqa: B018
    from teams import services

    services.treasury_post(team=big, amount=200, reason=TreasuryEntry.Reason.CORRECTION, note="test funds")
    for slug, count in [
        ("tora-chunin", 1),
        ("tora-kaiken", 4),
        ("tora-yajiri", 2),
        ("tora-kunoichi", 2),
        ("tora-byakko", 1),
        ("tora-ryu", 1),
        ("tengu", 1),
    ]:
        recruit(big, slug, count)
    assert big.ninjas.count() == 12
    q_small_0, _ = _scroll_queries(client, small, django_assert_max_num_queries)
    q_big_0, _ = _scroll_queries(client, big, django_assert_max_num_queries)
    _play_games(small, 1)
    q_small_1, _ = _scroll_queries(client, small, django_assert_max_num_queries)
    _play_games(small, 19)
    _play_games(big, 20)
    q_small_20, _ = _scroll_queries(client, small, django_assert_max_num_queries)
    q_big_20, resp = _scroll_queries(client, big, django_assert_max_num_queries)
    # Roster size never changes the count; games add only the two record prefetches, once.
    assert q_small_0 == q_big_0, (q_small_0, q_big_0)
    assert q_small_1 == q_small_20 == q_big_20, (q_small_1, q_small_20, q_big_20)
    assert q_small_20 - q_small_0 <= 2
    assert q_big_20 <= 16
    body = resp.content.decode()
    assert "Byakko" in body and "Kaiken 4" in body and "Tengu" in body
    assert body.count("scroll-records") == 1


def test_scroll_shows_profile_rating_and_treasury(client):
    team = make_team("tora")
    for slug, count in [
        ("tora-chunin", 1),
        ("tora-kaiken", 3),
        ("tora-byakko", 1),
        ("tora-yajiri", 1),
        ("tora-kunoichi", 2),
    ]:
        recruit(team, slug, count)
    resp = client.get(reverse("teams:detail", args=[team.pk]))
    body = resp.content.decode()
    assert 'data-testid="team-rating">11<' in body
    assert 'data-testid="treasury">0 <' in body
    assert "Close Combat Master, Fire Mastery" in body  # chunin keywords
    assert "Tiger Strike" in body or "Pounce" in body
    assert "New Recruit" in body and "Fit" in body
    assert "scroll-print.css" in body


def test_team_list_bounded_queries(client, django_assert_max_num_queries):
    for i in range(5):
        t = make_team("tora", name=f"T{i}")
        recruit(t, "tora-kaiken", 2)
    with django_assert_max_num_queries(12):
        resp = client.get(reverse("teams:list"))
    assert resp.status_code == 200 and b"T4" in resp.content


def test_scroll_lists_the_latest_20_games_and_all_on_request(client):
    team = make_team("tora")
    recruit(team, "tora-kaiken")
    _play_games(team, 21)
    url = reverse("teams:detail", args=[team.pk])
    body = client.get(url).content.decode()
    assert body.count('<th scope="row" class="text-nowrap fw-normal"><a href="/matches/') == 20
    assert "Show every game" in body
    body = client.get(url + "?games=all").content.decode()
    assert body.count('<th scope="row" class="text-nowrap fw-normal"><a href="/matches/') == 21
    assert "Show every game" not in body


def test_recruit_page_of_a_full_allowance_says_why_instead_of_failing(client, player):
    """Opening the recruit page of a profile the team cannot take (allowance full) was a 500: the
    view added errors to an unbound form. Found by the team states of the permission matrix."""
    team = make_team("tora", owner=player)
    recruit(team, "tora-kaiken", 4)
    resp = client.get(reverse("teams:recruit_profile", args=[team.pk, "tora-kaiken"]))
    assert resp.status_code == 200
    assert b"The allowance for Kaiken is 2-4: the team already has 4." in resp.content
