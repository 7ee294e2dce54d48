"""The browser the end-to-end tests drive: Debian's Chromium through Playwright's sync API."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.conftest import need

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    return path if path and os.path.exists(path) else None


@pytest.fixture
def browser(monkeypatch):
    # Playwright's sync API runs an event loop in this thread; the test still reads the database
    # synchronously between browser steps (nothing here is async code). Only for this test.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - a test dependency
        sync_playwright = None
    need(sync_playwright is not None, "the playwright package")
    executable = chromium_path()
    need(executable is not None, "chromium (set CHROMIUM_PATH or install Debian's chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def eager_celery():
    """Run tasks in-process for this test: with REDIS_URL set (CI) the app would send them to the
    broker, and no worker consumes for the live server here."""
    from league.celery import app

    before = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = before
