"""Measure the league's pages against PostgreSQL, Redis and gunicorn, from one command:

    .venv/bin/python benchmarks/pages.py [--sizes 8,64,256] [--rounds 3] [--seconds 3] [--tool auto|wrk|python]

1. Creates its own PostgreSQL database (BENCH_DATABASE_URL, else DATABASE_URL's server, default
   postgres://postgres@127.0.0.1:5432/bench; the database name must contain "bench", otherwise
   "bench" is used on that server), migrates it and collects static files into a temporary folder.
2. Seeds one round-robin league per size (8, 64 and 256 teams), in mid-season: half of its
   fixtures played (the latest ``--services-matches`` through the full result path, the earlier in
   bulk; benchmarks/seed.py), half of the advancement rolls taken, and a newsletter published.
3. In-process (test client), for a signed-in member: each page's queries, rows fetched
   (common/dbstats.py), size and time, at every size.
4. Starts gunicorn (2 workers, DEBUG=0, Redis page cache) on a free loopback port and measures
   requests per second of each page, for an anonymous visitor (served by the page cache) and for
   a signed-in member (rendered), each measurement right after one of the minimal view
   (/bench/minimal, benchmarks/bench_urls.py) with the same headers; ``--rounds`` rounds, the
   median ratio and its range printed. wrk if installed, else a Python load generator.
5. Prints every figure and issue 15's goals, stops gunicorn and drops the database (unless
   --keep-db); ``--json FILE`` also writes the figures (benchmarks/run_all.py).
"""

from __future__ import annotations

import argparse
import json
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
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import load  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench"


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


#: The header every browser sends, on every measured request (the minimal view's too).
BROWSER = {"Accept-Encoding": "gzip, deflate, br"}


@dataclass
class InProcess:
    queries: int
    rows: int  # rows fetched from the database (common/dbstats.py)
    kb: float
    ms: float  # median time of one request through the test client
    db_ms: float  # of which waiting for PostgreSQL (median)


def in_process(urls: dict[str, str], user, repeat: int = 5) -> dict[str, InProcess]:
    """Queries, rows fetched, size and time of each page rendered for a signed-in member through
    the test client (after one warm-up request)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from common.dbstats import count_rows

    client = Client()
    client.force_login(user)
    out = {}
    for name, url in urls.items():
        client.get(url)
        times, db_times, counts, rows = [], [], set(), set()
        for _ in range(repeat):
            db = [0.0]

            def timed(execute, sql, params, many, context, db=db):
                t = time.perf_counter()
                try:
                    return execute(sql, params, many, context)
                finally:
                    db[0] += time.perf_counter() - t

            started = time.perf_counter()
            with (
                CaptureQueriesContext(connection) as ctx,
                connection.execute_wrapper(timed),
                count_rows() as fetched,
            ):
                resp = client.get(url)
            times.append(time.perf_counter() - started)
            db_times.append(db[0])
            counts.add(len(ctx))
            rows.add(fetched.rows)
            if resp.status_code != 200:
                raise SystemExit(f"{url} answered {resp.status_code}")
        if len(counts) != 1:
            raise SystemExit(f"{url}: the query count changes between identical requests: {sorted(counts)}")
        out[name] = InProcess(
            queries=counts.pop(),
            rows=max(rows),
            kb=len(resp.content) / 1024,
            ms=1000 * statistics.median(times),
            db_ms=1000 * statistics.median(db_times),
        )
    return out


def session_cookie(user) -> str:
    """A signed-in member's session cookie (stored in the database the server reads)."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


