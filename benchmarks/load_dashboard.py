"""The dashboard under load, and a visitor's page beside it (issue 29, part 3):

    .venv/bin/python benchmarks/load_dashboard.py [--teams 64] [--members 16] [--seconds 20] [--reuse-db] [--keep-db]

1. Its own database, ``bench_load``, made and seeded as benchmarks/cold.py makes its own
   (``--reuse-db``: the one a ``--keep-db`` run of this benchmark left), its league of
   ``--teams`` teams mid-season.
2. gunicorn as in production (2 sync workers, DEBUG off, Redis for the cache and the members'
   fragments) with the anonymous page cache **off**, so every visitor's page is rendered (as the
   first read after a write is).
3. ``--members`` concurrent members (each connection signs in as a different team owner, in
   turn) open their dashboard for ``--seconds`` with wrk; meanwhile one visitor (one connection)
   reads the league table, rendered for them. Then the visitor alone, for the floor.
4. Prints requests a second and latency percentiles (wrk's own, by a Lua ``done`` hook) of each,
   and issue 29's goals: the dashboard's p95 under 150 ms, the visitor's under 100 ms while the
   members' load runs. wrk's own ceiling (the minimal view at the same concurrency) is printed too,
   so the figures are the site's, not the load client's. wrk is installed from Debian's packages
   when missing (``apt-get install -y wrk``, as root).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.cold import database_url, seeded_leagues, set_up  # noqa: E402
from benchmarks.pages import drop_database, free_port, session_cookie, wait_until_up  # noqa: E402

GOAL_DASHBOARD_P95_MS = 150
GOAL_VISITOR_P95_MS = 100

#: wrk's script: each request a member's cookie in turn (each thread from its own offset), and the
#: latency percentiles printed at the end in microseconds.
LUA = r"""
local cookies = {}
for line in io.lines(os.getenv("BENCH_COOKIES")) do cookies[#cookies + 1] = line end
local counter = 0
local offset = 0
local threads = 0
function setup(thread)
  thread:set("offset", threads * 7919)
  threads = threads + 1
end
function init(args)
  counter = offset or 0
end
function request()
  counter = counter + 1
  local headers = {["Accept-Encoding"] = "gzip"}
  if #cookies > 0 then headers["Cookie"] = cookies[(counter % #cookies) + 1] end
  return wrk.format("GET", nil, headers)
end
function done(summary, latency, requests)
  io.write(string.format("BENCH p50=%d p95=%d p99=%d requests=%d non2xx=%d timeouts=%d\n",
    latency:percentile(50), latency:percentile(95), latency:percentile(99),
    summary.requests, summary.errors.status, summary.errors.timeout))
end
"""


def ensure_wrk() -> str:
    if shutil.which("wrk"):
        return "wrk"
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "wrk"], check=True, capture_output=True)
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing and could not be installed: apt-get install wrk")
    return "wrk"


def wrk(url: str, *, connections: int, seconds: int, cookies: list[str], script: Path) -> dict:
    cookie_file = Path(tempfile.mkstemp(prefix="bench-cookies-")[1])
    cookie_file.write_text("\n".join(cookies) + ("\n" if cookies else ""))
    try:
        out = subprocess.run(
            [
                *("wrk", f"-t{min(2, connections)}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s"),
                "-s",
                str(script),
                url,
            ],
            capture_output=True,
            text=True,
            timeout=seconds + 60,
            check=True,
            env={**os.environ, "BENCH_COOKIES": str(cookie_file)},
        ).stdout
    finally:
        cookie_file.unlink(missing_ok=True)
    m = re.search(r"BENCH p50=(\d+) p95=(\d+) p99=(\d+) requests=(\d+) non2xx=(\d+) timeouts=(\d+)", out)
    if m is None:
        raise SystemExit(f"wrk printed no figures:\n{out}")
    p50, p95, p99, requests, non2xx, timeouts = (int(g) for g in m.groups())
    elapsed = re.search(r"requests in ([\d.]+)(us|ms|s|m)\b", out)
    took = float(elapsed.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[elapsed.group(2)]
    return {
        "url": url,
        "connections": connections,
        "rps": (requests - non2xx) / took,
        "p50_ms": p50 / 1000,
        "p95_ms": p95 / 1000,
        "p99_ms": p99 / 1000,
        "errors": non2xx + timeouts,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teams", type=int, default=64)
    parser.add_argument("--members", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--services-matches", type=int, default=160)
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/9"))
    parser.add_argument("--reuse-db", action="store_true")
    parser.add_argument("--keep-db", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args()
    ensure_wrk()
    db_url = database_url("bench_load")
    reuse = set_up(db_url, redis_url=args.redis_url, reuse=args.reuse_db, page_cache=False)
    script = Path(tempfile.mkstemp(prefix="bench-", suffix=".lua")[1])
    script.write_text(LUA)
    gunicorn = None
    try:
        seeded = seeded_leagues([args.teams], reuse=reuse, services_matches=args.services_matches)[args.teams]
        owners = [t.owner for t in seeded.teams[: args.members]]
        cookies = [session_cookie(user) for user in owners]
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        gunicorn = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "league.wsgi",
                *("--config", str(ROOT / "benchmarks" / "bench_gunicorn.conf.py"), "--workers", "2"),
                *("--bind", f"127.0.0.1:{port}", "--log-level", "warning"),
            ],
            cwd=ROOT,
            env={**os.environ, "CACHE_KEY_PREFIX": f"bench-load-{port}"},
        )
        wait_until_up(base + "/bench/minimal", gunicorn)
        table = f"{base}/leagues/{seeded.league.slug}/seasons/{seeded.season.number}/"
        for url, jar in ((base + "/", cookies), (table, [])):  # warm both workers (templates, fragments)
            wrk(url, connections=2, seconds=2, cookies=jar, script=script)
        figures = {
            "load client ceiling (minimal view)": wrk(
                base + "/bench/minimal", connections=args.members, seconds=5, cookies=cookies, script=script
            ),
            "visitor alone": wrk(table, connections=1, seconds=max(5, args.seconds // 2), cookies=[], script=script),
        }
        beside: dict = {}

        def visitor() -> None:
            beside["visitor"] = wrk(table, connections=1, seconds=args.seconds - 2, cookies=[], script=script)

        thread = threading.Thread(target=visitor)
        thread.start()
        figures["dashboard, members"] = wrk(
            base + "/", connections=args.members, seconds=args.seconds, cookies=cookies, script=script
        )
        thread.join()
        figures["visitor during the members' load"] = beside["visitor"]
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            gunicorn.wait(timeout=30)
        script.unlink(missing_ok=True)
        if not args.keep_db:
            from django.db import connections

            connections.close_all()
            drop_database(db_url)

    print(f"\n{args.members} members on their dashboards, 2 gunicorn workers, {args.teams}-team league (wrk)")
    print(f"{'what':<36} {'conns':>5} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>6}")
    for name, f in figures.items():
        print(
            f"{name:<36} {f['connections']:>5} {f['rps']:>8.1f} {f['p50_ms']:>8.1f} {f['p95_ms']:>8.1f} "
            f"{f['p99_ms']:>8.1f} {f['errors']:>6}"
        )
    dash, during = figures["dashboard, members"], figures["visitor during the members' load"]
    goals = [
        (f"dashboard p95 {dash['p95_ms']:.0f} ms < {GOAL_DASHBOARD_P95_MS} ms", dash["p95_ms"] < GOAL_DASHBOARD_P95_MS),
        (
            f"visitor's page p95 during the load {during['p95_ms']:.0f} ms < {GOAL_VISITOR_P95_MS} ms",
            during["p95_ms"] < GOAL_VISITOR_P95_MS,
        ),
    ]
    print("\nGoals (issue 29, part 3):")
    for text, ok in goals:
        print(f"  [{'met' if ok else 'MISSED'}] {text}")
    if args.json:
        Path(args.json).write_text(json.dumps({"figures": figures, "goals": goals}, indent=2))
    return 1 if args.strict and not all(ok for _, ok in goals) else 0


if __name__ == "__main__":
    sys.exit(main())
