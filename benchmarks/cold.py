"""Member pages warm and cold, as CPU time against the minimal view (issue 29, parts 2 and 6):

    .venv/bin/python benchmarks/cold.py [--sizes 8,64,256] [--rounds 5] [--pages "league table,..."]
        [--keep-db] [--reuse-db] [--json FILE]

1. Creates (or with ``--reuse-db`` reuses) its own PostgreSQL database, as benchmarks/pages.py
   does (BENCH_DATABASE_URL, the name always holds "bench"; default .../bench_cold), and seeds one
   round-robin league per size in mid-season (benchmarks/seed.py) with a published newsletter.
2. In-process (the test client, DEBUG=0, the whole middleware stack), for each league: the six
   member pages (league table, team scroll, match page, dashboard, the master's desk, newsletter),
   each signed in as who opens it (the scroll's owner; the master for the desk), measured
   *warm* (the fragment cache holding its blocks), *after a write elsewhere* (a team of another
   league renamed through the teams service and back: nothing of this league changed), *after a
   write here* (every version of this league moved: its league, season, teams and matches, as a
   result confirmed there moves the versions of what it shows) and *cold* (the cache emptied).
3. A measurement is CPU time: this process's (``time.process_time_ns``) plus its PostgreSQL
   backend's (``/proc/<pid>/schedstat``, nanoseconds; the server is local), the median of
   ``--rounds``, against the minimal view (/bench/minimal, benchmarks/bench_urls.py) measured the
   same way in the same process, so the ratio holds on a busy machine. The least of the rounds of
   each cold render is printed too (a noisy machine only adds to a round: on one whose minimal view
   swings 1.2-4 ms the least is the steadier figure), and its queries and rows fetched
   (common/dbstats.py).
4. Prints the table and issue 29's goals: every page cold at 64 teams in at most 14 minimal views,
   and each page at 256 teams no more than 1.5 times its cost at 8; ``--json`` writes the figures
   (benchmarks/run_all.py reads them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.pages import admin_connect, create_database  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench_cold"
PAGES = ("league table", "team scroll", "match page", "dashboard", "master's desk", "newsletter")
STATES = ("warm", "after a write elsewhere", "after a write here", "cold")
#: Issue 29, part 2.
GOAL_COLD_RATIO = 14.0
GOAL_GROWTH = 1.5


def database_url(name: str = "bench_cold") -> str:
    """The benchmark's own database: BENCH_DATABASE_URL's server, named ``name`` (each benchmark
    its own, so that one's ``--keep-db`` is not dropped by another's seeding) unless the URL names
    a database of its own with "bench" in it."""
    url = os.environ.get("BENCH_DATABASE_URL") or DEFAULT_URL
    parts = urlsplit(url)
    if not parts.scheme.startswith("postgres"):
        raise SystemExit(f"The benchmark needs PostgreSQL; got {parts.scheme}://")
    if "bench" not in parts.path or parts.path == urlsplit(DEFAULT_URL).path:
        parts = parts._replace(path=f"/{name}")
    return urlunsplit(parts)


def database_exists(url: str) -> bool:
    name = urlsplit(url).path.lstrip("/")
    with admin_connect(url) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


class Cpu:
    """CPU time of this process plus its database backend, in milliseconds."""

    def __init__(self):
        from django.db import connection

        self.connection = connection

    def _backend_ns(self) -> int:
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])

    def measure(self, fn) -> float:
        b0 = self._backend_ns()
        p0 = time.process_time_ns()
        fn()
        p1 = time.process_time_ns()
        b1 = self._backend_ns()
        return (p1 - p0 + b1 - b0) / 1e6


@dataclass
class Figure:
    teams: int
    page: str
    state: str
    ms: float  # median CPU ms (process + backend)
    ratio: float  # of the minimal view's
    queries: int
    rows: int
    #: the least CPU ms of the rounds: a busy machine (another process, a neighbour on the host)
    #: only adds to a round's time, so on a noisy machine the least is the steadier figure
    best_ms: float = 0.0


def page_urls(seeded) -> dict[str, tuple[str, object]]:
    """Each page's URL and who opens it."""
    from benchmarks.pages import page_urls as pages_urls

    base = pages_urls(seeded)
    member = _scroll_owner(seeded, base["team scroll"])
    season, league = seeded.season, seeded.league
    urls = {
        "league table": (base["league table"], member),
        "team scroll": (base["team scroll"], member),
        "match page": (base["match page"], member),
        "dashboard": ("/", member),
        "master's desk": (f"/leagues/{league.slug}/seasons/{season.number}/desk/", league.master),
    }
    if "newsletter" in base:
        urls["newsletter"] = (base["newsletter"], member)
    return urls


def _scroll_owner(seeded, scroll_url: str):
    from teams.models import Team

    return Team.objects.select_related("owner").get(pk=int(scroll_url.rstrip("/").rsplit("/", 1)[1])).owner


