"""A real Celery worker in a subprocess, for the killed-worker tests."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

ROOT = Path(settings.BASE_DIR)
CELERY = Path(sys.executable).with_name("celery")


def database_url() -> str:
    """The URL of the database the tests use (pytest-django's ``test_<name>``), for a subprocess."""
    s = connection.settings_dict
    auth = quote(s["USER"] or "") + (f":{quote(s['PASSWORD'])}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def wait_until(predicate, timeout: float, what: str, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def subprocess_env(redis_url: str) -> dict[str, str]:
    """The environment of a worker or beat process: the test database and the given Redis."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "league.settings",
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "PYTHONPATH": str(ROOT),
        "AXES_ENABLED": "0",
    }


class _Process:
    """A celery process started by a subclass as ``self.proc``."""

    proc: subprocess.Popen

    def kill(self) -> None:
        """SIGKILL: no clean-up, no acknowledgement, the database connection just drops."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def terminate(self) -> None:
        """SIGTERM, then SIGKILL after 15 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


def procfile_worker_command() -> list[str]:
    """The Procfile's ``worker`` command as production runs it (its pool, its concurrency), with
    the test app (the site's app and the knobs of tests/trust/worker_app.py) for ``league``."""
    line = next(
        line.split(":", 1)[1] for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("worker:")
    )
    argv = shlex.split(line)
    assert argv[:3] == ["celery", "-A", "league"], argv
    return [str(CELERY), "-A", "tests.trust.worker_app", *argv[3:]]


class Worker(_Process):
    """``celery -A tests.trust.worker_app worker -P solo -c 1`` against the test database; with
    ``procfile=True``, the Procfile's own worker command (prefork, its concurrency) instead."""

    def __init__(
        self,
        redis_url: str,
        *,
        pause_file: Path | None = None,
        resume_file: Path | None = None,
        visibility_timeout: float = 2.0,
        env: dict[str, str] | None = None,
        procfile: bool = False,
    ) -> None:
        self.log = tempfile.NamedTemporaryFile(prefix="trust-worker-", suffix=".log", delete=False)  # noqa: SIM115
        env = {**subprocess_env(redis_url), "TRUST_VISIBILITY_TIMEOUT": str(visibility_timeout), **(env or {})}
        env.pop("TRUST_PAUSE_FILE", None)
        env.pop("TRUST_RESUME_FILE", None)
        if pause_file is not None:
            env["TRUST_PAUSE_FILE"] = str(pause_file)
        if resume_file is not None:
            env["TRUST_RESUME_FILE"] = str(resume_file)
        command = (
            procfile_worker_command()
            if procfile
            else [
                str(CELERY),
                "-A",
                "tests.trust.worker_app",
                "worker",
                "-P",
                "solo",
                "-c",
                "1",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-l",
                "INFO",
                "-n",
                f"trust-{os.getpid()}-{id(self)}@%h",
            ]
        )
        self.proc = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def output(self, tail: int = 4000) -> str:
        return Path(self.log.name).read_text(errors="replace")[-tail:]

    def stop(self) -> None:
        self.terminate()
        self.log.close()


class Beat(_Process):
    """``celery -A tests.trust.worker_app beat`` (django-celery-beat's DatabaseScheduler) against
    the test database: it sends the periodic tasks whose entries the test made."""

    def __init__(self, redis_url: str, *, env: dict[str, str] | None = None) -> None:
        self.dir = tempfile.TemporaryDirectory(prefix="trust-beat-")
        self.log = Path(self.dir.name) / "beat.log"
        self._out = self.log.open("w")
        self.proc = subprocess.Popen(
            [
                str(CELERY),
                "-A",
                "tests.trust.worker_app",
                "beat",
                "--max-interval",
                "1",
                "--pidfile",
                str(Path(self.dir.name) / "beat.pid"),
                "--schedule",
                str(Path(self.dir.name) / "schedule"),
                "-l",
                "INFO",
            ],
            cwd=ROOT,
            env={**subprocess_env(redis_url), **(env or {})},
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )

    def output(self, tail: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-tail:]

    def stop(self) -> None:
        self.terminate()
        self._out.close()
        self.dir.cleanup()
