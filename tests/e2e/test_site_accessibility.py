"""Accessibility in a real browser beyond the walk-through.

* Keyboard: the first Tab reaches the skip link, which shows itself and moves focus to the main
  content; every kind of control (link, select, number input, checkbox, button) then shows a solid
  focus outline of at least 3:1 against what surrounds it (WCAG 2.1: 2.4.1, 2.4.7, 1.4.11).
* Every page of the permission matrix (tests/trust/matrix.py) that someone may GET is audited by
  axe-core for the WCAG 2.1 A and AA rules, on the seeded trust world, as the team's owner where
  allowed (who sees the most controls), else the master: the pages the walk-through does not reach
  (the rules reference, lists, ledgers, confirmations, the master's forms) and the others in
  another state.

Like the walk-through, these skip without chromium and fail in CI (tests.conftest.need).
"""

from __future__ import annotations

import pytest

try:
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # the tests skip without playwright
    PlaywrightError = Exception

import json
import re

from django.test import Client
from django.urls import reverse

from tests.e2e.axe import audit
from tests.e2e.test_walkthrough import ARTIFACTS
from tests.test_accessibility import contrast, seed_pages_world

DESKTOP = {"viewport": {"width": 1280, "height": 900}}

FOCUS = """() => {
  const el = document.activeElement;
  const cs = getComputedStyle(el);
  const r = el.getBoundingClientRect();
  let bg = null;  // the first opaque background behind the element, for the outline's contrast
  for (let n = el.parentElement; n && !bg; n = n.parentElement) {
    const c = getComputedStyle(n).backgroundColor;
    if (c && !c.startsWith("rgba(0, 0, 0, 0)") && c !== "transparent") bg = c;
  }
  return {
    tag: el.tagName.toLowerCase(), type: el.type || "", id: el.id, text: (el.innerText || "").trim(),
    focusVisible: el.matches(":focus-visible"), inMain: !!el.closest("main"),
    outlineStyle: cs.outlineStyle, outlineWidth: parseFloat(cs.outlineWidth), outlineColor: cs.outlineColor,
    width: r.width, height: r.height, top: r.top, left: r.left,
    background: bg || getComputedStyle(document.body).backgroundColor,
  };
}"""


