"""Recovery that runs by itself, end to end (issue 11, findings 3 and 4): a real Redis stopped and
started again, real ``celery worker`` and ``celery beat`` processes against the test database
(PostgreSQL), and a worker killed with SIGKILL in the middle of a job.

Beat runs the project's periodic entries (made by ``setup_periodic_tasks``, here with a 1-second
interval) and the workers have short liveness settings (a job is stale after 4 s without a sign
of life); production uses a minute and two minutes. Nothing in these tests sends a task by hand
after the outage or the kill, and Redis's own redelivery is out of the picture: the workers keep
production's one-hour visibility timeout.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse

from league import services as league_services
from league.models import ScheduleRun, Season
from league.services import simulations as simulation
from league.tasks import schedule_generate_task, simulation_job_task
from matches.models import Match, SimulationJob, SimulationRun
from outbox.models import OutboxTask
from tests.factories import LeagueFactory, UserFactory, make_legal_team
from tests.league.helpers import make_season
from tests.support import redis_of_our_own
from tests.trust.workers import Beat, Worker, wait_until

pytestmark = [pytest.mark.usefixtures("catalog"), pytest.mark.celery_worker]

#: Liveness settings of the worker and beat processes (production: 60, 60, 120, 5 seconds).
FAST = {
    "OUTBOX_REDISPATCH_EVERY": "1",
    "JOB_RECOVERY_EVERY": "1",
    "JOB_STALE_SECONDS": "4",
    "JOB_HEARTBEAT_EVERY": "0.5",
}
#: Production's visibility timeout: Redis does not hand an unacknowledged task to another worker
#: within the test, so only the project's own recovery can finish the job.
HOUR = 3600


@pytest.fixture
def own_redis(postgres_tx):
    with redis_of_our_own() as server:
        yield server


@pytest.fixture
def periodic_every_second(settings):
    """The project's periodic entries, as `setup_periodic_tasks --reset` makes them, every second."""
    settings.OUTBOX_REDISPATCH_EVERY = settings.JOB_RECOVERY_EVERY = 1
    call_command("setup_periodic_tasks", reset=True)


def _received(log: str, task: str) -> list[str]:
    """Task ids the worker received, in order, for a task name."""
    return re.findall(rf"Task {re.escape(task)}\[([0-9a-f-]+)\] received", log)


def _simulated_season(prefix: str) -> Season:
    league = LeagueFactory(master=UserFactory(username=f"{prefix}-master"))
    season = league_services.season_create(league=league, format=Season.Format.ROUND_ROBIN)
    for clan in ("tora", "ika", "kitsune", "yamazaru"):
        team = make_legal_team(clan, owner=UserFactory(), name=f"{prefix} {clan}", league=league)
        league_services.application_accept(team=team)
    return season


def _no_other_backends() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0] == 0


# --- finding 3: tasks stored during a broker outage ------------------------------------------------------


@pytest.mark.slow(reason="stops and restarts a Redis server of its own under a real worker and beat")
def test_tasks_stored_while_redis_was_down_go_out_by_themselves(own_redis, periodic_every_second, settings):
    """Redis stops; the master publishes a newsletter (five emails) and asks for a season's
    simulation twice; everything waits in the outbox. Redis comes back; beat's redispatch sends
    each stored task once and a worker runs them: every email sent, the season played."""
    from league.celery import app
    from newsletters import services as newsletter_services
    from newsletters.models import NewsletterDelivery
    from newsletters.periods import Period
    from tests.newsletters.helpers import seed_league

    app.conf.task_always_eager = True  # seed in-process: played rounds and a built draft
    seeded = seed_league()
    draft = newsletter_services.newsletter_request(league=seeded.league, period=Period.round(1, 2))
    season = _simulated_season("outage")
    app.conf.task_always_eager = False

    own_redis.stop()
    newsletter_services.newsletter_publish(newsletter=draft, actor=seeded.league.master)
    deliveries = NewsletterDelivery.objects.filter(newsletter=draft)
    assert deliveries.count() == 5 and set(deliveries.values_list("status", flat=True)) == {"pending"}
    master = Client()
    master.force_login(season.league.master)
    url = reverse("simulation:simulate_season", kwargs={"slug": season.league.slug, "number": season.number})
    first = master.post(url, {"policy": "auto"}, follow=True).content.decode()
    assert "The task queue is unavailable" in first
    again = master.post(url, {"policy": "auto"}, follow=True).content.decode()
    assert "waits for the task queue" in again and "already under way" not in again  # honest, not "under way"
    job = SimulationJob.objects.get(season=season)
    assert SimulationJob.objects.filter(season=season).count() == 1
    stored = OutboxTask.objects.filter(status=OutboxTask.Status.PENDING)
    assert stored.count() == 6  # five emails and the simulation
    call_command("redispatch_outbox")  # still down: nothing is lost, nothing is sent
    assert stored.count() == 6

    own_redis.start()  # back (a fresh, empty server on the same port)
    worker = Worker(own_redis.url, visibility_timeout=HOUR, env=FAST)
    beat = Beat(own_redis.url, env=FAST)
    try:
        wait_until(
            lambda: (
                set(deliveries.values_list("status", flat=True)) == {NewsletterDelivery.Status.SENT}
                and SimulationJob.objects.get(pk=job.pk).status == SimulationJob.Status.DONE
            ),
            120,
            f"beat and the worker to send the stored tasks\n{beat.output()}\n{worker.output()}",
        )
        time.sleep(2)  # a few more redispatch rounds: nothing is sent twice
        log = worker.output(tail=1_000_000)
    finally:
        beat.stop()
        worker.stop()
    assert set(OutboxTask.objects.values_list("status", flat=True)) == {OutboxTask.Status.SENT}
    assert len(_received(log, "newsletters.tasks.newsletter_deliver_task")) == 5  # each email's task once
    assert _received(log, "matches.tasks.simulation_job_task") == [job.task_id]  # once
    assert len(_received(log, "outbox.redispatch")) >= 2  # beat sent it, repeatedly
    assert Match.objects.filter(season=season, status=Match.Status.CONFIRMED).count() == 6
    assert SimulationRun.objects.filter(match__season=season).count() == 6


