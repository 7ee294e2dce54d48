"""A throwaway redis-server of the test's own (copied from tests/outbox/test_broker_down.py), so
stopping it harms no one else's broker, and a helper to point the Celery app at it."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time


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
