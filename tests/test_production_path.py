"""The production path: the Procfile's processes, started as they would be on a host.

Against a PostgreSQL database of its own (created here, dropped at the end) and a Redis database
of its own (on the REDIS_URL server: tests/settings.py's TEST_REDIS_URLS), with DEBUG=0:

* the ``release`` line runs (migrate, which loads the rules catalog, and collectstatic);
* ``web`` (gunicorn, 2 workers, static files from WhiteNoise) serves the home page, the health
  check and a hashed, compressed static file;
* ``worker`` runs a task sent through the broker and answers with the catalog it read from the
  database;
* ``beat`` starts (its log says "beat: Starting...");
* the three stop cleanly on SIGTERM.

Needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL): skips without them, fails in CI.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.conftest import need

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the virtualenv's gunicorn, celery and python

pytestmark = pytest.mark.postgres


def procfile() -> dict[str, str]:
    entries = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, command = line.partition(":")
            entries[name.strip()] = command.strip()
    return entries


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, timeout: float = 5.0):
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        return resp.status, dict(resp.headers), resp.read()


def wait_for(predicate, *, timeout: float, what: str, procs: dict | None = None):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        for name, (proc, log) in (procs or {}).items():
            if proc.poll() is not None:
                pytest.fail(
                    f"{name} exited with {proc.returncode} while waiting for {what}:\n{log.read_text()[-3000:]}"
                )
        try:
            value = predicate()
            if value:
                return value
        except OSError as exc:
            last = exc
        time.sleep(0.25)
    pytest.fail(f"timed out waiting for {what} ({last})")


@pytest.fixture
def own_database():
    """A fresh PostgreSQL database on the DATABASE_URL server, dropped afterwards."""
    url = os.environ.get("DATABASE_URL", "")
    need(url.startswith(("postgres://", "postgresql://")), "PostgreSQL (DATABASE_URL)")
    import psycopg

    parts = urlsplit(url)
    name = f"prodpath_{uuid.uuid4().hex[:10]}"
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def own_redis(redis_url):
    """The REDIS_URL server with a database number of this test's own, emptied before and after."""
    import redis
    from django.conf import settings

    url = settings.TEST_REDIS_URLS["production_path"]
    client = redis.Redis.from_url(url)
    client.flushdb()
    yield url
    client.flushdb()
    client.close()


@pytest.mark.slow(
    reason="runs the Procfile's release, gunicorn, Celery worker and beat against a PostgreSQL database of its own"
)
def test_procfile_processes_serve_run_tasks_and_stop(own_database, own_redis, tmp_path):
    entries = procfile()
    assert {"web", "worker", "beat", "release"} <= set(entries), entries
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_ALLOW_ASYNC", "PYTEST"))},
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "DJANGO_SETTINGS_MODULE": "league.settings",
        "DATABASE_URL": own_database,
        "REDIS_URL": own_redis,
        "DEBUG": "0",
        "SECRET_KEY": "production-path-test-" + uuid.uuid4().hex * 2,
        "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "PORT": str(port),
        "PYTHONUNBUFFERED": "1",
        "STATIC_ROOT": str(tmp_path / "staticfiles"),  # collectstatic into a folder of its own
    }

    # release: migrate (loads the catalog) and collectstatic (WhiteNoise's manifest for DEBUG=0).
    release = subprocess.run(
        ["bash", "-c", entries["release"]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert release.returncode == 0, release.stdout[-2000:] + release.stderr[-3000:]

    procs: dict[str, tuple[subprocess.Popen, Path]] = {}
    try:
        for name in ("web", "worker", "beat"):
            log = tmp_path / f"{name}.log"
            with log.open("wb") as out:
                procs[name] = (
                    subprocess.Popen(
                        ["bash", "-c", f"exec {entries[name]}"],
                        cwd=ROOT,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    ),
                    log,
                )
        base = f"http://127.0.0.1:{port}"

        # web: the home page, the health check and a static file, through gunicorn and WhiteNoise.
        status, _, body = wait_for(lambda: get(base + "/"), timeout=30, what="gunicorn", procs=procs)
        html = body.decode()
        assert status == 200 and "Moonlight League" in html
        assert get(base + "/healthz")[2] == b'{"status": "ok"}'
        css = re.search(r'href="(/static/css/bootstrap\.min\.[0-9a-f]{12}\.css)"', html)
        assert css, "the page does not link a hashed static file (is the manifest storage on?)"
        status, headers, _ = get(base + css.group(1))
        assert status == 200 and headers["Content-Type"].startswith("text/css")
        assert "max-age=315360000" in headers.get("Cache-Control", ""), headers
        req = urllib.request.Request(base + css.group(1), headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert resp.headers.get("Content-Encoding") == "gzip"
        assert get(base + "/rules/")[0] == 200

        # worker: a task through the broker, answered from the database the release migrated.
        from celery import Celery

        # not the current app: under xdist this process runs other tests after this one, whose
        # shared tasks must keep resolving to the site's app (league.celery), not this client
        client = Celery("production-path", broker=own_redis, backend=own_redis, set_as_current=False)
        client.conf.update(task_serializer="json", result_serializer="json", accept_content=["json"])
        try:
            counts = client.send_task("rules.tasks.catalog_summary_task").get(timeout=60)
        finally:
            client.close()
        assert counts and all(v > 0 for v in counts.values()), counts
        assert "catalog_summary_task" in procs["worker"][1].read_text()

        # beat: started with the database scheduler.
        wait_for(lambda: "beat: Starting..." in procs["beat"][1].read_text(), timeout=30, what="beat", procs=procs)
    finally:
        codes = stop_all(procs)
    logs = {name: log.read_text() for name, (_, log) in procs.items()}
    for name, code in codes.items():
        assert code == 0, f"{name} did not stop cleanly (exit {code}):\n{logs[name][-3000:]}"
    assert "Shutting down" in logs["web"]
    assert "ready." in logs["worker"] and "Warm shutdown" in logs["worker"]


def stop_all(procs: dict[str, tuple[subprocess.Popen, Path]]) -> dict[str, int | None]:
    """SIGTERM each process (gunicorn and Celery shut down gracefully on it), wait, and kill the
    process group of any that does not stop in time. Returns the exit codes."""
    for proc, _ in procs.values():
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    codes = {}
    for name, (proc, _) in procs.items():
        try:
            codes[name] = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the group this test started for it
            proc.wait(timeout=10)
            codes[name] = None
    return codes


def test_procfile_parses():
    """The Procfile names the three processes and the release step this test starts."""
    entries = procfile()
    assert shlex.split(entries["web"])[:2] == ["gunicorn", "league.wsgi"]
    assert shlex.split(entries["worker"])[:4] == ["celery", "-A", "league", "worker"]
    assert shlex.split(entries["beat"])[:4] == ["celery", "-A", "league", "beat"]
