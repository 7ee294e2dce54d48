"""Simulation jobs (matches.simulation): one round, the rest of a season in every format (with
its playoffs), requests that are idempotent, and a retried job that carries on where it stopped."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import OperationalError

from league.models import BracketSlot, ScheduleRun, Season
from league.selectors import league_table
from league.services import simulations as simulation
from league.services.schedules import schedule_next
from matches.models import Match, SimulationJob
from tests.factories import UserFactory
from tests.league.helpers import generate, make_season

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]


def run_job(season: Season, scope: str, **kw) -> SimulationJob:
    job, created = simulation.simulation_request(actor=season.league.master, scope=scope, season=season, seed=1, **kw)
    assert created
    return simulation.simulation_job_run(job_id=job.pk)


def played(season: Season) -> int:
    return season.matches.filter(status=Match.Status.CONFIRMED, simulated=True).count()


def test_simulate_this_round_plays_only_the_current_round():
    season = make_season(4, with_ninja=True, legal=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    job = run_job(season, SimulationJob.Scope.ROUND)
    assert (job.status, job.round_number, job.done, job.total) == ("done", 1, 2, 2)
    assert set(season.matches.filter(status="confirmed").values_list("round_number", flat=True)) == {1}
    assert simulation.next_round(season) == ("", 2)
    assert run_job(season, SimulationJob.Scope.ROUND).round_number == 2


def test_the_rest_of_a_round_robin_season_generates_the_schedule_and_plays_it():
    season = make_season(4, with_ninja=True, legal=True)
    job = run_job(season, SimulationJob.Scope.SEASON)
    assert job.status == "done" and job.done == job.total == 6
    assert played(season) == 6
    assert [row.played for row in league_table(season)] == [3, 3, 3, 3]
    assert "Every round" in job.note


def test_the_rest_of_a_swiss_season_pairs_and_plays_each_round():
    season = make_season(6, format=Season.Format.SWISS, swiss_rounds=3, with_ninja=True, legal=True)
    job = run_job(season, SimulationJob.Scope.SEASON)
    assert job.status == "done" and played(season) == 9 == job.done
    assert season.schedule_runs.filter(kind="swiss", status="done").count() == 3
    assert [row.played for row in league_table(season)] == [3] * 6


def test_the_rest_of_a_weekly_season_stops_after_the_rounds_given():
    season = make_season(4, format=Season.Format.RANDOM_WEEKLY, with_ninja=True, legal=True)
    job = run_job(season, SimulationJob.Scope.SEASON, max_rounds=2)
    assert job.max_rounds == 2 and played(season) == 4
    other = make_season(4, format=Season.Format.RANDOM_WEEKLY, with_ninja=True, legal=True)
    job = run_job(other, SimulationJob.Scope.SEASON)
    assert job.max_rounds == 3 and played(other) == 6  # default: the number of teams - 1


def test_the_rest_of_the_season_includes_its_playoffs():
    season = make_season(4, playoff_teams=4, with_ninja=True, legal=True)
    job = run_job(season, SimulationJob.Scope.SEASON)
    assert job.status == "done" and played(season) == 6 + 2 + 1
    final = BracketSlot.objects.get(season=season, round_number=2)
    assert final.winner_id is not None
    assert "playoffs" in job.note


def test_the_rest_of_the_regular_season_leaves_the_playoffs_to_the_master():
    """Issue 27, finding 4: "simulate the rest" also played the playoffs; the regular season alone
    is a choice of its own. The round robin is played, no playoff fixture is made, the progress
    total counts no playoff game, and the master starts the playoffs afterwards as usual."""
    season = make_season(4, playoff_teams=4, with_ninja=True, legal=True)
    job = run_job(season, SimulationJob.Scope.REGULAR)
    assert job.status == "done" and played(season) == 6 and job.total == 6
    assert not BracketSlot.objects.filter(season=season).exists()
    assert not season.matches.exclude(stage="").exists()
    assert "regular season" in job.note and "playoffs" in job.note
    # asked again once the playoffs are on: refused, nothing recorded
    _, problems = schedule_next(season, ScheduleRun.Kind.PLAYOFF)
    assert problems == []
    generate(season, ScheduleRun.Kind.PLAYOFF)
    with pytest.raises(ValidationError, match="playoffs have started"):
        simulation.simulation_request(actor=season.league.master, scope="regular", season=season)
    assert SimulationJob.objects.filter(season=season).count() == 1


def test_requests_are_idempotent_and_only_for_the_master():
    season = make_season(4, with_ninja=True, legal=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    player = season.entries.first().team.owner
    with pytest.raises(PermissionDenied):
        simulation.simulation_request(actor=player, scope="season", season=season)
    match = season.matches.first()
    with pytest.raises(PermissionDenied):
        simulation.simulation_request(actor=UserFactory(), scope="match", match=match)
    first, created = simulation.simulation_request(actor=season.league.master, scope="season", season=season)
    again, created_again = simulation.simulation_request(actor=season.league.master, scope="round", season=season)
    assert created and not created_again and again == first
    simulation.simulation_job_run(job_id=first.pk)
    with pytest.raises(ValidationError):  # nothing left to play
        simulation.simulation_request(actor=season.league.master, scope="round", season=season)
    with pytest.raises(ValidationError):
        simulation.simulation_request(actor=season.league.master, scope="match", match=match)


def test_a_retried_job_carries_on_where_it_stopped(monkeypatch):
    """Each round is one transaction (4 teams: three rounds of two matches): the connection lost
    in round 2's second match undoes round 2, round 1 stays played, and the retry plays the rest."""
    from matches import simulation as match_simulation

    season = make_season(4, with_ninja=True, legal=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    job, _ = simulation.simulation_request(actor=season.league.master, scope="season", season=season, seed=3)
    real = match_simulation.simulate_match
    calls = {"n": 0}

    def flaky(**kwargs):
        calls["n"] += 1
        if calls["n"] == 4:
            raise OperationalError("connection lost")
        return real(**kwargs)

    monkeypatch.setattr(match_simulation, "simulate_match", flaky)
    with pytest.raises(OperationalError):
        simulation.simulation_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == "running" and job.done == 2 and played(season) == 2
    job = simulation.simulation_job_run(job_id=job.pk)  # the task's retry
    assert job.status == "done" and job.done == 6 and played(season) == 6
    assert simulation.simulation_job_run(job_id=job.pk).done == 6  # a done job returns at once


def test_the_same_job_seed_plays_the_same_season():
    from django.db import transaction

    season = make_season(4, with_ninja=True, legal=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)

    class Rollback(Exception):
        pass

    results = []
    for seed in (5, 5, 6):
        try:
            with transaction.atomic():
                job, _ = simulation.simulation_request(
                    actor=season.league.master, scope="season", season=season, seed=seed
                )
                simulation.simulation_job_run(job_id=job.pk)
                results.append(
                    [
                        (m.pk, m.seed, tuple(s.points for s in m.sides.order_by("slot")))
                        for m in season.matches.order_by("round_number", "id")
                    ]
                )
                raise Rollback
        except Rollback:
            pass
    assert results[0] == results[1]
    assert results[0] != results[2]
