"""The API's documentation page works in a real browser under the site's strict Content-Security-
Policy (no inline script or style): Swagger UI loads the schema and lists every operation, and the
browser reports no error (a CSP refusal is one). Then axe-core's WCAG 2.1 A/AA rules pass on it, also
with operations opened (their parameters, a request body's example): Swagger UI's colours are darkened
in static/css/api-docs.css, deep links are off (they nest a link in each operation's button), and
static/js/api-docs-a11y.js names the parameters' selects and makes the examples focusable.
Skips without chromium, fails in CI."""

from __future__ import annotations

import pytest

from tests.e2e.axe import audit


@pytest.mark.slow(reason="Chromium loads the API's documentation page and its scripts, and axe-core audits it")
def test_the_docs_page_lists_the_operations_and_passes_axe(transactional_db, live_server, catalog, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(live_server.url + "/api/v1/docs/")
    page.wait_for_selector(".opblock", timeout=20_000)
    assert page.locator(".opblock").count() >= 25
    assert not errors, errors

    _, closed = audit(page, label="operations closed")
    assert not closed, "\n".join(map(str, closed))

    # One operation with a select among its parameters (the leaderboards' board), one with a body.
    page.locator(".opblock-get .opblock-summary-control").first.click()
    page.locator(".opblock-post .opblock-summary-control").first.click()
    page.wait_for_selector(".parameters select", timeout=10_000)
    page.wait_for_selector(".body-param__example, .opblock-post .microlight", timeout=10_000)
    _, opened = audit(page, label="operations open")
    assert not opened, "\n".join(map(str, opened))
