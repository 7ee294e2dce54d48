"""Shared fixtures.

Tests that need a real service (PostgreSQL, Redis, a Celery worker) use the fixtures below. They
skip on a bare machine, but when REQUIRE_SERVICES=1 or CI=true (as .ci/run sets) a missing service
is a failure, never a skip.
"""
from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.db import connection


def services_required() -> bool:
    return os.environ.get("REQUIRE_SERVICES") == "1" or os.environ.get("CI", "").lower() == "true"


def need(condition: bool, what: str) -> None:
    if condition:
        return
    if services_required():
        pytest.fail(f"{what} is required in CI but is not available")
    pytest.skip(f"{what} not configured (set it, or run .ci/run)")


@pytest.fixture
def postgres(db):
    """Requires the default database to be PostgreSQL."""
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    return connection


@pytest.fixture
def postgres_tx(transactional_db):
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    return connection


@pytest.fixture
def redis_url() -> str:
    need(bool(settings.REDIS_URL), "Redis (REDIS_URL)")
    return settings.REDIS_URL


@pytest.fixture
def celery_worker_live(transactional_db, redis_url):
    """A real Celery worker thread consuming from Redis, for tests that go through the broker."""
    from celery.contrib.testing.worker import start_worker

    from league.celery import app

    app.conf.task_always_eager = False
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30) as worker:
        yield worker


@pytest.fixture
def catalog(db):
    """The rules catalog, reloaded if a transactional test flushed it."""
    from rules.catalog import ensure_catalog

    ensure_catalog()


@pytest.fixture(autouse=True)
def _axes_off_unless_asked(request, settings):
    """django-axes needs a request to authenticate; the test client's login() has none. Tests that
    check rate limiting mark themselves `axes` and keep it on."""
    if "axes" not in request.keywords:
        settings.AXES_ENABLED = False
