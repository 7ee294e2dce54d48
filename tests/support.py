"""What the test packages share: record builders, playing a match through the services or straight
into the database, joining a league, waiting for a worker, a Redis server of the test's own.

Also a throwaway Redis server (`RedisServer`, `celery_on`, `redis_of_our_own`), and a guard that
fails on a field loaded after a fetch that named its fields (`no_deferred_loads`).

The seeded worlds built on these stay with their packages (tests/newsletters/helpers.py: four teams
and two rounds; tests/trust/world.py: every role and state; tests/league/helpers.py: seasons full of
teams); each builds with the helpers here rather than its own copy.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar
from unittest import mock

from django.conf import settings
from django.db.models import Model

from league import services as league_services
from matches import services as match_services
from matches.models import Match
from rules.engine.records import MatchRecord, NinjaRecord, TeamRecord
from rules.models import Challenge
from teams.models import Team

T = TypeVar("T")


@contextlib.contextmanager
def no_deferred_loads() -> Iterator[None]:
    """Fail on any field read from the database after a fetch that named its fields (``only``):
    reading a field left out would load it, a query a row (issue 29, part 2)."""

    def refuse(self, *args, fields=None, **kwargs):
        raise AssertionError(f"{type(self).__name__} loaded {fields} after the fetch")

    with mock.patch.object(Model, "refresh_from_db", refuse):
        yield


# --- results ------------------------------------------------------------------------------------------


def record_for(
    match: Match,
    points: Mapping[int, int] | Sequence[int],
    *,
    feats: Mapping[int, dict] | None = None,
    stars: Mapping[int, list[int]] | None = None,
    healing: tuple[int, ...] = (),
) -> MatchRecord:
    """A valid record of a kicked-off match: every available model played; the Ninja All-Stars are
    ``stars[team_id]`` or else the first models of the roster (one, plus the underdog's extra
    awards). ``points`` by team id, or in slot order."""
    feats = feats or {}
    stars = stars or {}
    match.refresh_from_db()
    sides = list(match.sides.order_by("slot"))
    by_team = points if isinstance(points, Mapping) else {s.team_id: p for s, p in zip(sides, points, strict=True)}
    teams = []
    for side in sides:
        roster = [r for r in side.roster_snapshot if r["available"]]
        wanted = 1 + side.extra_all_stars
        chosen = list(stars.get(side.team_id, []))
        chosen += [r["id"] for r in roster if r["id"] not in chosen][: max(0, wanted - len(chosen))]
        ninjas = tuple(
            NinjaRecord(
                ninja_id=r["id"],
                all_star_awards=1 if r["id"] in chosen[:wanted] else 0,
                in_healing_house=r["id"] in healing,
                **feats.get(r["id"], {}),
            )
            for r in roster
        )
        teams.append(TeamRecord(team_id=side.team_id, points=by_team[side.team_id], ninjas=ninjas))
    return MatchRecord(teams=tuple(teams))


def play_through_services(
    *,
    home: Team,
    away: Team,
    home_points: int,
    away_points: int,
    actor,
    season=None,
    round_number: int | None = None,
    challenge: str = "brawl",
    **record_kw,
) -> Match:
    """Create, kick off and confirm a match through matches.services (``actor``, the league's
    master, enters it), so the whole post-game sequence runs."""
    match = match_services.match_create(
        teams=[home, away], challenge=Challenge.objects.get(slug=challenge), season=season, round_number=round_number
    )
    match_services.match_kick_off(match=match)
    record = record_for(match, {home.pk: home_points, away.pk: away_points}, **record_kw)
    match_services.match_submit_result(match=match, record=record, actor=actor)
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    return match


def set_result(match: Match, home_points: int, away_points: int, *, status: str = Match.Status.CONFIRMED) -> Match:
    """Write a result straight into the database (points and outcomes on both sides, the status):
    for tests that need outcomes, not the post-game sequence."""
    home, away = match.sides.order_by("slot")
    for side, mine, theirs in ((home, home_points, away_points), (away, away_points, home_points)):
        side.points = mine
        side.outcome = "win" if mine > theirs else "loss" if mine < theirs else "draw"
        side.save(update_fields=["points", "outcome"])
    match.status = status
    match.save(update_fields=["status"])
    return match


# --- leagues ------------------------------------------------------------------------------------------


def join(team: Team) -> Team:
    """Accept ``team``'s pending application (into the current season too, when it can join)."""
    league_services.application_accept(team=team)
    team.refresh_from_db()
    return team


# --- workers --------------------------------------------------------------------------------------------


def wait_for(predicate: Callable[[], T], *, timeout: float = 30.0, interval: float = 0.1, what: str = "") -> T:
    """Call ``predicate`` until it returns something true (returned), for ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or 'the worker'}")
        time.sleep(interval)


def wait_for_status(client, url: str, *, timeout: float = 60.0, interval: float = 0.2) -> tuple[dict, list[int]]:
    """Poll a job's status view (outbox.views.task_status) until the job is finished: its last
    answer, and ``done`` as each answer gave it."""
    seen: list[int] = []
    last: dict = {}

    def finished() -> bool:
        nonlocal last
        last = client.get(url).json()
        seen.append(last["done"])
        return last["ready"]

    try:
        wait_for(finished, timeout=timeout, interval=interval, what="the job")
    except AssertionError:
        raise AssertionError(f"not finished in {timeout} s: {last}") from None
    return last, seen


def run_tasks_eagerly():
    """A fixture's body: run tasks in-process unless a test asks for the live worker (which turns
    this off); put the setting back afterwards, so one live-worker test cannot leave the app talking
    to a broker. A package's conftest makes it its fixture:
    ``celery_eager = pytest.fixture(autouse=True)(run_tasks_eagerly)``."""
    from league.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER


# --- a Redis server of the test's own ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                shutil.which("redis-server"),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(50):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None

    def queue_length(self, queue: str = "celery") -> int:
        import redis

        return redis.Redis(port=self.port).llen(queue)


def reset_celery_connections(app) -> None:
    """Forget pooled broker connections and the cached result backend."""
    from outbox.dispatch import reset_broker_connections

    reset_broker_connections(app)
    with contextlib.suppress(AttributeError):
        del app._local.backend


@contextlib.contextmanager
def celery_on(server: RedisServer):
    """Point the Celery app (broker and results) at ``server``, not eager; put it back after."""
    from league.celery import app

    old = (app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager)
    app.conf.broker_url = app.conf.result_backend = server.url
    app.conf.task_always_eager = False
    reset_celery_connections(app)
    try:
        yield app
    finally:
        app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager = old
        reset_celery_connections(app)


@contextlib.contextmanager
def redis_of_our_own() -> Iterator[RedisServer]:
    """A Redis server of the test's own (stopping it harms no one else's broker), with Celery
    pointed at it (broker and results, not eager); everything put back after."""
    from tests.conftest import need

    need(shutil.which("redis-server") is not None, "redis-server")
    server = RedisServer()
    server.start()
    try:
        with celery_on(server):
            yield server
    finally:
        server.stop()


def read_table(client, url: str, testid: str) -> tuple[int, str]:
    """GET ``url`` (a 200 expected): the number of queries it ran, and the HTML of its table marked
    ``data-testid=testid`` (the block the fragment-cache tests compare)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    body = response.content.decode()
    return len(ctx.captured_queries), body[body.index(f'data-testid="{testid}"') :].split("</table>")[0]