@dataclass
class Measured:
    page: str
    teams: int
    reader: str  # "anonymous (cached)" or "member (rendered)"
    rps: list[float]
    minimal_rps: list[float]
    errors: int

    @property
    def ratios(self) -> list[float]:
        return [p / m if m else 0.0 for p, m in zip(self.rps, self.minimal_rps)]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def ms(self) -> float:
        """Milliseconds of server time per request at the median rate (connections / rps is the
        latency; this is 1000 / rps, the throughput's cost)."""
        return 1000 / statistics.median(self.rps) if statistics.median(self.rps) else float("inf")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8,64,256", help="league sizes in teams (default 8,64,256)")
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each page (median; default 3)")
    parser.add_argument("--seconds", type=float, default=3.0, help="load time per measurement (default 3)")
    parser.add_argument("--connections", type=int, default=8, help="concurrent connections (default 8)")
    parser.add_argument("--tool", choices=["auto", "wrk", "python"], default="auto")
    parser.add_argument(
        "--services-matches",
        type=int,
        default=160,
        help="latest results of each league entered through the full result path (the earlier ones in bulk)",
    )
    parser.add_argument(
        "--advancements", type=float, default=0.5, help="share of the advancement rolls taken (default 0.5)"
    )
    parser.add_argument(
        "--jit",
        choices=["default", "off"],
        default="default",
        help="PostgreSQL JIT for the benchmark database (default: the server's setting)",
    )
    parser.add_argument("--keep-db", action="store_true", help="do not drop the benchmark database")
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/8"))
    parser.add_argument("--json", help="also write the figures to this file (benchmarks/run_all.py reads it)")
    parser.add_argument("--strict", action="store_true", help="exit with status 1 when a goal is missed")
    args = parser.parse_args()
    sizes = sorted({int(n) for n in args.sizes.split(",")})

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
        # the seeded players' notification mails stay in memory (the console backend printed ~99,000 lines)
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
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

        leagues = {}
        for n in sizes:
            fixtures = n * (n - 1) // 2
            leagues[n] = seed.seed_league(
                name=f"Bench League {n}",
                teams=n,
                played=fixtures // 2,  # mid-season: half the fixtures still to play
                services_matches=args.services_matches,
                seed=n,
                advancements=args.advancements,
            )
            leagues[n].newsletter = seed.seed_newsletter(leagues[n].league, leagues[n].season)
        from django.db import connection

        seed.settle_database()  # what autovacuum would keep: statistics, the visibility map
        with connection.cursor() as cursor:
            cursor.execute("SHOW jit")
            jit = cursor.fetchone()[0]
        print("\nSeeded (see benchmarks/seed.py):")
        for s in leagues.values():
            took = ", ".join(f"{k} {v:.1f} s" for k, v in s.seconds.items())
            print(
                f"  {s.league.name}: {len(s.teams)} teams through the services; {s.played_services} results "
                f"through the full result path, {s.played_bulk} bulk-inserted, {s.unplayed} fixtures unplayed; "
                f"newsletter {'published' if s.newsletter else 'not available'} ({took})"
            )

        urls = {n: page_urls(s) for n, s in leagues.items()}
        members = {n: s.teams[0].owner for n, s in leagues.items()}
        inproc = {n: in_process(urls[n], members[n]) for n in sizes}
        print("\nIn-process, rendered for a member (test client, median of 5; DEBUG=0)")
        print(f"{'page':<14} {'teams':>5} {'queries':>8} {'rows':>6} {'KB':>6} {'ms':>8} {'db ms':>8}")
        for n in sizes:
            for name, c in inproc[n].items():
                print(f"{name:<14} {n:>5} {c.queries:>8} {c.rows:>6} {c.kb:>6.0f} {c.ms:>8.1f} {c.db_ms:>8.1f}")

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        # As in production: Redis is the shared cache; anonymous reads of public pages are served
        # from it until the next write (common/pagecache.py); members always get a rendered page.
        server_env = {
            **os.environ,
            **env,
            "REDIS_URL": args.redis_url,
            "CACHE_KEY_PREFIX": f"bench-{port}",
            "PAGE_CACHE_SECONDS": "300",
        }
        gunicorn = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "league.wsgi",
                "--config",
                str(ROOT / "benchmarks" / "bench_gunicorn.conf.py"),
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
        cookies = {n: session_cookie(members[n]) for n in sizes}
        # Every reader sends what a browser sends: Accept-Encoding: gzip (the page cache keeps
        # pages compressed and sends them so; rendered pages are not compressed by the site).
        readers = {
            "anonymous (cached)": lambda n: dict(BROWSER),
            "member (rendered)": lambda n: {**BROWSER, "Cookie": cookies[n]},
        }
        for n in sizes:
            for url in ["/bench/minimal", *urls[n].values()]:
                for headers in (readers[r](n) for r in readers):
                    for _ in range(2):  # warm both workers' connections, template and page caches
                        request = urllib.request.Request(base + url, headers=headers)
                        with urllib.request.urlopen(request, timeout=300) as resp:
                            resp.read()

        how = {
            "wrk": "wrk",
            "python": "Python threads + http.client ("
            + ("asked for with --tool python" if args.tool == "python" else "wrk is not installed")
            + "; the client, not the server, limits the minimal view, so ratios read high)",
        }[tool]
        print(
            f"\nLoad: {how}, {args.connections} connections, {args.seconds:g} s per measurement, "
            f"{args.rounds} rounds (each page right after the minimal view); gunicorn --workers 2, DEBUG=0, "
            f"no access log; PostgreSQL jit={jit}; Redis page cache; every request with "
            f"Accept-Encoding: {BROWSER['Accept-Encoding']} (as a browser); {os.cpu_count()} CPUs "
            f"({platform.processor() or platform.machine()}), load tool on the same machine; "
            f"load average before: {os.getloadavg()[0]:.1f}."
        )

        def run(url: str, headers: dict) -> load.LoadResult:
            result = load.measure(
                base + url, seconds=args.seconds, connections=args.connections, tool=tool, headers=headers
            )
            # A page slower than the load tool's timeout leaves requests queued in gunicorn: wait
            # until they are served so that they do not slow the next measurement.
            with urllib.request.urlopen(base + "/bench/minimal", timeout=600) as resp:
                resp.read()
            return result

        measured: list[Measured] = []
        for n in sizes:
            for name, url in urls[n].items():
                for reader, headers_for in readers.items():
                    headers = headers_for(n)
                    m = Measured(page=name, teams=n, reader=reader, rps=[], minimal_rps=[], errors=0)
                    for _ in range(args.rounds):
                        minimal = run("/bench/minimal", headers)
                        page = run(url, headers)
                        m.minimal_rps.append(minimal.rps)
                        m.rps.append(page.rps)
                        m.errors += page.errors + minimal.errors
                    measured.append(m)

        print(
            f"\n{'page':<14} {'teams':>5} {'reader':<19} {'req/s':>8} {'ms/req':>7} {'ratio':>6} {'range':>11}"
            f" {'queries':>7} {'rows':>5}"
        )
        for m in measured:
            c = inproc[m.teams][m.page]
            low, high = min(m.ratios), max(m.ratios)
            errors = f"  ({m.errors} errors)" if m.errors else ""
            print(
                f"{m.page:<14} {m.teams:>5} {m.reader:<19} {statistics.median(m.rps):8.0f} {m.ms:7.2f} "
                f"{m.ratio:6.3f} {low:5.3f}-{high:5.3f} {c.queries:>7} {c.rows:>5}{errors}"
            )
        print(f"Load average after: {os.getloadavg()[0]:.1f} (other processes on the machine skew every figure).")
        print("\nURLs measured: " + "; ".join(f"{n} teams: " + ", ".join(urls[n].values()) for n in sizes))

        goals = check_goals(measured, inproc, sizes)
        print("\nGoals (issue 15):")
        for text, ok in goals:
            print(f"  [{'met' if ok else 'MISSED'}] {text}")
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    {
                        "tool": tool,
                        "measured": [
                            {
                                **asdict(m),
                                "ratio": m.ratio,
                                "ms": m.ms,
                                **{f"inproc_{k}": v for k, v in asdict(inproc[m.teams][m.page]).items()},
                            }
                            for m in measured
                        ],
                        "goals": goals,
                    },
                    indent=1,
                )
            )
        return 1 if args.strict and not all(ok for _, ok in goals) else 0
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


