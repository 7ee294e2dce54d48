"""The default database under two clicks (issue 11, finding 10).

On the default SQLite, two concurrent POSTs (a recruit and a confirmation) gave "database is
locked" 500s. The default set-up now runs SQLite in WAL mode with a busy timeout and immediate
transactions: the second request waits for the first instead of failing. Run on a SQLite file in a
process of its own (tests/trust/sqlite_two_clicks.py), since the suite's own database is shared by the whole run
(or PostgreSQL in CI).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def run_two_clicks(tmp_path: Path) -> dict:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_ALLOW_ASYNC"))},
        "DATABASE_URL": f"sqlite:///{tmp_path / 'league.sqlite3'}",
        "REDIS_URL": "",
        "DJANGO_SETTINGS_MODULE": "league.settings",
        "LOG_LEVEL": "WARNING",
    }
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


def test_two_concurrent_posts_on_sqlite_both_succeed(tmp_path):
    result = run_two_clicks(tmp_path)
    assert result["errors"] == [], result
    assert result["answers"] == {"recruit": 302, "confirm": 302}, result
    assert result["recruited"] == 1 and result["match_status"] == "confirmed", result
    assert result["journal_mode"] == "wal" and result["transaction_mode"] == "IMMEDIATE", result


def test_the_default_database_is_sqlite_with_wal_a_busy_timeout_and_immediate_transactions():
    options = settings.SQLITE_OPTIONS
    assert options["transaction_mode"] == "IMMEDIATE"
    assert options["timeout"] >= 10
    assert "journal_mode=WAL" in options["init_command"]
