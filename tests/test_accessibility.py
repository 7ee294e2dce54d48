"""Accessibility without a browser: the skip link, table headers and the colours, checked cheaply.

The browser walk-through runs axe-core on the pages it visits (tests/e2e/); these tests cover every
page of the site through the test client (the permission matrix's URLs, rendered for each kind of
visitor), every template's source, and the palette in static/css/site.css, whose contrast ratios
are recomputed here from the WCAG 2.1 formula. docs/accessibility.md explains the choices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"
SITE_CSS = ROOT / "static" / "css" / "site.css"

# --- contrast (WCAG 2.1, 1.4.3 and 1.4.11) --------------------------------------------------------


def _channel(c: int) -> float:
    c = c / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(ch * 2 for ch in h)
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def css_variables() -> dict[str, str]:
    """The custom properties of site.css's :root block, values resolved through var()."""
    css = SITE_CSS.read_text(encoding="utf-8")
    root = re.search(r":root\s*\{(.*?)\}", css, re.S).group(1)
    root = re.sub(r"/\*.*?\*/", "", root, flags=re.S)
    raw = dict(re.findall(r"(--[\w-]+)\s*:\s*([^;]+);", root))

    def resolve(value: str) -> str:
        m = re.fullmatch(r"var\((--[\w-]+)\)", value.strip())
        return resolve(raw[m.group(1)]) if m else value.strip()

    return {name: resolve(value) for name, value in raw.items()}


# Light surfaces the site draws text on: the page, cards/inputs/tables (white), .bg-light, and the
# alerts that hold links or outline buttons (warning: the newsletter draft bar, the confirm prompt).
SURFACES = {"page": None, "white": "#ffffff", "light": "#f8f9fa", "warning alert": "#fff3cd", "info alert": "#cff4fc"}
TEXT_COLOURS = (
    "--ml-link",
    "--ml-link-hover",
    "--ml-secondary",
    "--ml-success",
    "--ml-danger",
    "--ml-warning-text",
    "--ml-code",
)


def test_the_contrast_formula_reproduces_the_known_failures():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    # Why the palette changed: Bootstrap's defaults on this site's page background.
    assert round(contrast("#0d6efd", "#fbfaf7"), 2) == 4.31
    assert round(contrast("#6c757d", "#fbfaf7"), 2) == 4.49


def test_text_colours_reach_4_5_to_1_on_every_light_surface():
    css = css_variables()
    surfaces = {name: colour or css["--ml-page-bg"] for name, colour in SURFACES.items()}
    low = [
        f"{name} {css[name]} on {where} {bg}: {contrast(css[name], bg):.2f}:1"
        for name in TEXT_COLOURS
        for where, bg in surfaces.items()
        if contrast(css[name], bg) < 4.5
    ]
    assert not low, low


def test_bootstrap_reads_the_same_colours():
    """Bootstrap takes some colours as r, g, b triplets: each must be the hex it stands for."""
    css = css_variables()
    pairs = {
        "--bs-link-color-rgb": "--ml-link",
        "--bs-link-hover-color-rgb": "--ml-link-hover",
        "--bs-secondary-rgb": "--ml-secondary",
        "--bs-success-rgb": "--ml-success",
        "--bs-danger-rgb": "--ml-danger",
    }
    for triplet, hex_name in pairs.items():
        h = css[hex_name].lstrip("#")
        assert tuple(int(v) for v in css[triplet].split(",")) == tuple(int(h[i : i + 2], 16) for i in (0, 2, 4))
    assert css["--bs-link-color"] == css["--ml-link"]
    assert css["--bs-code-color"] == css["--ml-code"]
    assert css["--bs-form-invalid-color"] == css["--ml-danger"]


