"""The API's documentation page works in a real browser under the site's strict Content-Security-
Policy (no inline script or style): Swagger UI loads the schema and lists every operation, and the
browser reports no error (a CSP refusal is one). Skips without chromium, fails in CI."""

from __future__ import annotations


def test_the_docs_page_lists_the_operations(transactional_db, live_server, catalog, browser):
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(live_server.url + "/api/v1/docs/")
    page.wait_for_selector(".opblock", timeout=20_000)
    assert page.locator(".opblock").count() >= 25
    assert not errors, errors
