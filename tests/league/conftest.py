"""Fixtures for the league tests (helpers live in tests/league/helpers.py)."""

from __future__ import annotations

import pytest
from django.conf import settings


@pytest.fixture(autouse=True)
def celery_eager():
    """Run tasks in-process unless a test asks for the live worker (which turns this off); put
    the setting back afterwards, so one live-worker test cannot leave the app talking to a broker."""
    from league.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):
    """These tests create many players; hashing their passwords slowly proves nothing here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
