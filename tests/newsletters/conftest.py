"""Fixtures for the newsletter tests (the seeded league lives in tests/newsletters/helpers.py)."""

from __future__ import annotations

import pytest

from tests.support import run_tasks_eagerly

#: Tasks run in-process in these tests, unless a test asks for the live worker.
celery_eager = pytest.fixture(autouse=True)(run_tasks_eagerly)


@pytest.fixture(autouse=True)
def locmem_email(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://league.example"  # every email and feed link is on it (common/site.py)


@pytest.fixture
def seeded(catalog):
    from tests.newsletters.helpers import seed_league

    return seed_league()
