"""A league's backup imported: its size, the import's peak memory against it, and the time taken.

Run by hand (PostgreSQL; the script makes and drops its own database, named by --db-name):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python benchmarks/backup_import.py [--teams 12] [--seed 1] [--db-name moonlight_bench_backup]

A league of ``--teams`` All-Stars teams (the demo clans' starting rosters) plays a double round
robin, simulated with persistence as the master's "simulate the rest of the season" does; its
backup (``api.backup.league_export_json``) is then read, checked and imported as a copy into a new
league (what the import page does). Printed, with tracemalloc's peak of each step over the file's
size:

* read: the size check, the nesting scan and ``json.loads`` (``league_document_read``);
* check: ``league_check``, every row made and validated, nothing written;
* import: ``league_import`` from the parsed document (check again, then write).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.simulate_season import _database_url, _recreate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db-name", default="moonlight_bench_backup")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database afterwards")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    url, admin = _database_url(base, args.db_name)
    _recreate(admin, args.db_name)
    os.environ["DATABASE_URL"] = url
    os.environ.pop("REDIS_URL", None)  # in-process: no broker
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")
    os.environ["DEBUG"] = "0"  # as in production: no query log kept in memory
    os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-not-for-production")
    os.environ["LEAGUE_IMPORT_MAX_BYTES"] = str(256 * 1024 * 1024)  # measure whatever size the league has
    try:
        _run(args)
    finally:
        if not args.keep:
            from django.db import connections

            connections.close_all()
            _recreate(admin, args.db_name, drop_only=True)


def _measure(step):
    tracemalloc.start()
    tracemalloc.reset_peak()
    started = time.perf_counter()
    result = step()
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, peak, elapsed


def _run(args) -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from api import backup
    from games.allstars.demo import DEMO_TEAMS
    from league import services as league_services
    from league.models import League, ScheduleRun, Season
    from league.services import simulations
    from rules.models import Clan, Profile
    from teams import services as team_services

    call_command("migrate", verbosity=0)
    User = get_user_model()
    master = User.objects.create(username="bench-master")
    league = League.objects.create(name="Benchmark League", slug="benchmark", master=master)
    season = league_services.season_create(league=league, format=Season.Format.DOUBLE_ROUND_ROBIN)
    for i in range(args.teams):
        _, _, clan, roster = DEMO_TEAMS[i % len(DEMO_TEAMS)]
        owner = User.objects.create(username=f"bench-{i}")
        team = team_services.team_create(
            owner=owner, name=f"Team {i + 1}", clan=Clan.objects.get(slug=clan), league=league
        )
        for slug, count in roster:
            profile = Profile.objects.get(slug=slug)
            chosen = list(profile.abilities.all()[: profile.choose_abilities])
            for _ in range(count):
                team_services.team_recruit(team=team, profile=profile, chosen_abilities=chosen)
        team_services.team_mark_ready(team=team)
        league_services.application_accept(team=team)
    run = league_services.schedule_request(season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, seed=args.seed)
    league_services.schedule_generate(run_id=run.pk)
    job, _ = simulations.simulation_request(actor=master, scope="season", season=season, seed=args.seed)
    job = simulations.simulation_job_run(job_id=job.pk)
    data = backup.league_export_json(league)
    size = len(data)
    rows = sum(len(v) for v in json.loads(data).values() if isinstance(v, list))

    importer = User.objects.create(username="bench-importer")
    document, read_peak, read_s = _measure(lambda: backup.league_document_read(data))
    _, check_peak, check_s = _measure(
        lambda: backup.league_check(document, owner=importer, name="Benchmark Copy", slug="benchmark-copy")
    )
    copy, import_peak, import_s = _measure(
        lambda: backup.league_import(document, owner=importer, name="Benchmark Copy", slug="benchmark-copy")
    )
    assert backup.league_export_json(copy).count(b'"status": "confirmed"') == data.count(b'"status": "confirmed"')

    figures = {
        "teams": args.teams,
        "matches": job.done,
        "rows": rows,
        "file_bytes": size,
        "read_peak_bytes": read_peak,
        "check_peak_bytes": check_peak,
        "import_peak_bytes": import_peak,
        "read_s": round(read_s, 3),
        "check_s": round(check_s, 3),
        "import_s": round(import_s, 3),
    }
    print(f"league: {args.teams} teams, {job.done} simulated matches, {rows:,} rows; backup {size / 1024:,.0f} KB")
    for step, peak, seconds in (
        ("read (size, nesting, json.loads)", read_peak, read_s),
        ("check (every row validated)", check_peak, check_s),
        ("import (check again, then write)", import_peak, import_s),
    ):
        print(f"  {step:36} peak {peak / 1024 / 1024:7.1f} MB = {peak / size:5.1f} x the file   {seconds:6.2f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
