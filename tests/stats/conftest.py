"""Fixtures for the statistics tests: the league tests' eager Celery and fast password hashing."""

from __future__ import annotations

from tests.league.conftest import celery_eager  # noqa: F401
