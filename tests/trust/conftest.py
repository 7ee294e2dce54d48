"""Fixtures for the trust tests (permissions, hostile input, failure behaviour)."""

from __future__ import annotations

import pytest
from django.conf import settings


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):
    """The world has several players; hashing their passwords slowly proves nothing here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def celery_eager():
    """Tasks run in-process unless a test turns this off (the failure tests do); the setting is
    put back afterwards so a broker test cannot leave the app talking to a broker."""
    from league.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER
