"""With the broker stopped, dispatch never breaks a request: tasks wait in the outbox and go out
when the broker is back. Uses a throwaway redis-server of its own so stopping it harms nothing."""

import time

import pytest

from outbox.dispatch import CONNECT_TIMEOUT, dispatch_now, pending_count, redispatch_pending
from outbox.models import OutboxTask
from rules.tasks import catalog_summary_task
from tests.support import redis_of_our_own


@pytest.fixture
def own_redis():
    with redis_of_our_own() as server:
        yield server


def test_dispatch_with_broker_down_is_stored_and_sent_later(db, own_redis):
    assert dispatch_now(catalog_summary_task, description="while up") is True
    assert own_redis.queue_length() == 1
    own_redis.stop()
    started = time.monotonic()
    assert dispatch_now(catalog_summary_task, description="while down") is False
    # fails fast, the page is not held up: within the dispatch's own connect timeout (one attempt,
    # one retry), not Celery's retries of twenty seconds and more
    assert time.monotonic() - started < 2.5 * CONNECT_TIMEOUT
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