def hex_colour(css_colour: str) -> str:
    r, g, b = (int(float(v)) for v in re.findall(r"[\d.]+", css_colour)[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def outline_problems(focus: dict) -> list[str]:
    """A visible keyboard focus: a solid outline of 2px or more, 3:1 against its surroundings."""
    what = f"{focus['tag']}{'[' + focus['type'] + ']' if focus['type'] else ''} {focus['id'] or focus['text'][:30]!r}"
    problems = []
    if not focus["focusVisible"]:
        problems.append(f"{what}: not :focus-visible after Tab")
    if focus["outlineStyle"] != "solid" or focus["outlineWidth"] < 2:
        problems.append(f"{what}: outline {focus['outlineStyle']} {focus['outlineWidth']}px")
    ratio = contrast(hex_colour(focus["outlineColor"]), hex_colour(focus["background"]))
    if ratio < 3:
        problems.append(f"{what}: outline {focus['outlineColor']} on {focus['background']} is {ratio:.2f}:1")
    return problems


def kind_of(focus: dict) -> str:
    if focus["tag"] == "a":
        return "link"
    if focus["tag"] == "input":
        return "button" if focus["type"] == "submit" else focus["type"]
    return focus["tag"]


def tab_through(page, kinds: set[str], *, in_main: bool | None = None, limit: int = 80) -> dict[str, dict]:
    """Press Tab until an element of every kind wanted had focus; the first of each kind."""
    seen: dict[str, dict] = {}
    for _ in range(limit):
        page.keyboard.press("Tab")
        focus = page.evaluate(FOCUS)
        if in_main is None or focus["inMain"] == in_main:
            seen.setdefault(kind_of(focus), focus)
        if kinds <= set(seen):
            break
    assert kinds <= set(seen), f"Tab never reached {sorted(kinds - set(seen))}; it reached {sorted(seen)}"
    return {kind: seen[kind] for kind in kinds}


@pytest.mark.slow(reason="Chromium tabs through pages with the keyboard")
def test_keyboard_reaches_the_skip_link_and_sees_where_focus_is(transactional_db, live_server, catalog, browser):
    from django.conf import settings
    from django.db import connections

    from tests.factories import UserFactory

    try:
        page = browser.new_page(**DESKTOP)
        page.goto(f"{live_server.url}{reverse('rules:odds')}")

        # 1. The first Tab: the skip link, visible now, with the outline.
        page.keyboard.press("Tab")
        skip = page.evaluate(FOCUS)
        assert skip["tag"] == "a" and skip["text"] == "Skip to main content", skip
        assert skip["width"] > 20 and skip["height"] > 10 and skip["top"] >= 0, skip  # shown, in view
        assert outline_problems(skip) == []

        # 2. The next Tab is the navigation bar's first link: a white outline on the dark bar.
        page.keyboard.press("Tab")
        brand = page.evaluate(FOCUS)
        assert not brand["inMain"] and hex_colour(brand["outlineColor"]) == "#ffffff", brand
        assert outline_problems(brand) == []

        # 3. Enter on the skip link moves focus to the main content.
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.activeElement && document.activeElement.id === 'main'")
        assert page.url.endswith("#main")

        # 4. On through the odds form: a link, number inputs, checkboxes, the submit button.
        seen = tab_through(page, {"link", "number", "checkbox", "button"}, in_main=True)
        problems = [p for focus in seen.values() for p in outline_problems(focus)]

        # 5. Signed in, a form with selects and text fields; the navigation's Log out button.
        user = UserFactory()
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}{reverse('teams:create')}")
        seen = tab_through(page, {"button"}, in_main=False)  # Log out, in the dark bar
        assert seen["button"]["text"] == "Log out" and hex_colour(seen["button"]["outlineColor"]) == "#ffffff"
        problems += outline_problems(seen["button"])
        seen = tab_through(page, {"text", "select", "button"}, in_main=True)
        problems += [p for focus in seen.values() for p in outline_problems(focus)]
        assert not problems, problems
        page.close()
    finally:
        connections.close_all()


ROLE_ORDER = ("player", "master", "other_player", "anonymous")  # the owner sees the most controls


@pytest.mark.slow(
    reason="Chromium renders and axe-core audits every page of the permission matrix as four roles, desktop and phone"
)
def test_every_page_of_the_permission_matrix_passes_axe(
    transactional_db, live_server, catalog, eager_celery, browser, settings
):
    from django.db import connections

    from tests.trust.matrix import RULES

    try:
        world = seed_pages_world()
        pages: dict[str, object] = {}
        for role in ROLE_ORDER:
            context = browser.new_context(**DESKTOP)
            user = world.user(role)
            if user is not None:
                client = Client()
                client.force_login(user)
                cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
                context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
            pages[role] = context.new_page()

        audited, addresses, skipped, violations = set(), [], [], []
        for name in RULES:
            for case in RULES[name]:
                if not isinstance(case.get, frozenset) or not case.get:
                    continue
                role = next(r for r in ROLE_ORDER if r in case.get)
                url = reverse(name, kwargs=case.kwargs(world))
                page = pages[role]
                try:
                    response = page.goto(live_server.url + url)
                except PlaywrightError as exc:  # a download (the CSV and JSON exports, the API's schema)
                    if "Download is starting" not in str(exc):
                        raise
                    skipped.append(f"{name} {url} as {role}: a download")
                    continue
                content_type = response.headers.get("content-type", "")
                if (
                    response.status != 200
                    or not content_type.startswith("text/html")
                    or not page.locator("main").count()
                ):
                    skipped.append(f"{name} {url} as {role}: {response.status} {content_type}")
                    continue
                _, found = audit(page, label=f"{name} as {role}")
                violations += found
                audited.add(name)
                addresses.append(f"{url} as {role}")
        for page in pages.values():
            page.context.close()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        report = {"audited": addresses, "skipped": skipped, "violations": [str(v) for v in violations]}
        (ARTIFACTS / "axe-site.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        assert not violations, f"{len(violations)} WCAG 2.1 A/AA violations:\n" + "\n".join(map(str, violations))
        expected = {
            "rules:index",
            "rules:clan",
            "rules:ronin",
            "rules:keywords",
            "rules:challenges",
            "rules:status_effects",
            "rules:tables",
            "rules:odds",
            "rules:ninjutsu_odds",
            "rules:ninjutsu",
            "rules:kage_masters",
            "teams:list",
            "teams:ledger",
            "teams:ninja_release",
            "teams:ninja_rename",
            "matches:void",
            "matches:result",
            "matches:presheet",
            "matches:advancement_choose",
            "league:list",
            "league:edit",
            "league:season_bracket",
            "league:season_rollover",
            "league:fixture_create",
            "league:fixture_challenge",
            "league:applications",
            "newsletters:detail",
            "newsletters:edit",
            "newsletters:publish",
            "newsletters:deliveries",
            "password_change",
        }
        assert expected <= audited, (sorted(expected - audited), skipped)
    finally:
        connections.close_all()
