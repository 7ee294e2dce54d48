"""Failure behaviour: Redis stopped, a Celery worker killed mid-task, a PostgreSQL connection
dropped mid-request.

* Redis down: a throwaway redis-server of the test's own is started and stopped (so no one
  else's broker is harmed); the Celery app's broker and result backend point at it.
* Killed worker: real ``celery worker`` subprocesses against the test database (PostgreSQL,
  committed data: ``postgres_tx``) and the Redis of REDIS_URL (use a database number of your own,
  e.g. redis://127.0.0.1:6379/5). Redelivery is Redis's own: the worker app of these tests
  (tests/trust/worker_app.py) sets a 2-second visibility timeout, so the task the killed worker
  never acknowledged (acks_late) is handed to the next worker. Nothing re-sends it by hand.
"""

from __future__ import annotations

import json
import time

import pytest
from django.db import connection, connections, transaction
from django.test import Client
from django.urls import reverse

from league import services as league_services
from league.models import ScheduleRun
from league.tasks import schedule_generate_task
from matches.models import Match
from outbox.dispatch import pending_count, redispatch_pending
from outbox.models import OutboxTask
from rules.models import Profile
from teams.models import Ninja, Team, TreasuryEntry
from tests.league.helpers import make_season
from tests.support import redis_of_our_own
from tests.trust.matrix import ANY, READ_ONLY, RULES, client_for, request
from tests.trust.workers import Worker, wait_until
from tests.trust.world import World, choose_pending_rolls, seed_world

pytestmark = pytest.mark.usefixtures("catalog")


# --- Redis stopped ----------------------------------------------------------------------------------


@pytest.fixture
def own_redis():
    with redis_of_our_own() as server:
        yield server


@pytest.fixture
def world(catalog) -> World:
    return seed_world()


def _in_progress(world: World) -> list[str]:
    """Put a task of each kind in progress, so the status pages ask the result backend."""
    from django.apps import apps

    urls = [reverse("league:task_status", kwargs={"task_id": world.run.task_id})]  # the run is pending
    if apps.is_installed("newsletters"):
        draft = world.extra["draft"]
        type(draft).objects.filter(pk=draft.pk).update(build_status="running")
        urls.append(reverse("newsletters:status", kwargs={"league_slug": world.league.slug, "key": draft.period_key}))
    if "simulation" in world.extra:
        job = world.extra["simulation"]
        type(job).objects.filter(pk=job.pk).update(status="running")
        urls.append(reverse("simulation:simulation_status", kwargs={"task_id": job.task_id}))
    return urls


@pytest.mark.slow(reason="a Redis server of its own, stopped, and every page of the site as five roles")
def test_with_redis_down_every_page_renders(world, own_redis):
    status_urls = _in_progress(world)
    own_redis.stop()
    clients = {role: client_for(world, role) for role in ("anonymous", "player", "other_player", "master", "staff")}
    seen = 0
    for name, cases in RULES.items():
        for case in cases:
            if not case.get:
                continue
            url = reverse(name, kwargs=case.kwargs(world))
            for role in sorted(case.get & set(clients)):
                started = time.monotonic()
                resp = request(clients[role], "GET", url, track=False)  # rolled back (result entry kicks off)
                assert not resp.error, (url, role, resp.error)
                assert resp.status in (200, 302), (url, role, resp.status)
                if case.get == ANY and case.post == READ_ONLY:  # a public page
                    assert resp.status == 200, (url, role)
                assert time.monotonic() - started < 5, f"{url} waited for the broker"
                seen += 1
    assert seen > 80
    for url in status_urls:  # the progress bars' JSON, while the result backend is unreachable
        assert clients["master"].get(url).status_code == 200


def result_post_data(match: Match) -> dict:
    """A complete result form: every available model played, the first ones Ninja All-Stars."""
    match.refresh_from_db()
    data = {}
    for side in match.sides.order_by("slot"):
        data[f"s{side.slot}_points"] = "3" if side.slot == 1 else "1"
        roster = [r for r in side.roster_snapshot if r["available"]]
        for i, row in enumerate(roster):
            data[f"n{row['id']}_played"] = "on"
            if i < 1 + side.extra_all_stars:
                data[f"n{row['id']}_allstar"] = "on"
        for row in side.roster_snapshot:
            if row["is_ronin"]:
                data[f"u{row['id']}"] = "pay"
    return data


