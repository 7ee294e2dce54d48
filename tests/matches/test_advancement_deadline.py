"""Issue 13, part 3: a team cannot kick off its next match with an unchosen advancement roll; the
pre-match sheet and the result form say which and link to the choice; a simulation takes only the
rolls of the matches it simulated, never a choice left to the players."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from league.services import simulations
from matches import services, simulation
from matches.models import Match, SimulationJob
from rules.models import Challenge
from teams.models import AdvancementRoll, Ninja
from tests.factories import PASSWORD
from tests.simulation.helpers import on_the_edge_of_a_level


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)


@pytest.fixture
def pending_roll(two_teams):
    """An advancement roll the Tigers' player has not chosen yet (from an earlier game)."""
    home, _away = two_teams
    ninja = home.ninjas.filter(status=Ninja.Status.ACTIVE).order_by("id")[0]
    return AdvancementRoll.objects.create(ninja=ninja, level=2, faces=["Fire", "Water"])


def choose(roll):
    option = services.advancement_options_for(roll)[0]
    services.advancement_choose(roll=roll, choice=services.option_key(option))


def test_an_unchosen_roll_blocks_the_kick_off_until_chosen(brawl_match, pending_roll):
    with pytest.raises(
        services.KickOffBlocked, match=rf"Tigers cannot kick off: .*{pending_roll.ninja.name} \(level 2\)"
    ):
        services.match_kick_off(match=brawl_match)
    brawl_match.refresh_from_db()
    assert brawl_match.kicked_off_at is None and brawl_match.seed is None
    choose(pending_roll)
    services.match_kick_off(match=brawl_match)
    brawl_match.refresh_from_db()
    assert brawl_match.kicked_off_at is not None


def test_a_roll_still_to_roll_at_the_table_blocks_too_and_a_released_models_does_not(brawl_match, two_teams):
    _home, away = two_teams
    ninjas = list(away.ninjas.filter(status=Ninja.Status.ACTIVE).order_by("id")[:2])
    AdvancementRoll.objects.create(ninja=ninjas[0], level=1, faces=[])
    released = AdvancementRoll.objects.create(ninja=ninjas[1], level=1, faces=["Air", "Air"])
    Ninja.objects.filter(pk=ninjas[1].pk).update(status=Ninja.Status.RELEASED)
    with pytest.raises(services.KickOffBlocked) as exc:
        services.match_kick_off(match=brawl_match)
    assert ninjas[0].name in str(exc.value) and ninjas[1].name not in str(exc.value)
    AdvancementRoll.objects.filter(pk=ninjas[0].advancement_rolls.get().pk).update(status=AdvancementRoll.Status.VOIDED)
    services.match_kick_off(match=brawl_match)  # voided and released rolls never block
    assert released.pk


def test_submitting_a_result_without_kick_off_is_blocked_too(brawl_match, two_teams, pending_roll):
    from rules.engine.records import MatchRecord, TeamRecord

    home, away = two_teams
    record = MatchRecord(teams=(TeamRecord(team_id=home.pk, points=1), TeamRecord(team_id=away.pk, points=0)))
    with pytest.raises(ValidationError, match="cannot kick off"):
        services.match_submit_result(match=brawl_match, record=record, actor=home.owner)
    brawl_match.refresh_from_db()
    assert brawl_match.status == Match.Status.SCHEDULED and brawl_match.kicked_off_at is None


def test_a_match_already_kicked_off_is_not_blocked_by_a_later_roll(brawl_match, two_teams):
    from tests.matches.conftest import simple_record

    home, _away = two_teams
    match = services.match_kick_off(match=brawl_match)
    AdvancementRoll.objects.create(ninja=home.ninjas.first(), level=2, faces=["Fire", "Water"])
    services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    match.refresh_from_db()
    assert match.status == Match.Status.SUBMITTED


def test_the_sheet_and_the_result_form_say_which_and_link_to_the_choice(
    client, brawl_match, two_teams, pending_roll, django_assert_max_num_queries
):
    home, _away = two_teams
    login(client, home.owner)
    choose_url = reverse("matches:advancement_choose", args=[pending_roll.pk])
    with django_assert_max_num_queries(30):
        sheet = client.get(reverse("matches:presheet", args=[brawl_match.pk])).content.decode()
    assert 'data-testid="kick-off-blocked"' in sheet and f'href="{choose_url}"' in sheet
    assert f"Tigers: {pending_roll.ninja.name} became Veteran" in sheet  # level 2 (issue 27, finding 10)
    assert "Kick off (record ratings and rosters)" not in sheet  # no button that would be refused
    result_url = reverse("matches:result", args=[brawl_match.pk])
    form = client.get(result_url).content.decode()
    assert 'data-testid="kick-off-blocked"' in form and f'href="{choose_url}"' in form
    # The kick-off and a posted result are refused with the reason, and nothing is written.
    resp = client.post(reverse("matches:kick_off", args=[brawl_match.pk]), follow=True)
    assert "Tigers cannot kick off" in resp.content.decode()
    resp = client.post(result_url, {"s1_points": "1", "s2_points": "0", "submit_result": "1"}, follow=True)
    assert "Tigers cannot kick off" in resp.content.decode()
    brawl_match.refresh_from_db()
    assert brawl_match.kicked_off_at is None
    # Chosen: the sheet offers the kick-off again.
    choose(pending_roll)
    sheet = client.get(reverse("matches:presheet", args=[brawl_match.pk])).content.decode()
    assert 'data-testid="kick-off-blocked"' not in sheet and "Kick off (record ratings and rosters)" in sheet


