"""Fixtures for the statistics tests: the league tests' eager Celery and fast password hashing."""

from __future__ import annotations

from tests.league.conftest import celery_eager, fast_password_hasher  # noqa: F401