def test_with_redis_down_a_result_is_entered_and_confirmed(world, own_redis, django_capture_on_commit_callbacks):
    own_redis.stop()
    choose_pending_rolls(world)  # a team with an unchosen advancement roll cannot kick off
    match = world.open_match
    ledger_before = TreasuryEntry.objects.count()
    player, opponent = client_for(world, "player"), client_for(world, "other_player")
    url = reverse("matches:result", kwargs={"pk": match.pk})
    kick_off = reverse("matches:kick_off", kwargs={"pk": match.pk})
    assert player.post(kick_off, {"next": "result"}).status_code == 302  # the kick-off button
    assert player.get(url).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        resp = player.post(url, result_post_data(match))
    assert resp.status_code == 302, resp.context["form"].errors if resp.context else resp
    match.refresh_from_db()
    assert match.status == Match.Status.SUBMITTED
    with django_capture_on_commit_callbacks(execute=True):
        resp = opponent.post(reverse("matches:confirm", kwargs={"pk": match.pk}), {"decision": "confirm"})
    assert resp.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED and match.sequence_applied_at is not None
    assert TreasuryEntry.objects.count() > ledger_before  # the post-game sequence ran: revenue paid
    # ...and it needed no task: those waiting in the outbox are the strength ratings' recompute
    # (issue 16) and the notification emails (issue 14: the opponent told a result waits, the
    # submitter told it was confirmed), dispatched after each commit and sent when the broker is back.
    from outbox.models import OutboxTask

    pending = list(OutboxTask.objects.filter(status=OutboxTask.Status.PENDING).values_list("task_name", "kwargs"))
    assert pending_count() == len(pending)
    assert [name for name, _kwargs in pending].count("stats.ratings_recompute") == 1
    mails = [kwargs for name, kwargs in pending if name == "outbox.send_mail"]
    assert len(pending) == 1 + len(mails)
    subjects = {(tuple(m["to"]), m["subject"].split(":")[1].strip()) for m in mails}
    assert ((world.users["other_player"].email,), "A result waits for your confirmation") in subjects
    assert ((world.users["player"].email,), "Result confirmed") in subjects


@pytest.mark.slow(reason="a Redis server of its own stopped and started again, and a real Celery worker")
def test_with_redis_down_schedule_generation_waits_and_completes_when_redis_is_back(transactional_db, own_redis):
    """The page says generation is delayed; the task waits in the outbox; when Redis is back it is
    sent again and a real worker (a thread here) generates the schedule, once."""
    from celery.contrib.testing.worker import start_worker

    season = make_season(4)
    master = Client(raise_request_exception=True)
    master.force_login(season.league.master)
    own_redis.stop()
    started = time.monotonic()
    resp = master.post(
        reverse("league:schedule_generate", kwargs={"slug": season.league.slug, "number": season.number}),
        {"kind": "round_robin", "round_number": 0},
        follow=True,
    )
    assert time.monotonic() - started < 5, "the request waited for the broker"
    run = ScheduleRun.objects.get(season=season)
    assert resp.status_code == 200 and run.status == ScheduleRun.Status.PENDING
    page = resp.content.decode()
    assert "The task runner is unreachable just now" in page  # the message after the POST
    assert "Waiting for the task runner" in page  # the progress page itself
    item = OutboxTask.objects.get()
    assert item.task_id == run.task_id and item.args == [run.pk] and item.status == OutboxTask.Status.PENDING
    status = master.get(reverse("league:task_status", kwargs={"task_id": run.task_id})).json()
    assert status["delayed"] and status["state"] == "PENDING" and not status["ready"]
    assert redispatch_pending() == 0  # still down: kept for later

    own_redis.start()  # Redis is back (a fresh, empty server on the same port)
    assert redispatch_pending() == 1
    assert own_redis.queue_length() == 1
    from league.celery import app

    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        wait_until(
            lambda: ScheduleRun.objects.get(pk=run.pk).status == ScheduleRun.Status.DONE,
            60,
            "the worker to generate the schedule",
        )
    assert Match.objects.filter(season=season).count() == 6
    assert OutboxTask.objects.get().status == OutboxTask.Status.SENT
    page = master.get(run.get_absolute_url()).content.decode()
    assert "6 fixtures created" in page and "Waiting for the task runner" not in page


# --- a worker killed mid-task -------------------------------------------------------------------------


