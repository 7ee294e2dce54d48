"""The Redis broker transport (``CELERY_BROKER_TRANSPORT``): kombu's own, except that a channel of a
connection already closed says so with a connection error.

Why (issue 27, finding 13): with Celery 5.7.0 and kombu 5.7.0, when Redis drops while a task runs
(``acks_late``), the worker's consumer collects the lost connection, which detaches its transport,
and then closes it; closing the channel hands the running task's message back to Redis, and when
the task finishes its acknowledgement goes to that same channel. Through the detached transport
both raise ``AttributeError: 'NoneType' object has no attribute 'hostname'``, which is not one of
the connection errors Celery expects there, so the consumer stops ("Unrecoverable error") and every
worker process exits. As a connection error the message is logged and the consumer reconnects.

A message the old channel could not hand back or acknowledge stays unacknowledged in Redis (if Redis
kept it) and is delivered again after the visibility timeout; the tasks are safe to run twice.
docs/operations.md, "The worker and a broker outage"; tests/trust/test_recovery_live.py.
"""

from __future__ import annotations

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous=False):
        if self.connection.client is None:  # the connection was closed (lost, then collected)
            raise RedisConnectionError("The broker connection this channel belonged to is closed.")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel
