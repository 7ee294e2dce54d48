"""Measure the league's pages against PostgreSQL and gunicorn, from one command:

    .venv/bin/python benchmarks/pages.py [--seconds 5] [--connections 8] [--tool auto|wrk|python]

1. Creates its own PostgreSQL database (BENCH_DATABASE_URL, else DATABASE_URL's server, default
   postgres://postgres@127.0.0.1:5432/bench; the database name must contain "bench", otherwise
   "bench" is used on that server), migrates it and collects static files into a temporary folder.
2. Seeds an 8-team league (every fixture of its round robin played through the services) and a
   64-team league with 2,000 played matches (see benchmarks/seed.py for what is made how), and
   publishes a newsletter for the last round of each.
3. Counts the queries of each page in both leagues in-process (test client +
   CaptureQueriesContext): the counts must not grow with the league.
4. Starts gunicorn (2 workers, DEBUG=0) on a free loopback port and measures requests per second
   of each page of the 64-team league, each right after the minimal view (/bench/minimal, see
   benchmarks/bench_urls.py) in the same run, with wrk if installed, else a Python load generator.
5. Prints every figure and each page's ratio to the minimal view, stops gunicorn and drops the
   database (unless --keep-db).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import load  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench"
RATIO_GOAL = 0.3


def bench_database_url() -> str:
    url = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("DATABASE_URL") or DEFAULT_URL
    parts = urlsplit(url)
    if not parts.scheme.startswith("postgres"):
        raise SystemExit(f"The benchmark needs PostgreSQL; got {parts.scheme}://")
    name = parts.path.lstrip("/")
    if "bench" not in name:  # never create or drop a database that is not the benchmark's own
        parts = parts._replace(path="/bench")
    return urlunsplit(parts)


def admin_connect(url: str):
    import psycopg

    parts = urlsplit(url)
    return psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True)


def create_database(url: str) -> None:
    name = urlsplit(url).path.lstrip("/")
    with admin_connect(url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(url: str) -> None:
    name = urlsplit(url).path.lstrip("/")
    with admin_connect(url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, proc: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gunicorn exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"gunicorn did not answer {url} within {timeout:.0f} s")


def page_urls(seeded) -> dict[str, str]:
    """The four pages of one league: table, a scroll, a match page (full post-game sequence), and
    the newsletter (when the newsletters app exists)."""
    from django.db.models import Count

    from matches.models import Match
    from teams.models import Team

    season, league = seeded.season, seeded.league
    team = Team.objects.filter(league=league).annotate(games=Count("match_sides")).order_by("-games", "pk").first()
    match = (
        Match.objects.filter(season=season, status=Match.Status.CONFIRMED, submitted_record__isnull=False)
        .order_by("-pk")
        .first()
    )
    urls = {
        "league table": f"/leagues/{league.slug}/seasons/{season.number}/",
        "team scroll": f"/teams/{team.pk}/",
        "match page": f"/matches/{match.pk}/",
    }
    if seeded.newsletter is not None:
        urls["newsletter"] = seeded.newsletter.get_absolute_url()
    return urls


@dataclass
class InProcess:
    queries: int
    kb: float
    ms: float  # median time of one request through the test client
    db_ms: float  # of which waiting for PostgreSQL (median)


def in_process(urls: dict[str, str], repeat: int = 5) -> dict[str, InProcess]:
    """Query count, size and time of each page through the test client (after one warm-up request)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    out = {}
    for name, url in urls.items():
        client.get(url)
        times, db_times, counts = [], [], set()
        for _ in range(repeat):
            db = [0.0]

            def timed(execute, sql, params, many, context, db=db):
                t = time.perf_counter()
                try:
                    return execute(sql, params, many, context)
                finally:
                    db[0] += time.perf_counter() - t

            started = time.perf_counter()
            with CaptureQueriesContext(connection) as ctx, connection.execute_wrapper(timed):
                resp = client.get(url)
            times.append(time.perf_counter() - started)
            db_times.append(db[0])
            counts.add(len(ctx))
            if resp.status_code != 200:
                raise SystemExit(f"{url} answered {resp.status_code}")
        if len(counts) != 1:
            raise SystemExit(f"{url}: the query count changes between identical requests: {sorted(counts)}")
        out[name] = InProcess(
            queries=counts.pop(),
            kb=len(resp.content) / 1024,
            ms=1000 * statistics.median(times),
            db_ms=1000 * statistics.median(db_times),
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="load time per measurement (default 5)")
    parser.add_argument("--connections", type=int, default=8, help="concurrent connections (default 8)")
    parser.add_argument("--tool", choices=["auto", "wrk", "python"], default="auto")
    parser.add_argument("--teams", type=int, default=64)
    parser.add_argument("--matches", type=int, default=2000, help="played matches in the big league")
    parser.add_argument(
        "--services-matches",
        type=int,
        default=320,
        help="latest results of the big league entered through the full result path "
        "(the earlier ones in bulk; 2000 takes about 2.5 minutes)",
    )
    parser.add_argument("--small-teams", type=int, default=8)
    parser.add_argument(
        "--jit",
        choices=["default", "off"],
        default="default",
        help="PostgreSQL JIT for the benchmark database (default: the server's setting)",
    )
    parser.add_argument("--keep-db", action="store_true", help="do not drop the benchmark database")
    parser.add_argument(
        "--page-cache",
        choices=["on", "off"],
        default="on",
        help="serve with the production page cache for anonymous readers (default on; Redis)",
    )
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/8"))
    parser.add_argument("--strict", action="store_true", help="exit with status 1 when a goal is missed")
    args = parser.parse_args()

    tool = load.tool_name(args.tool)
    db_url = bench_database_url()
    static_root = tempfile.mkdtemp(prefix="bench-static-")
    env = {
        "DATABASE_URL": db_url,
        "DJANGO_SETTINGS_MODULE": "benchmarks.bench_settings",
        "DEBUG": "0",
        "SECRET_KEY": "benchmark-only-secret-key-" + "x" * 40,
        "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "127.0.0.1,testserver",
        "BENCH_STATIC_ROOT": static_root,
        "AXES_ENABLED": "0",
        "REDIS_URL": "",  # tasks (the newsletter build) run eagerly while seeding
    }
    os.environ.update(env)
    print(f"Benchmark database: {urlsplit(db_url)._replace(netloc=urlsplit(db_url).hostname or '').geturl()}")
    create_database(db_url)
    if args.jit == "off":
        with admin_connect(db_url) as conn:
            conn.execute(f'ALTER DATABASE "{urlsplit(db_url).path.lstrip("/")}" SET jit = off')
    gunicorn = None
    try:
        import django
        from django.core.management import call_command

        django.setup()
        t0 = time.perf_counter()
        call_command("migrate", verbosity=0, interactive=False)
        call_command("collectstatic", verbosity=0, interactive=False)
        print(f"Migrated and collected static files in {time.perf_counter() - t0:.1f} s")

        from benchmarks import seed

        # Both leagues have played all but part of their last round, so every page runs the same
        # code paths (e.g. the table's "next fixture" column) at both sizes.
        small_played = args.small_teams * (args.small_teams - 1) // 2 - args.small_teams // 2
        small = seed.seed_league(
            name="Small Bench League",
            teams=args.small_teams,
            played=small_played,
            services_matches=small_played,
            seed=8,
        )
        big = seed.seed_league(
            name="Big Bench League",
            teams=args.teams,
            played=args.matches,
            services_matches=args.services_matches,
            seed=64,
        )
        for s in (small, big):
            s.newsletter = seed.seed_newsletter(s.league, s.season)
        from django.db import connection

        with connection.cursor() as cursor:  # fresh planner statistics, as autovacuum would gather
            cursor.execute("ANALYZE")
            cursor.execute("SHOW jit")
            jit = cursor.fetchone()[0]
        print("\nSeeded (see benchmarks/seed.py):")
        for s in (small, big):
            took = ", ".join(f"{k} {v:.1f} s" for k, v in s.seconds.items())
            print(
                f"  {s.league.name}: {len(s.teams)} teams through the services; {s.played_services} results "
                f"through the full result path, {s.played_bulk} bulk-inserted, {s.unplayed} fixtures unplayed; "
                f"newsletter {'published' if s.newsletter else 'not available (no newsletters app)'} ({took})"
            )

        small_urls, big_urls = page_urls(small), page_urls(big)
        counts_small, counts_big = in_process(small_urls), in_process(big_urls)
        print("\nIn-process (test client, median of 5; DEBUG=0): queries, size, time (of which database)")
        print(f"{'page':<14} {'teams':>5} {'queries':>8} {'KB':>6} {'ms':>8} {'db ms':>8}")
        for teams, counts in ((args.small_teams, counts_small), (args.teams, counts_big)):
            for name, c in counts.items():
                print(f"{name:<14} {teams:>5} {c.queries:>8} {c.kb:>6.0f} {c.ms:>8.1f} {c.db_ms:>8.1f}")

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server_env = {**os.environ, **env}
        if args.page_cache == "on":
            # As in production: Redis is the shared cache, and anonymous reads of public pages are
            # served from it until the next write (league/pagecache.py).
            server_env.update(
                {"REDIS_URL": args.redis_url, "CACHE_KEY_PREFIX": f"bench-{port}", "PAGE_CACHE_SECONDS": "300"}
            )
        else:
            server_env.update({"PAGE_CACHE_SECONDS": "0"})
        print(
            f"\nPage cache for anonymous readers: {args.page_cache}"
            + (f" (Redis {args.redis_url})" if args.page_cache == "on" else " (every request renders the page)")
        )
        gunicorn = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "league.wsgi",
                "--workers",
                "2",
                "--bind",
                f"127.0.0.1:{port}",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=server_env,
        )
        wait_until_up(base + "/bench/minimal", gunicorn)
        for url in ["/bench/minimal", "/healthz", *big_urls.values()]:
            for _ in range(3):  # warm both workers' connections and template caches
                with urllib.request.urlopen(base + url, timeout=120) as resp:
                    resp.read()

        how = {
            "wrk": "wrk",
            "python": "Python threads + http.client ("
            + ("asked for with --tool python" if args.tool == "python" else "wrk is not installed")
            + "; the client, not the server, limits the minimal view, so ratios read high)",
        }[tool]
        print(
            f"\nLoad: {how}, "
            f"{args.connections} connections, {args.seconds:g} s per measurement; gunicorn --workers 2, "
            f"DEBUG=0, no access log; PostgreSQL jit={jit}; {os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), "
            f"load tool on the same machine; load average before: {os.getloadavg()[0]:.1f}."
        )
        results = []

        def run(url: str) -> load.LoadResult:
            result = load.measure(base + url, seconds=args.seconds, connections=args.connections, tool=tool)
            # A page slower than the load tool's timeout leaves requests queued in gunicorn: wait
            # until they are served so that they do not slow the next measurement.
            with urllib.request.urlopen(base + "/bench/minimal", timeout=600) as resp:
                resp.read()
            return result

        health = run("/healthz")
        for name, url in big_urls.items():
            minimal = run("/bench/minimal")
            page = run(url)
            results.append((name, url, page, minimal))

        print(
            f"\n{f'page ({args.teams} teams)':<16} {'req/s':>8} {'minimal req/s':>14} {'ratio':>6}  "
            f"{'queries@' + str(args.small_teams):>10} {'queries@' + str(args.teams):>11}  {'KB':>5}  goal"
        )
        misses = []
        for name, _url, page, minimal in results:
            ratio = page.rps / minimal.rps if minimal.rps else 0.0
            q_small, q_big = counts_small[name].queries, counts_big[name].queries
            ok_ratio, ok_queries = ratio >= RATIO_GOAL, q_small == q_big
            verdict = (
                "ok"
                if ok_ratio and ok_queries
                else "MISS: "
                + ", ".join(
                    ([f"ratio < {RATIO_GOAL}"] if not ok_ratio else []) + (["queries grow"] if not ok_queries else [])
                )
            )
            if not (ok_ratio and ok_queries):
                misses.append(name)
            errors = f" ({page.errors + minimal.errors} errors)" if page.errors or minimal.errors else ""
            print(
                f"{name:<16} {page.rps:8.0f} {minimal.rps:14.0f} {ratio:6.2f}  {q_small:>10} {q_big:>11}  "
                f"{counts_big[name].kb:5.0f}  {verdict}{errors}"
            )
        print(f"{'/healthz':<16} {health.rps:8.0f} {'':>14} {'':>6}  (SELECT 1 and a JSON answer)")
        print(f"Load average after: {os.getloadavg()[0]:.1f} (other processes on the machine skew every figure).")
        print("\nURLs measured: " + ", ".join(f"{n} {u}" for n, u, *_ in results))
        print(
            f"Goal: each ratio >= {RATIO_GOAL} and the same query count at {args.small_teams} and {args.teams} "
            f"teams: {'met' if not misses else 'missed by ' + ', '.join(misses)}."
        )
        return 1 if misses and args.strict else 0
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            try:
                gunicorn.wait(15)
            except subprocess.TimeoutExpired:
                gunicorn.kill()
        shutil.rmtree(static_root, ignore_errors=True)
        if args.keep_db:
            print(f"Kept the database {db_url}")
        else:
            if "django.db" in sys.modules:
                from django.db import connections

                connections.close_all()
            drop_database(db_url)


if __name__ == "__main__":
    sys.exit(main())
