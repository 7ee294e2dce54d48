"""Fixtures for the newsletter tests (the seeded league lives in tests/newsletters/helpers.py)."""

from __future__ import annotations

import pytest
from django.conf import settings


@pytest.fixture(autouse=True)
def celery_eager():
    """Tasks run in-process unless a test asks for the live worker (which turns eager off); the
    setting is put back afterwards so a live-worker test cannot leave the app on the broker."""
    from league.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER


@pytest.fixture(autouse=True)
def fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def locmem_email(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def seeded(catalog):
    from tests.newsletters.helpers import seed_league

    return seed_league()
