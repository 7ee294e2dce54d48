"""The default database under two clicks (issue 11, finding 10).

On the default SQLite, two concurrent POSTs (a recruit and a confirmation) gave "database is
locked" 500s. The default set-up now runs SQLite in WAL mode with a busy timeout and immediate
transactions: the second request waits for the first instead of failing. Run on a SQLite file in a
process of its own (tests/trust/sqlite_two_clicks.py), since the suite's own database is shared by the whole run
(or PostgreSQL in CI).

The subprocess's database is a copy of one already migrated: the suite's own SQLite test database
(its committed state, through SQLite's backup API) when the suite runs on SQLite, or else one
migrated once for the run. The script's own ``migrate`` then has nothing to apply.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def subprocess_env(database: Path) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_ALLOW_ASYNC"))},
        "DATABASE_URL": f"sqlite:///{database}",
        "REDIS_URL": "",
        "DJANGO_SETTINGS_MODULE": "league.settings",
        "LOG_LEVEL": "WARNING",
    }


@pytest.fixture(scope="module")
def migrated_sqlite(django_db_setup, tmp_path_factory) -> Path:
    """A migrated SQLite database to copy: the suite's own test database's committed state, or
    (the suite on PostgreSQL) one migrated here, once."""
    template = tmp_path_factory.mktemp("sqlite-template") / "migrated.sqlite3"
    if connection.vendor == "sqlite" and not connection.is_in_memory_db():
        source = sqlite3.connect(connection.settings_dict["NAME"])
        target = sqlite3.connect(template)
        with target:
            source.backup(target)
        source.close()
        target.close()
    else:
        done = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=subprocess_env(template),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return template


def run_two_clicks(tmp_path: Path, migrated: Path) -> dict:
    database = tmp_path / "league.sqlite3"
    shutil.copyfile(migrated, database)
    env = subprocess_env(database)
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "trust" / "sqlite_two_clicks.py")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow(reason="a Django process of its own on a SQLite file, two requests racing in threads")
def test_two_concurrent_posts_on_sqlite_both_succeed(tmp_path, migrated_sqlite):
    result = run_two_clicks(tmp_path, migrated_sqlite)
    assert result["errors"] == [], result
    assert result["answers"] == {"recruit": 302, "confirm": 302}, result
    assert result["recruited"] == 1 and result["match_status"] == "confirmed", result
    assert result["journal_mode"] == "wal" and result["transaction_mode"] == "IMMEDIATE", result


def test_the_default_database_is_sqlite_with_wal_a_busy_timeout_and_immediate_transactions():
    options = settings.SQLITE_OPTIONS
    assert options["transaction_mode"] == "IMMEDIATE"
    assert options["timeout"] >= 10
    assert "journal_mode=WAL" in options["init_command"]
