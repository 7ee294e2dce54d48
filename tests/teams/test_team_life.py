"""A team over its life (issue 14, part 4): renamed, dressed in colours and a motto, retired, and
kept from playing while its roster is illegal. Services first, then the pages."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from league import services as league_services
from league.models import Season, SeasonEntry
from matches import services as match_services
from rules.models import Challenge
from teams import services
from teams.models import Ninja, Team
from tests.factories import PASSWORD, LeagueFactory, UserFactory, make_legal_team, make_team, recruit
from tests.league.helpers import add_team, make_season, play
from tests.support import set_result

pytestmark = pytest.mark.usefixtures("catalog")


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)


# --- renaming -------------------------------------------------------------------------------------


def test_rename_follows_the_creation_rules_and_frees_the_old_name():
    league = LeagueFactory()
    tigers = make_team("tora", name="Tigers", league=league)
    make_team("ika", name="Squids", league=league)
    with pytest.raises(ValidationError, match="already"):
        services.team_rename(team=tigers, name="  SQUIDS ")  # the same key as another team's
    with pytest.raises(ValidationError):
        services.team_rename(team=tigers, name="\u200b")  # nothing visible
    services.team_rename(team=tigers, name="  Night   Tigers ")
    tigers.refresh_from_db()
    assert tigers.name == "Night Tigers" and tigers.name_key == "night tigers"
    assert make_team("kitsune", name="Tigers", league=league).name == "Tigers"  # the old name is free


def test_rename_keeps_the_name_a_finished_season_and_a_newsletter_saw():
    season = make_season(0, format=Season.Format.SELF_ARRANGED)
    home, away = add_team(season.league, name="Old Name"), add_team(season.league, name="Rivals")
    match = match_services.match_create(
        teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), season=season
    )
    play(match, 3, 1)
    league_services.season_finish(season=season)
    services.team_rename(team=home, name="New Name")
    season.refresh_from_db()
    names = {row["team"] for row in season.final_table["rows"]}
    assert "Old Name" in names and "New Name" not in names
    assert season.final_table["champion"]["team"] == "Old Name"


def test_a_retired_team_cannot_be_renamed_dressed_or_recruit():
    team = make_team("tora", name="Old Guard")
    services.team_retire(team=team)
    with pytest.raises(ValidationError, match="retired"):
        services.team_rename(team=team, name="Young Guard")
    with pytest.raises(ValidationError, match="retired"):
        services.team_dress(team=team, colour_primary="#000000", colour_secondary="", motto="")
    treasury = Team.objects.get(pk=team.pk).treasury
    with pytest.raises(ValidationError, match="retired"):
        recruit(team, "tora-kaiken")
    assert Team.objects.get(pk=team.pk).treasury == treasury and not team.ninjas.exists()


# --- colours and motto ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("primary", "secondary", "motto", "field"),
    [
        ("red", "", "", "colour_primary"),
        ("#12345", "", "", "colour_primary"),
        ("#1234567", "", "", "colour_primary"),
        ("#123456", "#gggggg", "", "colour_secondary"),
        ("", "", "a\nb", "motto"),
        ("", "", "x" * 121, "motto"),
    ],
)
def test_colours_are_hex_and_the_motto_one_bounded_line(primary, secondary, motto, field):
    team = make_team("tora")
    with pytest.raises(ValidationError) as exc:
        services.team_dress(team=team, colour_primary=primary, colour_secondary=secondary, motto=motto)
    assert field in exc.value.message_dict
    team.refresh_from_db()
    assert (team.colour_primary, team.colour_secondary, team.motto) == ("", "", "")


def test_colours_and_motto_are_stored_normalised():
    team = make_team("tora")
    services.team_dress(team=team, colour_primary=" #1F3A5C ", colour_secondary="#f2c14e", motto="  Strike at dusk ")
    team.refresh_from_db()
    assert team.colours == ("#1f3a5c", "#f2c14e") and team.motto == "Strike at dusk"
    services.team_dress(team=team, colour_primary="", colour_secondary="", motto="")
    team.refresh_from_db()
    assert team.colours == () and team.motto == ""


# --- retirement ----------------------------------------------------------------------------------


def test_retiring_frees_the_name_and_keeps_the_team_out_of_future_seasons():
    season = make_season(0, format=Season.Format.SELF_ARRANGED)
    league = season.league
    team = add_team(league, name="Lanterns")
    assert SeasonEntry.objects.filter(season=season, team=team).exists()
    services.team_retire(team=team)  # entered, but no fixture yet: the entry goes
    team.refresh_from_db()
    assert team.is_retired and team.retired_at is not None and team.league_id == league.pk
    assert not SeasonEntry.objects.filter(team=team).exists()
    newcomer = add_team(league, name="LANTERNS")  # the name is free in the league again
    assert newcomer.league_id == league.pk
    with pytest.raises(ValidationError, match="retired"):
        league_services.team_apply(team=team, league=LeagueFactory())
    league_services.season_finish(season=season)
    following = league_services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    assert list(following.entries.values_list("team_id", flat=True)) == [newcomer.pk]


def test_a_team_with_a_fixture_in_a_running_season_cannot_retire_until_it_ends():
    season = make_season(0, format=Season.Format.SELF_ARRANGED)
    home, away = add_team(season.league), add_team(season.league)
    match_services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), season=season)
    assert services.retire_blockers(team=home)
    with pytest.raises(ValidationError, match="has not finished"):
        services.team_retire(team=home)
    home.refresh_from_db()
    assert home.status != Team.Status.RETIRED
    league_services.season_finish(season=season)  # the unplayed fixture is voided
    assert services.retire_blockers(team=home) == []
    services.team_retire(team=home)
    home.refresh_from_db()
    assert home.is_retired and SeasonEntry.objects.filter(team=home, season=season).exists()  # history kept


def test_retiring_withdraws_a_pending_application():
    league = LeagueFactory()
    team = make_team("tora", league=league)
    services.team_retire(team=team)
    team.refresh_from_db()
    assert team.league_id is None and team.entry_status == Team.EntryStatus.NONE and team.is_retired


def test_retiring_twice_is_refused():
    team = make_team("tora")
    services.team_retire(team=team)
    with pytest.raises(ValidationError, match="retired"):
        services.team_retire(team=team)


# --- an illegal roster ----------------------------------------------------------------------------


def _only_chunin(team):
    return team.ninjas.get(status=Ninja.Status.ACTIVE, profile__slug=f"{team.clan.slug}-chunin")


def test_releasing_the_only_chunin_makes_a_ready_team_building_and_blocks_its_kick_off():
    league = LeagueFactory()
    home = make_legal_team("tora", league=league)
    away = make_legal_team("ika", league=league)
    services.team_mark_ready(team=home)
    match = match_services.match_create(
        teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league
    )
    services.ninja_release(ninja=_only_chunin(home))
    home.refresh_from_db()
    assert home.status == Team.Status.BUILDING
    with pytest.raises(ValidationError, match="Chunin"):
        services.team_mark_ready(team=home)
    blocked = match_services.kick_off_roster_problems(match)
    assert [team.pk for team, _ in blocked] == [home.pk]
    with pytest.raises(match_services.KickOffBlocked, match="roster is not legal"):
        match_services.match_kick_off(match=match)
    match.refresh_from_db()
    assert match.kicked_off_at is None
    services.treasury_post(team=home, amount=20, reason="correction", note="for a new chunin")
    recruit(home, "tora-chunin")
    assert match_services.match_kick_off(match=match).kicked_off_at is not None


# --- the pages ------------------------------------------------------------------------------------


def test_owner_edits_name_colours_and_motto_through_the_form(client):
    team = make_team("tora", name="Tigers")
    login(client, team.owner)
    url = reverse("teams:edit", args=[team.pk])
    assert client.get(url).status_code == 200
    resp = client.post(
        url, {"name": "Dusk Tigers", "colour_primary": "#1f3a5c", "colour_secondary": "#f2c14e", "motto": "Quiet feet"}
    )
    assert resp.status_code == 302
    team.refresh_from_db()
    assert (team.name, team.colours, team.motto) == ("Dusk Tigers", ("#1f3a5c", "#f2c14e"), "Quiet feet")
    body = client.get(team.get_absolute_url()).content.decode()
    assert "Quiet feet" in body and "Colours #1f3a5c and #f2c14e" in body and 'fill="#1f3a5c"' in body
    resp = client.post(url, {"name": "Dusk Tigers", "colour_primary": "#000", "colour_secondary": "", "motto": ""})
    assert resp.status_code == 200 and "six hex digits" in resp.content.decode()
    client.post(url, {"name": "Dusk Tigers", "no_colours": "on", "colour_primary": "#000000", "motto": ""})
    team.refresh_from_db()
    assert team.colours == ()


def test_only_the_owner_edits_or_retires_not_the_master(client):
    season = make_season(0, format=Season.Format.SELF_ARRANGED)
    team = add_team(season.league)
    login(client, season.league.master)
    for name in ("teams:edit", "teams:retire"):
        assert client.get(reverse(name, args=[team.pk])).status_code == 403
        assert client.post(reverse(name, args=[team.pk]), {"name": "Taken"}).status_code == 403
    team.refresh_from_db()
    assert not team.is_retired and team.name != "Taken"


def test_retire_confirmation_shows_the_team_and_a_get_writes_nothing(client):
    league = LeagueFactory()
    team = make_team("tora", name="Paper Cranes", league=league)
    login(client, team.owner)
    url = reverse("teams:retire", args=[team.pk])
    body = client.get(url).content.decode()
    assert "Retire Paper Cranes?" in body and "pending application" in body
    team.refresh_from_db()
    assert not team.is_retired
    assert client.post(url).status_code == 302
    team.refresh_from_db()
    assert team.is_retired
    body = client.get(team.get_absolute_url()).content.decode()
    assert "Retired" in body and reverse("teams:edit", args=[team.pk]) not in body
    assert client.get(reverse("teams:edit", args=[team.pk])).status_code == 404


def test_retire_page_says_why_a_busy_team_cannot_retire(client):
    season = make_season(0, format=Season.Format.SELF_ARRANGED)
    home, away = add_team(season.league), add_team(season.league)
    match_services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), season=season)
    login(client, home.owner)
    body = client.get(reverse("teams:retire", args=[home.pk])).content.decode()
    assert (
        'data-testid="retire-blocked"' in body and "<button" not in body.split("retire-blocked")[1].split("</main>")[0]
    )
    client.post(reverse("teams:retire", args=[home.pk]))
    home.refresh_from_db()
    assert not home.is_retired


def test_scroll_says_what_to_fix_even_for_a_ready_team_and_presheet_shows_the_block(client):
    league = LeagueFactory()
    home, away = make_legal_team("tora", league=league), make_legal_team("ika", league=league)
    services.team_mark_ready(team=home)
    match = match_services.match_create(
        teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league
    )
    services.ninja_release(ninja=_only_chunin(home))
    login(client, home.owner)
    body = client.get(home.get_absolute_url()).content.decode()
    assert 'data-testid="roster-problems"' in body and "Chunin" in body
    resp = client.post(reverse("teams:ready", args=[home.pk]), follow=True)
    assert "not legal" in resp.content.decode()
    sheet = client.get(reverse("matches:presheet", args=[match.pk])).content.decode()
    assert (
        'data-testid="kick-off-roster-blocked"' in sheet and reverse("matches:kick_off", args=[match.pk]) not in sheet
    )
    client.post(reverse("matches:kick_off", args=[match.pk]))
    match.refresh_from_db()
    assert match.kicked_off_at is None


def test_league_table_shows_colours_and_motto_with_a_bounded_query_count(client, django_assert_max_num_queries):
    season = make_season(0, format=Season.Format.SELF_ARRANGED)
    teams = [add_team(season.league) for _ in range(3)]
    services.team_dress(team=teams[0], colour_primary="#aa0000", colour_secondary="#ffffff", motto="Red dawn")
    url = reverse("league:season_detail", kwargs={"slug": season.league.slug, "number": season.number})
    client.get(url)
    with django_assert_max_num_queries(20) as few:
        body = client.get(url).content.decode()
    for t in teams[1:]:
        services.team_dress(team=t, colour_primary="#00aa00", colour_secondary="", motto="Green")
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get(url)
    assert 'fill="#aa0000"' in body and "Red dawn" in body and "colours #aa0000 and #ffffff" in body


def test_a_player_cannot_found_a_second_team_in_a_league_that_allows_one():
    league = LeagueFactory()
    owner = UserFactory()
    league_services.application_accept(team=make_team("tora", owner=owner, league=league))
    pending = make_team("kitsune", owner=owner, league=LeagueFactory())  # applying elsewhere: no matter
    assert pending.entry_status == Team.EntryStatus.PENDING
    with pytest.raises(ValidationError, match="one team per player"):
        make_team("ika", owner=owner, league=league)
    league.several_teams_per_owner = True
    league.save()
    assert make_team("ika", owner=owner, league=league).league_id == league.pk


def test_a_renamed_teams_history_keeps_the_name_each_match_saw(client):
    """A match shows the names its teams had at kick-off (MatchTeam.team_name); the scroll's game
    records of the opponent too; the team's own page shows its new name."""
    tigers = make_legal_team("tora", name="Paper Tigers")
    foxes = make_legal_team("kitsune", name="Silver Foxes")
    match = match_services.match_create(teams=[tigers, foxes], challenge=Challenge.objects.get(slug="brawl"))
    match_services.match_kick_off(match=match)
    assert sorted(match.sides.values_list("team_name", flat=True)) == ["Paper Tigers", "Silver Foxes"]
    services.team_rename(team=tigers, name="Iron Tigers")
    set_result(match, 3, 1)
    page = client.get(reverse("matches:detail", args=[match.pk])).content.decode()
    assert "Paper Tigers v Silver Foxes" in page and "(now Iron Tigers)" in page
    assert "Iron Tigers" in client.get(reverse("teams:detail", args=[tigers.pk])).content.decode()