MEMBER_GOAL, ANONYMOUS_GOAL, GROWTH_LIMIT = 0.15, 0.5, 1.5


def check_goals(measured: list[Measured], inproc: dict, sizes: list[int]) -> list[tuple[str, bool]]:
    """Issue 15's goals, each with whether this run met it."""
    goals = []
    by = {(m.page, m.teams, m.reader): m for m in measured}
    mid = 64 if 64 in sizes else sizes[len(sizes) // 2]
    small, large = sizes[0], sizes[-1]
    for m in measured:
        if m.reader.startswith("member") and m.teams == mid:
            goals.append(
                (f"{m.page}, member, {mid} teams: ratio {m.ratio:.3f} >= {MEMBER_GOAL}", m.ratio >= MEMBER_GOAL)
            )
    for m in measured:
        if m.reader.startswith("member") and m.teams == large and large != small:
            base = by[(m.page, small, m.reader)]
            slower = m.ms / base.ms
            goals.append(
                (
                    f"{m.page}, member: {large} teams {slower:.2f}x the time of {small} teams (<= {GROWTH_LIMIT})",
                    slower <= GROWTH_LIMIT,
                )
            )
    for m in measured:
        if m.reader.startswith("anonymous"):
            goals.append(
                (
                    f"{m.page}, anonymous, {m.teams} teams: ratio {m.ratio:.3f} >= {ANONYMOUS_GOAL}",
                    m.ratio >= ANONYMOUS_GOAL,
                )
            )
    for page in inproc[small]:
        queries = [inproc[n][page].queries for n in sizes]
        goals.append((f"{page}: queries {queries} the same at {sizes} teams", len(set(queries)) == 1))
    return goals


if __name__ == "__main__":
    sys.exit(main())
