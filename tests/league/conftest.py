"""Fixtures for the league tests (helpers live in tests/league/helpers.py)."""

from __future__ import annotations

import pytest

from tests.support import run_tasks_eagerly

#: Tasks run in-process in these tests, unless a test asks for the live worker.
celery_eager = pytest.fixture(autouse=True)(run_tasks_eagerly)