def move_league_versions(league) -> None:
    """Every version of ``league`` moved: what a result confirmed there moves, at the most."""
    from common import invalidation
    from league.models import Season
    from matches.models import Match
    from teams.models import Team

    seasons = list(Season.objects.filter(league=league).values_list("pk", flat=True))
    scopes = [invalidation.league(league.pk), invalidation.league_meta(league.pk), invalidation.SITE]
    scopes += [invalidation.season(pk) for pk in seasons]
    scopes += [invalidation.team(pk) for pk in Team.objects.filter(league=league).values_list("pk", flat=True)]
    scopes += [invalidation.match(pk) for pk in Match.objects.filter(season__in=seasons).values_list("pk", flat=True)]
    invalidation.bump(scopes)


def write_elsewhere(other_league) -> None:
    """A team of another league renamed through the teams service, and back (two committed writes)."""
    from teams import services as team_services
    from teams.models import Team

    team = Team.objects.filter(league=other_league).order_by("pk").first()
    name = team.name
    team_services.team_rename(team=team, name=name[:90] + " X")
    team = Team.objects.get(pk=team.pk)
    team_services.team_rename(team=team, name=name)


def measure_league(
    n, seeded, other, rounds: int, cpu: Cpu, minimal_ms: float, pages: tuple[str, ...] = PAGES
) -> list[Figure]:
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from common.dbstats import count_rows

    clients: dict[int, Client] = {}
    figures = []
    for page, (url, user) in page_urls(seeded).items():
        if page not in pages:
            continue
        client = clients.get(user.pk)
        if client is None:
            client = clients[user.pk] = Client()
            client.force_login(user)

        def get(url=url, client=client):
            resp = client.get(url)
            if resp.status_code != 200:
                raise SystemExit(f"{url} answered {resp.status_code}")

        prepare = {
            "warm": lambda: None,
            "after a write elsewhere": lambda: write_elsewhere(other),
            "after a write here": lambda: move_league_versions(seeded.league),
            "cold": lambda client=client, user=user: _empty_cache(cache, client, user),
        }
        for state in STATES:
            get()  # built once: the state is then made from a warm cache
            times = []
            for _ in range(rounds):
                prepare[state]()
                times.append(cpu.measure(get))
            prepare[state]()
            with CaptureQueriesContext(connection) as ctx, count_rows() as fetched:
                get()
            ms = statistics.median(times)
            figures.append(Figure(n, page, state, ms, ms / minimal_ms, len(ctx), fetched.rows, min(times)))
    return figures


def _empty_cache(cache, client, user) -> None:
    cache.clear()
    client.force_login(user)  # a session kept in the cache goes with it: sign in again, uncounted


def minimal_cpu(cpu: Cpu, user, repeat: int = 200) -> float:
    from django.test import Client

    client = Client()
    client.force_login(user)
    for _ in range(20):
        client.get("/bench/minimal")
    return statistics.median(cpu.measure(lambda: client.get("/bench/minimal")) for _ in range(repeat))


def set_up(db_url: str, *, redis_url: str, reuse: bool, page_cache: bool = True) -> bool:
    """The environment of a production process (DEBUG off, Redis, the fragment cache on), the
    benchmark's database created (or reused: returns whether it was) and migrated, Django set up."""
    os.environ.update(
        {
            "DATABASE_URL": db_url,
            "DJANGO_SETTINGS_MODULE": "benchmarks.bench_settings",
            "DEBUG": "0",
            "SECRET_KEY": "benchmark-only-secret-key-" + "x" * 40,
            "SECURE_SSL_REDIRECT": "0",
            "ALLOWED_HOSTS": "127.0.0.1,testserver",
            "BENCH_STATIC_ROOT": tempfile.mkdtemp(prefix="bench-static-"),
            "AXES_ENABLED": "0",
            "REDIS_URL": redis_url,
            "CACHE_KEY_PREFIX": f"bench-cold-{os.getpid()}",
            "FRAGMENT_CACHE_SECONDS": "300",  # as in production (on with Redis)
            "PAGE_CACHE_SECONDS": "300" if page_cache else "0",
            "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        }
    )
    reuse = reuse and database_exists(db_url)
    if not reuse:
        create_database(db_url)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)
    return reuse