def test_keyboard_focus_is_a_solid_outline_of_3_to_1():
    css_text = re.sub(r"/\*.*?\*/", "", SITE_CSS.read_text(encoding="utf-8"), flags=re.S)
    css = css_variables()
    assert contrast(css["--ml-focus"], css["--ml-page-bg"]) >= 3
    assert contrast(css["--ml-focus"], "#ffffff") >= 3
    assert contrast(css["--ml-focus-on-dark"], "#212529") >= 3  # the navigation bar (.bg-dark)
    rule = next(
        (body, selectors)
        for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css_text)
        if ".btn:focus-visible" in selectors
    )
    body, selectors = rule
    # Bootstrap removes the outline with these class-level selectors; each is overridden here.
    for selector in (
        ":focus-visible",
        ".btn:focus-visible",
        ".form-control:focus",
        ".form-select:focus",
        ".form-check-input:focus-visible",
        ".nav-link:focus-visible",
        ".navbar-toggler:focus-visible",
    ):
        assert selector in [s.strip() for s in selectors.split(",")], selector
    assert re.search(r"outline:\s*3px solid var\(--ml-focus\)", body), body
    assert re.search(r"\.navbar-dark\s*\{\s*--ml-focus:\s*var\(--ml-focus-on-dark\)", css_text)


# --- the HTML: a small tree to look at tables and links ----------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    parent: Node | None = None
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self, tag: str | None = None):
        for c in self.children:
            if isinstance(c, Node):
                if tag is None or c.tag == tag:
                    yield c
                yield from c.iter(tag)

    def ancestor(self, *tags: str) -> Node | None:
        node = self.parent
        while node is not None and node.tag not in tags:
            node = node.parent
        return node


class TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, parent=self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, {k: v or "" for k, v in attrs}, parent=self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse(html: str) -> Node:
    builder = TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


FOCUSABLE = {"a", "button", "input", "select", "textarea", "summary"}


def skip_link_problems(doc: Node) -> list[str]:
    body = next(doc.iter("body"), None)
    if body is None:
        return ["no <body>"]
    first = next((n for n in body.iter() if n.tag in FOCUSABLE and n.attrs.get("type") != "hidden"), None)
    problems = []
    if first is None or first.tag != "a" or first.attrs.get("href") != "#main":
        problems.append(f"the first focusable element is not a skip link to #main: {first and first.attrs}")
    elif "skip" not in first.text().lower() or "visually-hidden-focusable" not in first.attrs.get("class", ""):
        problems.append(f"the skip link should say so and show on focus: {first.attrs} {first.text()!r}")
    targets = [n for n in body.iter() if n.attrs.get("id") == "main"]
    if len(targets) != 1 or targets[0].tag != "main":
        problems.append("no single <main id=main> for the skip link to reach")
    return problems


def table_problems(doc: Node) -> list[str]:
    """Every header cell has text (visually hidden text counts) and a scope: col in the head, row in
    the body; every body row of a data table has exactly one row header (the team, the ninja, ...)."""
    problems = []
    for table in doc.iter("table"):
        if table.attrs.get("role") == "presentation":
            continue
        for th in table.iter("th"):
            where = "thead" if th.ancestor("thead", "tbody", "table").tag == "thead" else "tbody"
            expected = "col" if where == "thead" else "row"
            if not th.text().strip():
                problems.append(f"empty <th> in {where}: {th.attrs}")
            if th.attrs.get("scope") != expected:
                problems.append(f"<th> {th.text().strip()!r} in {where} has scope={th.attrs.get('scope')!r}")
        for tbody in table.iter("tbody"):
            for tr in tbody.iter("tr"):
                cells = [c for c in tr.children if isinstance(c, Node) and c.tag in ("td", "th")]
                if len(cells) < 2:  # an empty-state row ("No teams entered yet.")
                    continue
                headers = [c for c in cells if c.tag == "th" and c.attrs.get("scope") == "row"]
                if len(headers) != 1:
                    first = " ".join(cells[0].text().split())[:40]
                    problems.append(f"a body row has {len(headers)} row headers: {first!r}")
    return problems


# --- every template's source ------------------------------------------------------------------------


def test_every_template_header_cell_has_a_scope_and_text():
    """The same promise for pages no test renders: in the source, every <th> says its scope and is
    not empty (an empty header gets visually hidden text)."""
    problems = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        source = path.read_text(encoding="utf-8")
        for m in re.finditer(r"<th\b([^>]*)>(.*?)</th>", source, re.S):
            name = path.relative_to(TEMPLATES)
            if not re.search(r'\bscope="(col|row)"', m.group(1)):
                problems.append(f"{name}: <th{m.group(1)}> has no scope")
            if not re.sub(r"<[^>]+>", "", m.group(2)).strip():
                problems.append(f"{name}: empty <th{m.group(1)}>")
    assert not problems, "\n".join(problems)


