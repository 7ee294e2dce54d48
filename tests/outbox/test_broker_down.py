"""With the broker stopped, dispatch never breaks a request: tasks wait in the outbox and go out
when the broker is back. Uses a throwaway redis-server of its own so stopping it harms nothing."""

import shutil
import socket
import subprocess
import time

import pytest

from outbox.dispatch import dispatch_now, pending_count, redispatch_pending
from outbox.models import OutboxTask
from rules.tasks import catalog_summary_task
from tests.conftest import need


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Redis:
    def __init__(self):
        self.port = _free_port()
        self.proc = None

    def start(self):
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

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None

    def queue_length(self) -> int:
        import redis

        return redis.Redis(port=self.port).llen("celery")


def reset_pool(app):
    from outbox.dispatch import reset_broker_connections

    reset_broker_connections(app)


@pytest.fixture
def own_redis():
    need(shutil.which("redis-server") is not None, "redis-server")
    server = Redis()
    server.start()
    from league.celery import app

    old = (app.conf.broker_url, app.conf.task_always_eager)
    app.conf.broker_url = f"redis://127.0.0.1:{server.port}/0"
    app.conf.task_always_eager = False
    reset_pool(app)
    try:
        yield server
    finally:
        server.stop()
        app.conf.broker_url, app.conf.task_always_eager = old
        reset_pool(app)


def test_dispatch_with_broker_down_is_stored_and_sent_later(db, own_redis):
    assert dispatch_now(catalog_summary_task, description="while up") is True
    assert own_redis.queue_length() == 1
    own_redis.stop()
    started = time.monotonic()
    assert dispatch_now(catalog_summary_task, description="while down") is False
    assert time.monotonic() - started < 5  # fails fast, the page is not held up
    item = OutboxTask.objects.get()
    assert item.status == OutboxTask.Status.PENDING and item.description == "while down"
    assert redispatch_pending() == 0  # still down: nothing lost, nothing sent
    assert pending_count() == 1
    own_redis.start()  # a fresh server: the queue starts empty
    sent = redispatch_pending()
    assert sent == 1, OutboxTask.objects.values_list("last_error", "attempts")[0]
    assert own_redis.queue_length() == 1
    item.refresh_from_db()
    assert item.status == OutboxTask.Status.SENT and item.sent_at is not None