def seeded_leagues(sizes: list[int], *, reuse: bool, services_matches: int) -> dict:
    """One mid-season round-robin league per size (benchmarks/seed.py), or the one a --keep-db run left."""
    from benchmarks import seed
    from league.models import League, Season
    from newsletters.models import Newsletter

    leagues = {}
    for n in sizes:
        name = f"Bench League {n}"
        league = League.objects.filter(name=name).first() if reuse else None
        if league is None:
            t0 = time.perf_counter()
            s = seed.seed_league(
                name=name, teams=n, played=n * (n - 1) // 4, services_matches=services_matches, seed=n, advancements=0.5
            )
            s.newsletter = seed.seed_newsletter(s.league, s.season)
            print(f"Seeded {name} in {time.perf_counter() - t0:.0f} s", flush=True)
        else:
            season = Season.objects.filter(league=league).order_by("-number").first()
            s = seed.Seeded(league=league, season=season, teams=list(league.teams.order_by("pk")))
            s.newsletter = Newsletter.objects.filter(league=league, published_at__isnull=False).first()
        leagues[n] = s
    return leagues


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8,64,256")
    parser.add_argument("--rounds", type=int, default=5, help="measurements of each page and state (median)")
    parser.add_argument(
        "--pages",
        default=",".join(PAGES),
        help=f"comma-separated pages to measure, of: {', '.join(PAGES)} (default: all)",
    )
    parser.add_argument("--services-matches", type=int, default=160)
    parser.add_argument("--keep-db", action="store_true", help="do not drop the database (for --reuse-db)")
    parser.add_argument("--reuse-db", action="store_true", help="measure the database a --keep-db run left")
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/9"))
    parser.add_argument("--json")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args()
    sizes = sorted({int(n) for n in args.sizes.split(",")})
    pages = tuple(p for p in PAGES if p in {name.strip() for name in args.pages.split(",")})
    unknown = {name.strip() for name in args.pages.split(",")} - set(PAGES)
    if unknown or not pages:
        parser.error(
            f"--pages: unknown {', '.join(sorted(unknown)) or 'none given'}; the pages are: {', '.join(PAGES)}"
        )
    db_url = database_url()
    reuse = set_up(db_url, redis_url=args.redis_url, reuse=args.reuse_db)
    from benchmarks import seed

    try:
        leagues = seeded_leagues(sizes, reuse=reuse, services_matches=args.services_matches)
        if len(leagues) == 1:  # a write elsewhere needs another league
            extra = sizes[0] + 1
            leagues_other = seed.seed_league(
                name=f"Bench League {extra}", teams=4, played=2, services_matches=2, seed=extra
            )
            others = {sizes[0]: leagues_other.league}
        else:
            others = {n: leagues[sizes[(i + 1) % len(sizes)]].league for i, n in enumerate(sizes)}
        seed.settle_database()
        cpu = Cpu()
        figures: list[Figure] = []
        minimal = {}
        for n in sizes:
            minimal[n] = minimal_cpu(cpu, leagues[n].teams[0].owner)
            figures += measure_league(n, leagues[n], others[n], args.rounds, cpu, minimal[n], pages)
            print(f"Measured {n} teams (minimal view {minimal[n]:.2f} ms CPU)", flush=True)
    finally:
        if not args.keep_db:
            from django.db import connections

            connections.close_all()
            with admin_connect(db_url) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{urlsplit(db_url).path.lstrip("/")}" WITH (FORCE)')

    print(f"\nCPU time (process + PostgreSQL backend), median of {args.rounds}, as minimal views")
    print(
        f"{'page':<14} {'teams':>5} "
        + " ".join(f"{s:>24}" for s in STATES)
        + f" {'cold, least':>12} {'queries':>8} {'rows':>6}"
    )
    for n in sizes:
        for page in PAGES:
            row = {f.state: f for f in figures if f.teams == n and f.page == page}
            if not row:
                continue
            cells = " ".join(f"{row[s].ratio:>9.1f} ({row[s].ms:>6.1f} ms)   " for s in STATES)
            best = f"{row['cold'].best_ms:>9.1f} ms"
            print(f"{page:<14} {n:>5} {cells} {best} {row['cold'].queries:>8} {row['cold'].rows:>6}")
    goals = check_goals(figures, sizes)
    print("\nGoals (issue 29, part 2):")
    for text, ok in goals:
        print(f"  [{'met' if ok else 'MISSED'}] {text}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"minimal_ms": minimal, "figures": [asdict(f) for f in figures], "goals": goals}, indent=2)
        )
    return 1 if args.strict and not all(ok for _, ok in goals) else 0


def check_goals(figures: list[Figure], sizes: list[int]) -> list[tuple[str, bool]]:
    goals = []
    cold = {(f.teams, f.page): f for f in figures if f.state == "cold"}
    for page in PAGES:
        if (64, page) in cold:
            f = cold[64, page]
            goals.append(
                (f"{page} cold at 64 teams: {f.ratio:.1f} minimal views <= {GOAL_COLD_RATIO:g}", f.ratio <= 14)
            )
        if (8, page) in cold and (256, page) in cold:
            growth = cold[256, page].ms / cold[8, page].ms
            goals.append((f"{page} cold at 256 teams: {growth:.2f}x its cost at 8 <= {GOAL_GROWTH:g}", growth <= 1.5))
    return goals


if __name__ == "__main__":
    sys.exit(main())
