"""Two concurrent POSTs on a file-based SQLite database, as the default set-up runs them.

Run by tests/trust/test_sqlite_concurrency.py in a process of its own, with DATABASE_URL naming a
SQLite file of its own, a copy of a migrated one (not the test suite's own database, shared by the
whole run, or PostgreSQL in CI):

    python tests/trust/sqlite_two_clicks.py   (prints one JSON line: what each request answered)

A player recruits for their team while the opponent confirms the result of their match: two
requests in two threads, each with its own connection. Both transactions are held after their
first reads (a barrier in ``treasury_post``, which both call inside their transaction) so that
they overlap for certain; with BEGIN IMMEDIATE the second waits at its BEGIN instead, and the
barrier gives up after two seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402


def main() -> dict:
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.AXES_ENABLED = False
    call_command("migrate", verbosity=0)  # a copy of a migrated database: nothing to apply
    from rules.catalog import ensure_catalog

    ensure_catalog()  # the copy's catalog is gone if a test that commits had emptied the tables

    from league import services as league_services
    from league.models import Season
    from matches import services as match_services
    from rules.models import Challenge
    from teams import services as team_services
    from teams.models import Ninja
    from tests.factories import LeagueFactory, UserFactory, make_legal_team
    from tests.support import record_for

    master = UserFactory(username="sqlite-master")
    league = LeagueFactory(name="SQLite League", slug="sqlite", master=master)
    season = league_services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    home = make_legal_team("tora", owner=UserFactory(username="sqlite-home"), name="Home", league=league)
    away = make_legal_team("ika", owner=UserFactory(username="sqlite-away"), name="Away", league=league)
    for team in (home, away):
        league_services.application_accept(team=team)
    match = match_services.match_create(
        teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), season=season
    )
    match_services.match_kick_off(match=match)
    match_services.match_submit_result(match=match, record=record_for(match, (3, 1)), actor=home.owner)
    team_services.treasury_correct(team=home, amount=30, note="Prize money", actor=master)  # koban to recruit with
    ninjas_before = Ninja.objects.filter(team=home).count()

    barrier = threading.Barrier(2)
    real_post = team_services.treasury_post

    def held_post(**kwargs):
        # Both transactions have read: now both write. (With BEGIN IMMEDIATE the other request is
        # waiting for the write lock at its BEGIN, and the barrier gives up.)
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=2)
        return real_post(**kwargs)

    team_services.treasury_post = held_post
    import matches.services

    matches.services.treasury_post = held_post

    answers: dict[str, object] = {}

    def post(name: str, user, url: str, data: dict) -> None:
        client = Client(raise_request_exception=False)
        client.force_login(user)
        try:
            resp = client.post(url, data)
            answers[name] = resp.status_code
        except Exception as exc:  # the test client re-raises nothing here; belt and braces
            answers[name] = f"{type(exc).__name__}: {exc}"
        finally:
            connection.close()

    import logging

    errors: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            if record.exc_info:
                errors.append("".join(traceback.format_exception_only(*record.exc_info[:2])).strip())

    logging.getLogger("django.request").addHandler(Collect())
    threads = [
        threading.Thread(
            target=post,
            args=(
                "recruit",
                home.owner,
                reverse("teams:recruit_profile", args=[home.pk, "tora-kaiken"]),
                {"name": "Late"},
            ),
        ),
        threading.Thread(
            target=post,
            args=("confirm", away.owner, reverse("matches:confirm", args=[match.pk]), {"decision": "confirm"}),
        ),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    match.refresh_from_db()
    with connection.cursor() as cursor:
        journal = cursor.execute("PRAGMA journal_mode").fetchone()[0]
    return {
        "answers": answers,
        "errors": errors,
        "match_status": match.status,
        "recruited": Ninja.objects.filter(team=home).count() - ninjas_before,
        "journal_mode": journal,
        "transaction_mode": connection.transaction_mode,
    }


if __name__ == "__main__":
    print(json.dumps(main()))