# --- finding 4: a worker killed mid-job --------------------------------------------------------------------


def _schedule_job(prefix: str):
    season = make_season(8)
    run = league_services.schedule_request(season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, seed=3)

    def send():
        schedule_generate_task.apply_async(args=[run.pk], task_id=run.task_id)

    def done() -> bool:
        return ScheduleRun.objects.get(pk=run.pk).status == ScheduleRun.Status.DONE

    def check():
        matches = Match.objects.filter(season=season).prefetch_related("sides")
        assert matches.count() == 28  # 8 teams, round robin: once, not twice
        assert len({frozenset(s.team_id for s in m.sides.all()) for m in matches}) == 28
        assert ScheduleRun.objects.filter(season=season).count() == 1
        run.refresh_from_db()
        return run, run.get_absolute_url()

    return "league.tasks.schedule_generate_task", run.task_id, send, done, check


def _simulation_job(prefix: str):
    season = _simulated_season(prefix)
    job, created = simulation.simulation_request(
        actor=season.league.master, scope=SimulationJob.Scope.SEASON, season=season, seed=11
    )
    assert created

    def send():
        simulation_job_task.apply_async(args=[job.pk], task_id=job.task_id)

    def done() -> bool:
        return SimulationJob.objects.get(pk=job.pk).status == SimulationJob.Status.DONE

    def check():
        matches = Match.objects.filter(season=season)
        assert matches.count() == 6 and matches.filter(status=Match.Status.CONFIRMED).count() == 6
        assert SimulationRun.objects.filter(match__season=season).count() == 6  # no match played twice
        job.refresh_from_db()
        assert job.done == job.total == 6
        return job, job.get_absolute_url()

    return "matches.tasks.simulation_job_task", job.task_id, send, done, check


@pytest.mark.slow(reason="kills a real Celery worker mid-job and waits for beat and a second worker to resume it")
@pytest.mark.parametrize("make_job", [_schedule_job, _simulation_job], ids=["schedule", "simulation"])
def test_a_killed_workers_job_is_resumed_by_beat(own_redis, periodic_every_second, tmp_path, make_job):
    """The worker is SIGKILLed after the job's first progress; a new worker and beat are started.
    Within seconds of the stale limit the recovery task (beat) sends the job's task again; the
    job finishes without duplicating anything, and its page says what happened. Before: the job
    stayed "pending 1/66" or "running 9/66" for an hour (the visibility timeout)."""
    task_name, task_id, send, done, check = make_job("killed")
    pause = tmp_path / "paused.json"
    first = Worker(own_redis.url, pause_file=pause, visibility_timeout=HOUR, env=FAST)
    try:
        send()
        wait_until(pause.exists, 60, f"the worker to start the job ({first.output()})")
        report = json.loads(wait_until(lambda: pause.read_text() or None, 5, "the progress report"))
        assert report["meta"]["done"] >= 1
        first.kill()
    finally:
        first.stop()
    wait_until(_no_other_backends, 15, "PostgreSQL to end the killed worker's session")
    assert not done()
    killed = time.monotonic()
    second = Worker(own_redis.url, visibility_timeout=HOUR, env=FAST)
    beat = Beat(own_redis.url, env=FAST)
    try:
        wait_until(done, 90, f"beat to resume the job\n{beat.output()}\n{second.output()}")
        recovered_in = time.monotonic() - killed
        log = second.output(tail=1_000_000)
    finally:
        beat.stop()
        second.stop()
    # resumed by the stale-job check (stale after 4 s here; minutes in production), long before
    # Redis would give the message back at its visibility timeout (an hour)
    assert recovered_in < HOUR / 40, recovered_in
    assert _received(log, task_name) == [task_id]  # sent again once, by the recovery
    assert len(_received(log, "outbox.recover_stale_jobs")) >= 1
    job, url = check()
    assert job.restarts == 1 and job.restart_note.startswith("The worker stopped"), job.restart_note
    page = Client().get(url).content.decode()
    assert job.restart_note in page and "resumed at" in page