@pytest.fixture
def live_broker(postgres_tx, redis_url):
    """The app publishes to REDIS_URL; its queue keys there start empty (a database of our own)."""
    import redis

    from league.celery import app
    from tests.support import reset_celery_connections

    client = redis.Redis.from_url(redis_url)
    client.delete("celery", "unacked", "unacked_index", "unacked_mutex")
    app.conf.task_always_eager = False
    reset_celery_connections(app)
    yield client
    reset_celery_connections(app)


#: Tasks a job's writes dispatch after they commit, not the job's own: the ratings recomputation
#: of each confirmed result (issue 16) and the notification mails of new fixtures (issue 14).
FOLLOW_UP_TASKS = ("stats.ratings_recompute", "outbox.send_mail")


def _queued_jobs(broker) -> list[str]:
    """The tasks still queued, leaving out the ratings recomputations that each confirmed result
    dispatches (stats.ratings_recompute, issue 16): a job's task redelivered a third time would be here."""
    names = [json.loads(raw)["headers"]["task"] for raw in broker.lrange("celery", 0, -1)]
    return [name for name in names if name not in FOLLOW_UP_TASKS]


def _kill_mid_task(redis_url: str, tmp_path, send, *, nothing_partial, done, what: str) -> None:
    """Start a worker that pauses after the task's first progress report; send the task; kill
    the worker there (SIGKILL); check nothing partial was written; start a second worker and
    wait until Redis redelivers the unacknowledged task to it and it completes."""
    pause = tmp_path / "paused.json"
    first = Worker(redis_url, pause_file=pause)
    try:
        send()
        wait_until(pause.exists, 60, f"the worker to start {what} ({first.output()})")
        report = json.loads(wait_until(lambda: pause.read_text() or None, 5, "the progress report"))
        assert report["meta"]["done"] >= 1  # it had made progress ...
        nothing_partial()  # ... but nothing of it is visible: one transaction, not committed
        first.kill()
    finally:
        first.stop()
    wait_until(_no_other_backends, 15, "PostgreSQL to end the killed worker's session")
    nothing_partial()  # rolled back, not half-written
    second = Worker(redis_url)
    try:
        wait_until(done, 90, f"the redelivered task to complete {what} ({second.output()})")
        wait_until(lambda: "succeeded" in second.output(), 10, "the worker to log the task's success")
        log = second.output(tail=100_000)
        # The task under test, not the follow-up tasks its writes dispatch (FOLLOW_UP_TASKS).
        job_log = "\n".join(line for line in log.splitlines() if not any(t in line for t in FOLLOW_UP_TASKS))
        # Redis handed the task the killed worker never acknowledged to the new worker, once.
        assert job_log.count("] received") == 1 and job_log.count("] succeeded") == 1, log
    finally:
        second.stop()