def test_a_simulation_takes_only_the_rolls_of_the_match_it_simulated(brawl_match, league, two_teams):
    home, away = two_teams
    played = services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)
    on_the_edge_of_a_level([home, away])
    simulation.simulate_match(match=played, seed=5, actor=league.master, policy="pending")
    left = list(AdvancementRoll.objects.filter(match=played, status=AdvancementRoll.Status.PENDING))
    assert left  # rolls left to the players
    # The next fixture cannot be simulated while they wait, even with the "auto" policy.
    with pytest.raises(ValidationError, match="cannot kick off"):
        simulations.simulation_request(actor=league.master, scope="match", match=brawl_match, policy="auto")
    with pytest.raises(services.KickOffBlocked):
        simulation.simulate_match(match=brawl_match, seed=6, actor=league.master, policy="auto")
    assert set(AdvancementRoll.objects.filter(match=played).values_list("status", flat=True)) == {"pending"}
    # The players choose; the simulation with "auto" takes only the rolls its own match earned.
    for roll in left:
        choose(roll)
    run = simulation.simulate_match(match=brawl_match, seed=6, actor=league.master, policy="auto")
    assert {c["roll"] for c in run.decisions["advancements"]} == set(
        AdvancementRoll.objects.filter(match=brawl_match).values_list("pk", flat=True)
    )


def test_a_season_simulation_stops_where_a_team_waits_for_a_choice(league, two_teams):
    from league import services as league_services
    from league.models import Season

    home, away = two_teams
    season = league_services.season_create(
        league=league, name="S", format=Season.Format.SELF_ARRANGED, swiss_rounds=None, playoff_teams=0
    )
    brawl = Challenge.objects.get(slug="brawl")
    first = services.match_create(teams=[home, away], challenge=brawl, season=season, round_number=1)
    second = services.match_create(teams=[home, away], challenge=brawl, season=season, round_number=2)
    on_the_edge_of_a_level([home, away])
    job, _ = simulations.simulation_request(actor=league.master, scope="season", season=season, policy="pending")
    job = simulations.simulation_job_run(job_id=job.pk)
    assert job.status == SimulationJob.Status.DONE and job.done == 1
    assert job.note.startswith("Stopped: ") and "cannot kick off" in job.note
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.status == Match.Status.CONFIRMED and second.status == Match.Status.SCHEDULED


def test_the_simulation_panels_say_the_policy_never_takes_the_players_choices(client, brawl_match, league):
    login(client, league.master)
    page = client.get(brawl_match.get_absolute_url()).content.decode()
    assert 'data-testid="simulate-fixture"' in page
    assert "a roll left to the players by another match stays theirs" in page


def test_a_new_level_is_named_as_the_rulebook_names_it(
    client, brawl_match, league, two_teams, django_capture_on_commit_callbacks
):
    """Issue 27, finding 10: "reached level 1" where the rulebook says a model "becomes
    Experienced". The notification, the dashboard and the match page name the level."""
    from notifications.models import Kind, Notification

    home, away = two_teams
    on_the_edge_of_a_level([home, away])
    with django_capture_on_commit_callbacks(execute=True):
        simulation.simulate_match(match=brawl_match, seed=5, actor=league.master, policy="pending")
    rolls = list(AdvancementRoll.objects.filter(match=brawl_match).select_related("ninja__team__owner"))
    assert rolls and {roll.level for roll in rolls} == {1}
    texts = list(Notification.objects.filter(kind=Kind.ADVANCEMENT).values_list("text", flat=True))
    assert texts and all("became Experienced: choose an advancement" in text for text in texts), texts
    owner = rolls[0].ninja.team.owner
    login(client, owner)
    dashboard = client.get(reverse("home")).content.decode()  # a member's home is the dashboard
    match_page = client.get(brawl_match.get_absolute_url()).content.decode()
    for page in (dashboard, match_page):
        assert f"{rolls[0].ninja.name}" in page and "became Experienced" in page
        assert "reached level" not in page