# --- issue 27, finding 13: a broker outage while a job runs ------------------------------------------------


def _connected(worker: Worker) -> int:
    """How many times the worker has connected to the broker."""
    return worker.output(tail=1_000_000).count("] Connected to ")


def _given_up(worker: Worker) -> bool:
    """The worker exited, or its main process gave up (it then waits for the running task and exits)."""
    return worker.proc.poll() is not None or "Unrecoverable error" in worker.output(tail=1_000_000)


@pytest.mark.slow(reason="stops and restarts a Redis server of its own under the Procfile's prefork worker mid-job")
def test_the_worker_outlives_a_redis_outage_during_a_job(own_redis, tmp_path):
    """The Procfile's worker (prefork, two processes) is in the middle of a season's simulation
    when Redis stops; two more seasons' simulations are asked for meanwhile and wait in the outbox.
    Redis comes back on the same port (empty: it keeps nothing on disk). The same worker process
    reconnects by itself, finishes the running job, and runs each stored task once when it is sent
    again. Before (Celery 5.7.0): "Unrecoverable error: AttributeError('NoneType' object has no
    attribute 'hostname')" while restoring the running task's message, and every worker process
    exited."""
    from outbox.dispatch import dispatch_now

    running, *stored = (_simulated_season(f"outage-{n}") for n in range(3))
    jobs = []
    for season in (running, *stored):
        job, created = simulation.simulation_request(
            actor=season.league.master, scope=SimulationJob.Scope.SEASON, season=season, seed=5
        )
        assert created
        jobs.append(job)
    pause, resume = tmp_path / "paused.json", tmp_path / "resume"
    worker = Worker(own_redis.url, pause_file=pause, resume_file=resume, visibility_timeout=HOUR, procfile=True)
    try:
        wait_until(lambda: _connected(worker), 60, f"the worker to connect\n{worker.output()}")
        assert dispatch_now(simulation_job_task, args=[jobs[0].pk], task_id=jobs[0].task_id)
        wait_until(pause.exists, 60, f"the worker to start the job\n{worker.output()}")

        own_redis.stop()  # mid-job
        for job in jobs[1:]:
            assert not dispatch_now(simulation_job_task, args=[job.pk], task_id=job.task_id)  # stored
        assert OutboxTask.objects.filter(status=OutboxTask.Status.PENDING).count() == 2
        wait_until(
            lambda: "Connection to broker lost" in worker.output(tail=1_000_000) or worker.proc.poll() is not None,
            30,
            f"the worker to notice the outage\n{worker.output()}",
        )
        own_redis.start()  # back, on the same port
        wait_until(
            lambda: _connected(worker) >= 2 or _given_up(worker),
            60,
            f"the worker to reconnect\n{worker.output()}",
        )
        assert not _given_up(worker), f"the worker is shutting down for good\n{worker.output(12_000)}"
        resume.touch()  # the running job goes on

        call_command("redispatch_outbox")  # what beat does every minute
        assert set(OutboxTask.objects.values_list("status", flat=True)) == {OutboxTask.Status.SENT}
        wait_until(
            lambda: all(SimulationJob.objects.get(pk=job.pk).status == SimulationJob.Status.DONE for job in jobs),
            120,
            f"the worker to finish every job\n{worker.output()}",
        )
        time.sleep(1)  # nothing runs twice a moment later
        assert worker.proc.poll() is None, worker.output()
        log = worker.output(tail=1_000_000)
    finally:
        worker.stop()
    assert sorted(_received(log, "matches.tasks.simulation_job_task")) == sorted(job.task_id for job in jobs)
    for season in (running, *stored):
        assert Match.objects.filter(season=season, status=Match.Status.CONFIRMED).count() == 6
        assert SimulationRun.objects.filter(match__season=season).count() == 6  # no match played twice