def test_the_checks_catch_what_they_look_for():
    bad = parse(
        "<html><body><a href='/'>Home</a><main><table><thead><tr><th>Team</th><th></th></tr></thead>"
        "<tbody><tr><td>Tigers</td><td>3</td></tr></tbody></table></main></body></html>"
    )
    assert len(skip_link_problems(bad)) == 2
    found = table_problems(bad)
    assert any("empty <th>" in p for p in found)
    assert any("scope=None" in p for p in found)
    assert any("0 row headers" in p for p in found)
    good = parse(
        "<html><body><a class='visually-hidden-focusable' href='#main'>Skip to main content</a>"
        "<main id='main'><table><thead><tr><th scope='col'>Team</th><th scope='col'>"
        "<span class='visually-hidden'>Actions</span></th></tr></thead><tbody><tr><th scope='row'>Tigers</th>"
        "<td>3</td></tr><tr><td colspan='2'>No more</td></tr></tbody></table></main></body></html>"
    )
    assert skip_link_problems(good) == [] and table_problems(good) == []


# --- every page, rendered ---------------------------------------------------------------------------


@pytest.fixture
def eager_tasks():
    from league.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER


VISITORS = ("anonymous", "player", "master")  # the team owner sees the roster's action column


#: What a page must not show a player: the project's own bookkeeping (issue 27, finding 10).
INTERNAL_REFERENCES = re.compile(r"\bdocs/[\w-]+\.md\b|\b[Ii]ssues? \d+\b")


def internal_reference_problems(html: str) -> list[str]:
    """Issue numbers and docs/ files in a page (its text, attributes and help texts; HTML comments
    aside): a player reads the rulebook's words, not the project's tracker."""
    shown = re.sub(r"<!--.*?-->", "", html, flags=re.S)
    return [f"shows an internal reference: {match.group(0)!r}" for match in INTERNAL_REFERENCES.finditer(shown)]


def seed_pages_world():
    """The permission matrix's world, with an email that failed so the master's deliveries page
    shows its table."""
    from newsletters.models import NewsletterDelivery
    from tests.trust.world import seed_world

    world = seed_world()
    NewsletterDelivery.objects.create(
        newsletter=world.extra["published"],
        user=world.users["player"],
        email="trust-player@example.org",
        status=NewsletterDelivery.Status.FAILED,
        attempts=3,
        last_error="Connection refused",
    )
    return world


@pytest.mark.slow(reason="every page of the permission matrix, as each kind of visitor allowed, parsed")
@pytest.mark.django_db
def test_every_page_has_a_skip_link_and_labelled_tables(catalog, eager_tasks):
    """Every URL of the permission matrix that someone may GET, as each kind of visitor allowed."""
    from tests.trust.matrix import RULES, client_for

    world = seed_pages_world()
    clients = {role: client_for(world, role) for role in VISITORS}
    checked, problems = set(), []
    for name, cases in RULES.items():
        for case in cases:
            if not isinstance(case.get, frozenset):
                continue
            url = reverse(name, kwargs=case.kwargs(world))
            for role in VISITORS:
                if role not in case.get:
                    continue
                with transaction.atomic():  # as the matrix does: a page that writes leaves no trace
                    resp = clients[role].get(url)
                    transaction.set_rollback(True)
                if resp.status_code != 200 or not resp["Content-Type"].startswith("text/html"):
                    continue
                html = resp.content.decode()
                if "<main" not in html:  # a fragment (a progress partial), not a page
                    continue
                checked.add(name)
                doc = parse(html)
                problems += [f"{url} as {role}: {p}" for p in skip_link_problems(doc) + table_problems(doc)]
                problems += [f"{url} as {role}: {p}" for p in internal_reference_problems(html)]
    assert not problems, "\n".join(problems)
    # The pages with tables are among those checked (a page that stopped rendering would hide here).
    assert {
        "home",
        "teams:list",
        "teams:detail",
        "teams:ledger",
        "matches:detail",
        "league:season_detail",
        "league:season_desk",
        "rules:index",
        "rules:tables",
        "rules:odds",
        "rules:challenges",
        "newsletters:detail",
        "league:fixture_challenge",
        "newsletters:deliveries",
        "exports:league_import",
    } <= checked
    assert len(checked) >= 45, sorted(checked)


