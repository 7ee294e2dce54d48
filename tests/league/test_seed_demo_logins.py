"""The README's demo log-ins work (issue 27, finding 1), from a fresh database: the demo seeded as
`make run` seeds it, then as the README says to seed it again with a password of one's own."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.usefixtures("catalog")

ROOT = Path(__file__).resolve().parents[2]


def make_seed_arguments() -> list[str]:
    """The arguments `make run` (through `make seed`) gives seed_demo, with the Makefile's defaults."""
    makefile = (ROOT / "Makefile").read_text()
    defaults = dict(re.findall(r"^(\w+) \?= (.*)$", makefile, re.MULTILINE))
    line = re.search(r"^seed:.*\n\t\$\(PY\) manage\.py seed_demo(.*)$", makefile, re.MULTILINE).group(1)
    line = re.sub(r"\$\((\w+)\)", lambda m: defaults[m.group(1)], line)
    return shlex.split(line)


def readme_setup() -> str:
    readme = (ROOT / "README.md").read_text()
    return readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]


def can_log_in(username: str, password: str) -> bool:
    client = Client()
    response = client.post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302 and client.get(reverse("account")).status_code == 200


@pytest.mark.slow(reason="seeds the three demo leagues (rounds simulated) as make run does, then seeds again")
def test_the_readme_demo_logins_work_after_make_run_and_after_a_reseed(capsys):
    setup = readme_setup()
    # What the README says `make run` gives a newcomer: the master's and a player's log-in.
    password = re.search(r"`demo-master` and `demo-akane`[^`]*`([^`]+)`", setup).group(1)
    arguments = make_seed_arguments()
    assert arguments == ["--password", password]  # the Makefile seeds with the README's password

    call_command("seed_demo", *arguments)
    out = capsys.readouterr().out
    assert "demo-master" in out and password in out  # `make run` prints how to log in
    assert can_log_in("demo-master", password)
    assert can_log_in("demo-akane", password)

    # Seeding again with a password of one's own (the README's words) sets it for the demo users.
    assert "seed_demo --password SECRET" in setup
    call_command("seed_demo", "--password", "Moonlit-Secret-27")
    out = capsys.readouterr().out
    assert "already seeded" in out
    assert can_log_in("demo-master", "Moonlit-Secret-27")
    assert can_log_in("demo-isamu", "Moonlit-Secret-27")  # a player of the Kage Masters demo only
    assert not can_log_in("demo-akane", password)

    # A re-seed without a password changes no one's.
    call_command("seed_demo")
    assert can_log_in("demo-akane", "Moonlit-Secret-27")