def _no_other_backends() -> bool:
    """No other session on the test database (the killed worker's is gone, its locks released)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0] == 0


@pytest.mark.slow(reason="kills a real Celery worker process mid-task and starts another")
@pytest.mark.celery_worker
def test_worker_killed_while_generating_a_schedule(live_broker, redis_url, tmp_path):
    season = make_season(8)
    run = league_services.schedule_request(season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, seed=3)

    def nothing_partial():
        assert Match.objects.filter(season=season).count() == 0
        assert ScheduleRun.objects.get(pk=run.pk).status == ScheduleRun.Status.PENDING

    def done():
        return ScheduleRun.objects.get(pk=run.pk).status == ScheduleRun.Status.DONE

    _kill_mid_task(
        redis_url,
        tmp_path,
        lambda: schedule_generate_task.apply_async(args=[run.pk], task_id=run.task_id),
        nothing_partial=nothing_partial,
        done=done,
        what="the schedule",
    )
    matches = Match.objects.filter(season=season).prefetch_related("sides")
    assert matches.count() == 28  # 8 teams, round robin: once, not twice
    assert len({frozenset(s.team_id for s in m.sides.all()) for m in matches}) == 28
    assert ScheduleRun.objects.filter(season=season).count() == 1
    assert live_broker.hlen("unacked") == 0 and _queued_jobs(live_broker) == []  # acknowledged: no third run


@pytest.mark.slow(reason="kills a real Celery worker process mid-task and starts another")
@pytest.mark.celery_worker
def test_worker_killed_while_building_a_newsletter(live_broker, redis_url, tmp_path, settings):
    from newsletters import services as newsletter_services
    from newsletters.models import Newsletter
    from newsletters.periods import Period
    from tests.newsletters.helpers import seed_league

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    from league.celery import app

    app.conf.task_always_eager = True  # seed the league (and its played rounds) in-process
    seeded = seed_league()
    app.conf.task_always_eager = False
    period = Period.round(seeded.season.number, 2)

    def nothing_partial():
        newsletter = Newsletter.objects.get(league=seeded.league, period_key=period.key)
        assert newsletter.builds == 0 and newsletter.sections == {} and newsletter.content_html == ""
        assert newsletter.build_status != Newsletter.BuildStatus.DONE

    def done():
        return Newsletter.objects.get(league=seeded.league, period_key=period.key).build_status == "done"

    _kill_mid_task(
        redis_url,
        tmp_path,
        lambda: newsletter_services.newsletter_request(league=seeded.league, period=period, actor=seeded.league.master),
        nothing_partial=nothing_partial,
        done=done,
        what="the newsletter",
    )
    newsletter = Newsletter.objects.get(league=seeded.league, period_key=period.key)
    assert Newsletter.objects.filter(league=seeded.league).count() == 1
    assert newsletter.builds == 1 and newsletter.sections["reports"] and "Foxes" in newsletter.content_html
    assert live_broker.hlen("unacked") == 0 and _queued_jobs(live_broker) == []


@pytest.mark.slow(reason="kills a real Celery worker process mid-task and starts another")
@pytest.mark.celery_worker
def test_worker_killed_while_simulating_a_season(live_broker, redis_url, tmp_path):
    """Each simulated round is one transaction (4 teams: two matches a round): killed after the
    first round, its matches are wholly played and the others untouched; the redelivered task
    carries on and plays each match exactly once."""
    from league.models import Season
    from league.services import simulations as simulation
    from league.tasks import simulation_job_task
    from matches.models import MatchNinja, SimulationJob, SimulationRun
    from tests.factories import LeagueFactory, UserFactory, make_legal_team

    league = LeagueFactory(master=UserFactory(username="sim-master"))
    season = league_services.season_create(league=league, format=Season.Format.ROUND_ROBIN)
    for clan in ("tora", "ika", "kitsune", "yamazaru"):
        team = make_legal_team(clan, owner=UserFactory(), name=f"Sim {clan}", league=league)
        league_services.application_accept(team=team)
    job, created = simulation.simulation_request(
        actor=league.master, scope=SimulationJob.Scope.SEASON, season=season, seed=11
    )
    assert created

    def whole_or_untouched():
        for match in Match.objects.filter(season=season):
            runs = SimulationRun.objects.filter(match=match).count()
            records = MatchNinja.objects.filter(side__match=match).count()
            revenue = TreasuryEntry.objects.filter(match=match).count()
            if match.status == Match.Status.SCHEDULED:
                assert (runs, records, revenue, match.sequence_applied_at) == (0, 0, 0, None), match
            else:
                assert match.status == Match.Status.CONFIRMED and match.sequence_applied_at and runs == 1, match
                assert records > 0 and revenue > 0, match
        return True

    def nothing_partial():
        whole_or_untouched()
        played = Match.objects.filter(season=season, status=Match.Status.CONFIRMED).count()
        assert SimulationJob.objects.get(pk=job.pk).done == played <= 2

    def done():
        return SimulationJob.objects.get(pk=job.pk).status == SimulationJob.Status.DONE

    _kill_mid_task(
        redis_url,
        tmp_path,
        lambda: simulation_job_task.apply_async(args=[job.pk], task_id=job.task_id),
        nothing_partial=nothing_partial,
        done=done,
        what="the season's simulation",
    )
    whole_or_untouched()
    matches = Match.objects.filter(season=season)
    assert matches.count() == 6 and matches.filter(status=Match.Status.CONFIRMED).count() == 6
    assert SimulationRun.objects.filter(match__season=season).count() == 6  # no match played twice
    job.refresh_from_db()
    assert job.done == job.total == 6
    assert live_broker.hlen("unacked") == 0 and _queued_jobs(live_broker) == []


# --- a PostgreSQL connection dropped mid-request ---------------------------------------------------------


def _terminate_this_connection() -> None:
    """End the request's own database session from a second connection (as an administrator or
    a failover would), with the request's transaction open."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    killer = connections.create_connection("default")
    try:
        with killer.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        killer.close()


