"""Response headers (issue 11, finding 9): a Content-Security-Policy with no inline script to
allow, a Permissions-Policy, ``Cache-Control: private, no-store`` for signed-in members, and no
``Server`` banner from gunicorn.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.urls import reverse

from tests.trust import matrix
from tests.trust.urlconf import named_urls

pytestmark = pytest.mark.usefixtures("catalog")

ROOT = Path(__file__).resolve().parents[2]
#: Pages whose stored HTML carries inline styles because it is also an email's (their CSP allows
#: style attributes, and nothing else more).
STYLED_PAGES = {"newsletters:detail"}


def directives(header: str) -> dict[str, list[str]]:
    out = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


class InlineFinder(HTMLParser):
    """Inline scripts, event-handler attributes, javascript: URLs and style attributes."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "script" and not names.get("src"):
            self.found.append("<script> without src")
        if tag == "style":
            self.found.append("<style> element")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"{tag} {name}=")
            if name == "style":
                self.found.append(f'{tag} style="{value}"')
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.found.append(f"{tag} {name}=javascript:")


def inline_in(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


def site_pages(world) -> list[tuple[str, str]]:
    pages = []
    for url in named_urls():
        if url.name.startswith("admin:"):
            continue
        for case in matrix.RULES.get(url.name, []):
            pages.append((url.name, reverse(url.name, kwargs=case.kwargs(world))))
    return sorted(set(pages))


@pytest.mark.slow(reason="every page of the site as each role, each body parsed for inline script and style")
def test_every_page_has_the_policy_and_no_inline_script_or_style(world):
    """Every page of the site, as each role: the CSP header (strict), the Permissions-Policy, and
    an HTML body with nothing inline for the CSP to allow."""
    problems = []
    checked = 0
    for role in ("anonymous", "player", "master", "staff"):
        client = matrix.client_for(world, role)
        for name, url in site_pages(world):
            resp = client.get(url)
            if resp.status_code != 200:
                continue
            checked += 1
            csp = directives(resp.get("Content-Security-Policy", ""))
            if csp.get("script-src") != ["'self'"] or csp.get("style-src") != ["'self'"]:
                problems.append(f"{url} as {role}: Content-Security-Policy {resp.get('Content-Security-Policy')!r}")
            if "camera=()" not in resp.get("Permissions-Policy", ""):
                problems.append(f"{url} as {role}: Permissions-Policy {resp.get('Permissions-Policy')!r}")
            if not resp.get("Content-Type", "").startswith("text/html"):
                continue
            found = inline_in(resp.content.decode())
            if name in STYLED_PAGES:
                if csp.get("style-src-attr") != ["'unsafe-inline'"]:
                    problems.append(f"{url}: its inline styles are not allowed by {csp}")
                found = [f for f in found if "style=" not in f]
            elif "style-src-attr" in csp:
                problems.append(f"{url} as {role}: allows style attributes")
            problems += [f"{url} as {role}: {f}" for f in found]
    assert checked > 150
    assert not problems, "\n".join(problems[:40])


def test_the_admin_has_the_policy_and_no_inline_script(world):
    client = matrix.client_for(world, "staff")
    for url in ("/admin/", "/admin/teams/team/", f"/admin/teams/team/{world.team_a.pk}/change/", "/admin/login/"):
        resp = client.get(url)
        assert "script-src 'self'" in resp["Content-Security-Policy"], url
        assert [f for f in inline_in(resp.content.decode()) if "script" in f or " on" in f] == [], url


def test_no_template_holds_inline_script_or_style():
    """The templates themselves (emails excepted: mail clients need inline styles, and no CSP
    applies there; the newsletter sections are shared with the email)."""
    problems = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        rel = path.relative_to(ROOT / "templates").as_posix()
        if rel.startswith("newsletters/email/") or rel == "newsletters/includes/_sections.html":
            continue
        source = path.read_text()
        for pattern in (r"<script(?![^>]*\bsrc=)[^>]*>", r"\son[a-z]+\s*=", r"\sstyle\s*=", r"<style\b"):
            for match in re.finditer(pattern, source):
                problems.append(f"{rel}: {match.group(0).strip()}")
    assert not problems, problems


@pytest.mark.slow(reason="every page of the site and every form's answer, as three roles")
def test_signed_in_members_get_private_no_store_pages(world):
    """Every page a member is shown (and the answers to their forms) is private, not stored."""
    problems = []
    for role in ("player", "master", "staff"):
        client = matrix.client_for(world, role)
        for _, url in site_pages(world):
            resp = client.get(url)
            if resp.get("Cache-Control") != "private, no-store":
                problems.append(f"{url} as {role}: {resp.status_code} Cache-Control {resp.get('Cache-Control')!r}")
    resp = matrix.client_for(world, "player").post(reverse("teams:create"), {"name": "", "clan": "1"})
    if resp.get("Cache-Control") != "private, no-store":
        problems.append(f"POST teams:create: {resp.get('Cache-Control')!r}")
    assert not problems, "\n".join(problems[:40])


def test_anonymous_public_pages_may_be_cached(world):
    resp = matrix.client_for(world, "anonymous").get(reverse("league:list"))
    assert "no-store" not in resp.get("Cache-Control", "")


# --- gunicorn ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow(reason="starts gunicorn with the repository's config in a process of its own")
def test_gunicorn_with_the_repositorys_config_sends_no_server_banner(tmp_path):
    """The Procfile's web command, on a free loopback port, against a SQLite file of its own."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_ALLOW_ASYNC", "PYTEST", "DATABASE_URL"))},
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DJANGO_SETTINGS_MODULE": "league.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'web.sqlite3'}",
        "REDIS_URL": "",
        "DEBUG": "0",
        "SECRET_KEY": "gunicorn-banner-test-" + "x" * 40,
        "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": "1",
    }
    web = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:"))
    log = tmp_path / "web.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", "-c", "exec " + web.partition(":")[2].strip()],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as resp:
                    headers = resp.headers
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail(f"gunicorn did not answer:\n{log.read_text()[-3000:]}")
                time.sleep(0.25)
        assert headers.get("Server") is None, dict(headers)
        assert "default-src 'self'" in headers.get("Content-Security-Policy", "")
        assert headers.get("Permissions-Policy")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