@pytest.mark.django_db
def test_the_roster_action_column_has_a_hidden_header(catalog, client):
    from tests.factories import UserFactory, make_team, recruit

    owner = UserFactory()
    team = make_team("tora", owner=owner)
    recruit(team, "tora-chunin", name="Kenji")
    client.force_login(owner)
    doc = parse(client.get(reverse("teams:detail", args=[team.pk])).content.decode())
    roster = next(t for t in doc.iter("table") if "scroll-roster" in t.attrs.get("class", ""))
    headers = list(next(roster.iter("thead")).iter("th"))
    assert headers[-1].text().strip() == "Actions"
    assert "visually-hidden" in next(headers[-1].iter("span")).attrs["class"]
    row_header = next(next(roster.iter("tbody")).iter("th"))
    assert row_header.attrs["scope"] == "row" and "Kenji" in row_header.text()


@pytest.mark.django_db
def test_a_built_newsletter_table_has_row_headers_and_a_named_movement_column(
    catalog, eager_tasks, django_capture_on_commit_callbacks, mailoutbox
):
    """The generated sections (frozen into the newsletter) on the site and in the email."""
    from newsletters import services
    from newsletters.periods import Period
    from tests.newsletters.helpers import play_second_round, seed_league

    seeded = seed_league(play_round_2=False)
    for round_number in (1, 2):  # round 2's table shows the movement since round 1's newsletter
        if round_number == 2:
            play_second_round(seeded)
        with django_capture_on_commit_callbacks(execute=True):
            newsletter = services.newsletter_request(league=seeded.league, period=Period.round(1, round_number))
    newsletter.refresh_from_db()
    client = Client()
    client.force_login(seeded.league.master)
    url = reverse("newsletters:detail", kwargs={"league_slug": seeded.league.slug, "key": newsletter.period_key})
    doc = parse(client.get(url).content.decode())
    table = next(t for t in doc.iter("table") if t.ancestor("section") is not None)
    assert skip_link_problems(doc) == [] and table_problems(doc) == []
    heads = [th.text().strip() for th in next(table.iter("thead")).iter("th")]
    assert heads[:3] == ["#", "Movement", "Team"]
    teams = [th.text().split()[0] for th in next(table.iter("tbody")).iter("th")]
    assert teams == ["Foxes", "Apes", "Tigers", "Squids"]
    arrows = [s.attrs["aria-label"] for s in table.iter("span") if s.attrs.get("role") == "img"]
    assert arrows == ["up 1", "up 1", "down 2", "no change"]  # read out, where the eye sees ▲1 ▲1 ▼2 =

    email = services.newsletter_email(newsletter, "reader@example.org")
    html = email.alternatives[0][0]
    assert ".visually-hidden{" in html  # the email has no Bootstrap: the class is defined in its head
    assert table_problems(parse(html)) == []


def test_team_colour_swatches_are_outlined_at_3_to_1_and_never_the_only_carrier():
    """A team's colours (issue 14) may be anything, so each swatch is outlined in a colour of 3:1 or
    more against every light surface (WCAG 1.4.11), hidden from screen readers, and the colours are
    written out beside it (1.4.1: colour is not the only carrier)."""
    badge = (TEMPLATES / "teams" / "includes" / "_team_badge.html").read_text(encoding="utf-8")
    strokes = re.findall(r'stroke="(#[0-9a-fA-F]{6})"', badge)
    assert strokes, "the swatch has no outline"
    css = css_variables()
    surfaces = {name: colour or css["--ml-page-bg"] for name, colour in SURFACES.items()}
    low = [(s, where) for s in strokes for where, bg in surfaces.items() if contrast(s, bg) < 3]
    assert not low, low
    assert 'aria-hidden="true"' in badge and "team.colours|join" in badge