def test_connection_dropped_mid_recruit_rolls_back(postgres_tx, monkeypatch):
    """The connection dies after every write of the recruitment (ninja, ledger row, treasury)
    and before the commit: nothing is kept, the answer is a 500 (not a hang), and the next
    request works on a new connection."""
    import teams.services

    world = seed_world()
    team = world.free_team
    profile = Profile.objects.get(slug="yamazaru-kaiken")
    before = (Ninja.objects.count(), TreasuryEntry.objects.count(), Team.objects.get(pk=team.pk).treasury)
    real_post = teams.services.treasury_post

    def post_then_drop(**kwargs):
        entry = real_post(**kwargs)
        _terminate_this_connection()
        return entry

    monkeypatch.setattr(teams.services, "treasury_post", post_then_drop)
    client = Client(raise_request_exception=False)
    client.force_login(world.users["player"])
    url = reverse("teams:recruit_profile", kwargs={"pk": team.pk, "slug": profile.slug})
    started = time.monotonic()
    resp = client.post(url, {"name": "Lost Cub"})
    dropped = time.monotonic() - started
    assert resp.status_code == 500
    monkeypatch.setattr(teams.services, "treasury_post", real_post)
    assert not connection.in_atomic_block
    after = (Ninja.objects.count(), TreasuryEntry.objects.count(), Team.objects.get(pk=team.pk).treasury)
    assert after == before  # rolled back: no ninja, no ledger row, the treasury unchanged
    assert not Ninja.objects.filter(name="Lost Cub").exists()
    # the next request gets a fresh connection and works
    started = time.monotonic()
    resp = client.post(url, {"name": "Found Cub"})
    healthy = time.monotonic() - started
    assert resp.status_code == 302
    # not a hang: the failed request cost no more than a few of the same request that worked
    assert dropped < 20 * healthy, f"the dropped request took {dropped:.2f} s, the healthy one {healthy:.2f} s"
    assert Ninja.objects.filter(team=team, name="Found Cub").exists()
    assert Team.objects.get(pk=team.pk).treasury == before[2] - profile.koban


def test_connection_dropped_mid_request_propagates_when_asked(postgres_tx, monkeypatch):
    """With exceptions propagated (DEBUG_PROPAGATE_EXCEPTIONS, as the test client does), the
    database error itself reaches the caller, and still nothing is written."""
    from django.db import Error

    import teams.services

    world = seed_world()
    real_post = teams.services.treasury_post

    def drop_then_post(**kwargs):
        _terminate_this_connection()
        return real_post(**kwargs)

    monkeypatch.setattr(teams.services, "treasury_post", drop_then_post)
    client = client_for(world, "player")
    count = Ninja.objects.count()
    url = reverse("teams:recruit_profile", kwargs={"pk": world.free_team.pk, "slug": "yamazaru-kaiken"})
    with pytest.raises(Error):
        client.post(url, {"name": "Lost Cub"})
    connection.close()  # what the end of a request does with a broken connection
    with transaction.atomic():
        assert Ninja.objects.count() == count


def test_with_redis_down_a_newsletter_build_waits_in_the_outbox(world, own_redis, django_capture_on_commit_callbacks):
    from newsletters import selectors as newsletter_selectors
    from newsletters.models import Newsletter

    period = newsletter_selectors.period_choices(world.league)[0][0]
    own_redis.stop()
    master = client_for(world, "master")
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        resp = master.post(reverse("newsletters:build", kwargs={"league_slug": world.league.slug}), {"period": period})
    assert time.monotonic() - started < 5, "the request waited for the broker"
    assert resp.status_code == 302
    newsletter = Newsletter.objects.get(league=world.league, period_key=period)
    assert newsletter.build_status == Newsletter.BuildStatus.PENDING
    item = OutboxTask.objects.get()
    assert item.task_name == "newsletters.tasks.newsletter_build_task" and item.args == [newsletter.pk]
    page = master.get(newsletter.get_absolute_url())
    assert page.status_code == 200
    assert b'aria-live="polite">Waiting for the task runner' in page.content  # the message, not the script
    status = master.get(reverse("newsletters:status", kwargs={"league_slug": world.league.slug, "key": period})).json()
    assert status["delayed"] is True
