"""Simulation pages: only the league's master may simulate (403 otherwise); the request runs as a
task (eager here) and the progress page and its JSON follow it; simulated matches are marked."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league.models import ScheduleRun
from league.services import simulations as simulation
from matches.models import Match, SimulationJob
from outbox.models import OutboxTask
from tests.factories import UserFactory
from tests.league.helpers import generate, make_season

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog", "eager")]


@pytest.fixture
def season():
    season = make_season(4, with_ninja=True, legal=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    return season


def urls(season, match):
    kw = {"slug": season.league.slug, "number": season.number}
    return [
        reverse("simulation:simulate", kwargs={"pk": match.pk}),
        reverse("simulation:simulate_round", kwargs=kw),
        reverse("simulation:simulate_season", kwargs=kw),
    ]


def test_only_the_master_may_simulate(client, season):
    match = season.matches.first()
    for url in urls(season, match):
        response = client.post(url, {"policy": "auto"})
        assert response.status_code == 302 and "login" in response["Location"]
    for user in (season.entries.first().team.owner, UserFactory()):
        client.force_login(user)
        for url in urls(season, match):
            assert client.post(url, {"policy": "auto"}).status_code == 403
        assert client.get(urls(season, match)[0]).status_code in (403, 405)
    assert not SimulationJob.objects.exists()
    assert not Match.objects.filter(status="confirmed").exists()


def test_the_master_simulates_a_fixture_and_follows_its_progress(client, season, django_capture_on_commit_callbacks):
    match = season.matches.order_by("id").first()
    client.force_login(season.league.master)
    page = client.get(match.get_absolute_url())
    assert b"Simulate this fixture" in page.content
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("simulation:simulate", kwargs={"pk": match.pk}), {"policy": "pending"})
    job = SimulationJob.objects.get()
    assert response.status_code == 302 and response["Location"] == job.get_absolute_url()
    assert (job.scope, job.policy, job.status, job.done, job.total) == ("match", "pending", "done", 1, 1)
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED and match.simulated
    progress = client.get(job.get_absolute_url())
    assert progress.status_code == 200 and b"1 match simulated" in progress.content
    status = client.get(reverse("simulation:simulation_status", kwargs={"task_id": job.task_id})).json()
    assert status["state"] == "SUCCESS" and status["ready"] and status["percent"] == 100
    assert status["next_url"] == match.get_absolute_url()
    # the match page marks it and shows how it was played; no simulate button any more
    page = client.get(match.get_absolute_url()).content.decode()
    assert "simulated" in page and "How the simulator played it" in page and "Simulate this fixture" not in page


def test_round_and_season_buttons_on_the_season_page(
    client, season, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    player = season.entries.first().team.owner
    client.force_login(player)
    assert b"Simulate the rest of the season" not in client.get(season.get_absolute_url()).content
    client.force_login(season.league.master)
    with django_assert_max_num_queries(40):
        page = client.get(season.get_absolute_url()).content.decode()
    assert "Simulate round 1" in page and "Simulate the rest of the season" in page
    kw = {"slug": season.league.slug, "number": season.number}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("simulation:simulate_round", kwargs=kw), {"policy": "auto"})
    job = SimulationJob.objects.get()
    assert response["Location"] == job.get_absolute_url()
    assert job.status == "done" and job.done == 2
    status = client.get(reverse("simulation:simulation_status", kwargs={"task_id": job.task_id})).json()
    assert status["next_url"] == reverse("league:season_fixtures", kwargs=kw)
    # the fixture list marks simulated matches
    fixtures = client.get(reverse("league:season_fixtures", kwargs=kw)).content.decode()
    assert fixtures.count('badge text-bg-info">simulated') == 2
    assert "Simulate round 2" in client.get(season.get_absolute_url()).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("simulation:simulate_season", kwargs=kw), {"policy": "auto"})
    assert season.matches.filter(status="confirmed").count() == 6
    assert "No fixture is waiting" in client.get(season.get_absolute_url()).content.decode()


def test_a_season_with_playoffs_offers_the_regular_season_alone(
    client, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    """Issue 27, finding 4: beside "the rest of the season, the playoffs too", the master may
    simulate the rest of the regular season; once the playoffs have started it is no longer offered."""
    season = make_season(4, playoff_teams=2, with_ninja=True, legal=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    client.force_login(season.league.master)
    with django_assert_max_num_queries(40):
        page = client.get(season.get_absolute_url()).content.decode()
    assert "Simulate the rest of the regular season" in page
    assert "Simulate the rest of the season, the playoffs too" in page
    kw = {"slug": season.league.slug, "number": season.number}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("simulation:simulate_regular_season", kwargs=kw), {"policy": "auto"})
    job = SimulationJob.objects.get()
    assert response["Location"] == job.get_absolute_url() and job.scope == "regular"
    assert "the rest of the regular season" in client.get(job.get_absolute_url()).content.decode()
    assert season.matches.filter(status="confirmed").count() == 6 and not season.bracket_slots.exists()
    generate(season, ScheduleRun.Kind.PLAYOFF)
    page = client.get(season.get_absolute_url()).content.decode()
    assert "Simulate the rest of the regular season" not in page
    assert "Simulate the rest of the season, the playoffs too" in page
    # a player is offered neither, and may not ask
    client.force_login(season.entries.first().team.owner)
    assert "regular season" not in client.get(season.get_absolute_url()).content.decode()
    assert client.post(reverse("simulation:simulate_regular_season", kwargs=kw), {"policy": "auto"}).status_code == 403


def test_a_pending_job_shows_progress_from_its_row(client, season):
    job, _ = simulation.simulation_request(actor=season.league.master, scope="season", season=season)
    url = reverse("simulation:simulation_status", kwargs={"task_id": job.task_id})
    assert client.get(url).json()["state"] == "PENDING"
    SimulationJob.objects.filter(pk=job.pk).update(status="running", done=3, total=6)
    status = client.get(url).json()
    assert (status["state"], status["done"], status["total"], status["percent"], status["ready"]) == (
        "PROGRESS",
        3,
        6,
        50,
        False,
    )
    assert b"3 of 6 matches" in client.get(job.get_absolute_url()).content
    assert client.get(reverse("simulation:simulation_status", kwargs={"task_id": "nope"})).status_code == 404


def test_a_playoff_fixture_is_named_in_words_not_by_its_stage(client, django_capture_on_commit_callbacks):
    """Issue 27, finding 10: the match header read "Round 1 · playoff-1" and the simulate panel
    "Simulate round 1 (playoff-1)". A playoff fixture is "Playoffs, round 1" everywhere."""
    season = make_season(4, playoff_teams=2, with_ninja=True, legal=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    job, _ = simulation.simulation_request(actor=season.league.master, scope="regular", season=season, seed=3)
    simulation.simulation_job_run(job_id=job.pk)
    generate(season, ScheduleRun.Kind.PLAYOFF)
    final = season.matches.exclude(stage="").get()
    client.force_login(season.league.master)
    match_page = client.get(final.get_absolute_url()).content.decode()
    season_page = client.get(season.get_absolute_url()).content.decode()
    assert "Playoffs, round 1" in match_page
    assert "Simulate the playoffs, round 1" in season_page
    kw = {"slug": season.league.slug, "number": season.number}
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("simulation:simulate_round", kwargs=kw), {"policy": "auto"})
    job_page = client.get(SimulationJob.objects.get(scope="round").get_absolute_url()).content.decode()
    assert "the playoffs, round 1" in job_page
    for page in (match_page, season_page, job_page):
        assert "playoff-1" not in page.replace('id="playoff-1', "")  # an anchor's id is not shown


def test_the_masters_box_says_what_is_made_and_offers_nothing_done(client, django_capture_on_commit_callbacks):
    """Issue 27, finding 10: "Generate the whole schedule: not yet" for a schedule that exists, and
    "Advance the playoffs" after the final. The box says the schedule is made, and once the final
    is decided it offers no advance."""
    season = make_season(4, playoff_teams=2, with_ninja=True, legal=True)
    client.force_login(season.league.master)
    before = client.get(season.get_absolute_url()).content.decode()
    assert "Generate the whole schedule" in before and "The whole schedule is made" not in before
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    made = client.get(season.get_absolute_url()).content.decode()
    assert "The whole schedule is made" in made and "Generate the whole schedule" not in made
    job, _ = simulation.simulation_request(actor=season.league.master, scope="regular", season=season, seed=3)
    simulation.simulation_job_run(job_id=job.pk)
    generate(season, ScheduleRun.Kind.PLAYOFF)
    assert "Advance the playoffs" in client.get(season.get_absolute_url()).content.decode()
    job, _ = simulation.simulation_request(actor=season.league.master, scope="season", season=season, seed=4)
    simulation.simulation_job_run(job_id=job.pk)
    assert season.bracket_slots.get().winner_id is not None  # the final is decided
    after = client.get(season.get_absolute_url()).content.decode()
    assert "Advance the playoffs" not in after and "not yet" not in after


@pytest.mark.django_db(transaction=True)  # commits as the site does: the task runs inside the request
def test_a_simulation_that_stops_with_its_own_error_says_what_happened(
    client, season, monkeypatch, django_assert_max_num_queries
):
    """Issue 27, finding 7: a simulation that overflowed was shown as "the task queue is
    unavailable" (and its task stored to be sent again). An error that is not the broker's is said
    as it is: its class and message, bounded."""
    from matches import simulation as match_simulation

    def overflows(**kwargs):
        raise OverflowError("Python int too large to convert to SQLite INTEGER" + " and so on" * 100)

    monkeypatch.setattr(match_simulation, "simulate_match", overflows)
    client.force_login(season.league.master)
    url = reverse("simulation:simulate_season", kwargs={"slug": season.league.slug, "number": season.number})
    response = client.post(url, {"policy": "auto"})
    job = SimulationJob.objects.get()
    assert response.status_code == 302 and response["Location"] == job.get_absolute_url()
    with django_assert_max_num_queries(12):
        page = client.get(response["Location"]).content.decode()
    assert "task queue is unavailable" not in page
    assert not OutboxTask.objects.exists()  # not waiting for a broker that is there
    assert "The simulation stopped: OverflowError: Python int too large to convert to SQLite INTEGER" in page
    assert job.status == SimulationJob.Status.FAILED and job.error.startswith("OverflowError: Python int too large")
    assert len(job.error) <= 300 and job.error.endswith("…")
    assert not Match.objects.filter(status="confirmed").exists()
