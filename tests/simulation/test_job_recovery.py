"""Long jobs whose worker stopped (issue 11, finding 4), in-process: heartbeats are recorded, the
periodic check resumes a job with no sign of life (idempotently: nothing played twice), leaves a
live one alone, gives up after the last restart, and a request is refused as "under way" only
while the earlier job is really alive. The end-to-end proof, with a SIGKILLed worker, real Redis
and beat, is tests/trust/test_recovery_live.py."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import InterfaceError, OperationalError
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from league import services as league_services
from league.models import ScheduleRun, Season
from league.services import simulations as simulation
from league.tasks import simulation_job_task
from matches import simulation as match_simulation
from matches.models import Match, SimulationJob, SimulationRun
from outbox.jobs import recover_stale_jobs
from outbox.models import OutboxTask
from outbox.tasks_common import MAX_RETRIES
from tests.factories import LeagueFactory, UserFactory, make_legal_team
from tests.league.helpers import generate

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog", "eager")]

LONG_AGO = dt.timedelta(minutes=10)


@pytest.fixture
def season() -> Season:
    league = LeagueFactory(master=UserFactory(username="recovery-master"))
    season = league_services.season_create(league=league, format=Season.Format.ROUND_ROBIN)
    for clan in ("tora", "ika", "kitsune", "yamazaru"):
        team = make_legal_team(clan, owner=UserFactory(), name=f"Recovery {clan}", league=league)
        league_services.application_accept(team=team)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    return season


def stopped_job(season: Season, *, played: int = 1, restarts: int = 0) -> SimulationJob:
    """A season simulation whose worker died after playing ``played`` matches, ten minutes ago."""
    job, created = simulation.simulation_request(
        actor=season.league.master, scope=SimulationJob.Scope.SEASON, season=season, seed=5
    )
    assert created
    for match in Match.objects.filter(season=season).order_by("id")[:played]:
        match_simulation.simulate_match(match=match, seed=1, policy=job.policy, job=job)
    then = timezone.now() - LONG_AGO
    SimulationJob.objects.filter(pk=job.pk).update(
        status=SimulationJob.Status.RUNNING, total=6, queued_at=then - dt.timedelta(seconds=5), heartbeat_at=then
    )
    SimulationJob.objects.filter(pk=job.pk).update(restarts=restarts)
    job.refresh_from_db()
    return job


def test_the_periodic_check_resumes_a_stopped_job_which_finishes_without_playing_a_match_twice(
    season, django_capture_on_commit_callbacks
):
    job = stopped_job(season)
    assert SimulationRun.objects.filter(match__season=season).count() == 1
    with django_capture_on_commit_callbacks(execute=True):
        outcomes = recover_stale_jobs()
    assert len(outcomes) == 1 and outcomes[0].startswith(f"simulation {job.pk}: The worker stopped")
    job.refresh_from_db()
    assert job.status == SimulationJob.Status.DONE and job.done == job.total == 6
    assert SimulationRun.objects.filter(match__season=season).count() == 6  # the first one not replayed
    assert Match.objects.filter(season=season, status=Match.Status.CONFIRMED).count() == 6
    assert job.restarts == 1
    heard = timezone.localtime(timezone.now() - LONG_AGO).strftime("%H:%M")
    assert job.restart_note.startswith(f"The worker stopped (last heard from at {heard}); resumed at ")
    assert job.heartbeat_at > timezone.now() - dt.timedelta(minutes=1)  # the resumed run beat
    with django_capture_on_commit_callbacks(execute=True):
        assert recover_stale_jobs() == []  # finished: nothing more to do


def test_a_live_job_is_left_alone_and_a_new_request_is_refused_only_while_it_is_alive(
    season, django_capture_on_commit_callbacks, client
):
    job = stopped_job(season)
    SimulationJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now())  # its worker is alive
    with django_capture_on_commit_callbacks(execute=True):
        assert recover_stale_jobs() == []
        again, created = simulation.simulation_request(
            actor=season.league.master, scope=SimulationJob.Scope.SEASON, season=season
        )
    assert not created and again.pk == job.pk and again.request_outcome == "running"
    assert SimulationJob.objects.get(pk=job.pk).status == SimulationJob.Status.RUNNING  # not sent again

    # Its task waits in the outbox (the broker is down): waiting, not "under way", and not sent twice.
    SimulationJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - LONG_AGO)
    stored = OutboxTask.objects.create(
        task_name="matches.tasks.simulation_job_task", args=[job.pk], task_id=job.task_id
    )
    with django_capture_on_commit_callbacks(execute=True):
        again, _ = simulation.simulation_request(
            actor=season.league.master, scope=SimulationJob.Scope.SEASON, season=season
        )
        assert recover_stale_jobs() == []
    assert again.request_outcome == "waiting"
    stored.delete()

    # The worker is gone: asking again resumes it at once, and says so.
    client.force_login(season.league.master)
    url = f"/matches/simulate/{season.league.slug}/{season.number}/season/"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"policy": "auto"}, follow=True)
    page = response.content.decode()
    assert "The earlier simulation here had stopped." in page and "already under way" not in page
    job.refresh_from_db()
    assert job.status == SimulationJob.Status.DONE and job.restarts == 1
    assert SimulationRun.objects.filter(match__season=season).count() == 6
    assert job.restart_note in page


def test_a_job_that_keeps_stopping_is_marked_failed_after_the_last_restart(
    season, settings, django_capture_on_commit_callbacks
):
    job = stopped_job(season, restarts=settings.JOB_MAX_RESTARTS)
    hours_ago = timezone.now() - dt.timedelta(hours=2)  # past the backoff (the stale limit doubles per restart)
    SimulationJob.objects.filter(pk=job.pk).update(heartbeat_at=hours_ago, queued_at=hours_ago)
    with django_capture_on_commit_callbacks(execute=True):
        assert recover_stale_jobs() == [f"simulation {job.pk}: gave up"]
    job.refresh_from_db()
    assert job.status == SimulationJob.Status.FAILED
    assert f"Stopped {settings.JOB_MAX_RESTARTS + 1} times without finishing" in job.error
    assert SimulationRun.objects.filter(match__season=season).count() == 1  # nothing more was played


def test_jobs_record_a_heartbeat_as_they_run(season, django_capture_on_commit_callbacks):
    job, _ = simulation.simulation_request(actor=season.league.master, scope=SimulationJob.Scope.ROUND, season=season)
    assert job.queued_at is not None and job.heartbeat_at is None
    simulation.simulation_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == SimulationJob.Status.DONE and job.heartbeat_at is not None
    assert job.heartbeat_at >= job.queued_at
    run = ScheduleRun.objects.get(season=season)
    assert run.heartbeat_at is not None  # the schedule run beat before its transaction


#: What a task raises when the broker, Redis or the database goes away.
GONE_AWAY = [
    RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    KombuOperationalError("[Errno 111] Connection refused"),
    ConnectionError("[Errno 104] Connection reset by peer"),
    OperationalError("server closed the connection unexpectedly"),
    InterfaceError("connection already closed"),
]


def going_away(monkeypatch, error: Exception) -> dict:
    """Matches after the first round raise ``error`` while ``state["down"]`` (the first round of
    two matches is played and committed, the second undone)."""
    real = match_simulation.simulate_match
    state = {"calls": 0, "down": True}

    def simulate_match(**kwargs):
        state["calls"] += 1
        if state["down"] and state["calls"] > 2:
            raise error
        return real(**kwargs)

    monkeypatch.setattr(match_simulation, "simulate_match", simulate_match)
    return state


@pytest.mark.parametrize("error", GONE_AWAY, ids=lambda e: type(e).__module__.split(".")[0] + "." + type(e).__name__)
def test_a_job_whose_broker_or_database_went_away_is_resumed_like_one_whose_worker_died(
    season, monkeypatch, error, django_capture_on_commit_callbacks
):
    """Issue 27, finding 14: the season simulation ended "failed, 2/6, ConnectionError" for good.
    A job stopped by the broker or the database going away is left unfinished; the periodic check
    resumes it once it shows no sign of life, and it finishes without playing a match twice."""
    job, created = simulation.simulation_request(
        actor=season.league.master, scope=SimulationJob.Scope.SEASON, season=season, seed=5
    )
    assert created
    state = going_away(monkeypatch, error)
    with pytest.raises(type(error)):
        # the task, its retries of a database error spent (the last attempt)
        simulation_job_task.apply(args=[job.pk], retries=MAX_RETRIES, throw=True)
    job.refresh_from_db()
    assert job.status == SimulationJob.Status.RUNNING and job.error == ""
    assert job.done == 2 and SimulationRun.objects.filter(match__season=season).count() == 2
    with django_capture_on_commit_callbacks(execute=True):
        assert recover_stale_jobs() == []  # it beat a moment ago: left alone for now

    state["down"] = False  # back
    with django_capture_on_commit_callbacks(execute=True):
        outcomes = recover_stale_jobs(now=timezone.now() + LONG_AGO)
    assert outcomes and outcomes[0].startswith(f"simulation {job.pk}: The worker stopped")
    job.refresh_from_db()
    assert job.status == SimulationJob.Status.DONE and job.done == job.total == 6 and job.restarts == 1
    assert SimulationRun.objects.filter(match__season=season).count() == 6  # none played twice
    assert Match.objects.filter(season=season, status=Match.Status.CONFIRMED).count() == 6


def test_a_job_whose_connection_keeps_going_away_counts_against_the_restarts(
    season, settings, monkeypatch, django_capture_on_commit_callbacks
):
    job = stopped_job(season, played=0, restarts=settings.JOB_MAX_RESTARTS)
    going_away(monkeypatch, RedisConnectionError("Connection refused"))
    with pytest.raises(RedisConnectionError):
        simulation_job_task.apply(args=[job.pk], retries=MAX_RETRIES, throw=True)
    assert SimulationJob.objects.get(pk=job.pk).status == SimulationJob.Status.RUNNING
    with django_capture_on_commit_callbacks(execute=True):
        assert recover_stale_jobs(now=timezone.now() + dt.timedelta(days=1)) == [f"simulation {job.pk}: gave up"]
    job.refresh_from_db()
    assert job.status == SimulationJob.Status.FAILED
    assert f"Stopped {settings.JOB_MAX_RESTARTS + 1} times without finishing" in job.error
