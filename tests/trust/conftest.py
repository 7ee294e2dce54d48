"""Fixtures for the trust tests (permissions, hostile input, failure behaviour)."""

from __future__ import annotations

import pytest
from django.conf import settings

from tests.trust.world import seed_world
from tests.worlds import shared_world

#: The trust world (tests/trust/world.py), built once per module and rolled back between tests.
world_built, world = shared_world(seed_world)


@pytest.fixture(autouse=True)
def celery_eager():
    """Tasks run in-process unless a test turns this off (the failure tests do); the setting is
    put back afterwards so a broker test cannot leave the app talking to a broker."""
    from league.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER
