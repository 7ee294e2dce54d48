"""Every benchmark in one command, and one table of their figures (issue 15):

    .venv/bin/python benchmarks/run_all.py [--quick] [--only pages,cold,load,swiss,simulation,odds] [--log FILE]

Runs, one after the other (so that they do not share the CPUs), each as its own process:

* benchmarks/pages.py: the league table, team scroll, match page and newsletter at 8, 64 and 256
  teams, anonymous (page cache) and member (rendered), ratios to the minimal view, rows fetched;
* benchmarks/cold.py: the six member pages (table, scroll, match page, dashboard, the master's
  desk, newsletter) at 8, 64 and 256 teams, warm, after a write elsewhere, after a write to that
  league and cold, as CPU time (process and database) against the minimal view (issue 29);
* benchmarks/load_dashboard.py: 16 members on their dashboards on 2 gunicorn workers with wrk, a
  visitor's rendered page beside them, latency percentiles, and wrk's own ceiling (issue 29);
* benchmarks/swiss.py: swiss pairing of 1,000 teams, rounds 1-7 (no baseline);
* benchmarks/simulate_season.py: a 16-team double round robin simulated with persistence (one job
  for the season, then round by round; CPU time with the database's), the engine alone, and the
  engine at allowance-maximum rosters;
* benchmarks/odds.py: the exact odds table.

Each one's own output goes to the log (default: a temporary file, named at the end); the table
printed last holds every figure with its goal. Needs what each needs: PostgreSQL (DATABASE_URL or
BENCH_DATABASE_URL's server) and Redis for the pages, PostgreSQL for the simulation.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable


def run(name: str, args: list[str], log) -> dict | None:
    out = Path(tempfile.mkstemp(prefix=f"bench-{name}-", suffix=".json")[1])
    started = time.perf_counter()
    log.write(f"\n===== {name}: {' '.join(args)}\n")
    log.flush()
    proc = subprocess.run(
        [PYTHON, *args, "--json", str(out)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, check=False
    )
    took = time.perf_counter() - started
    print(f"{name}: exit {proc.returncode} in {took:.0f} s", flush=True)
    try:
        return json.loads(out.read_text()) if proc.returncode == 0 else None
    except (OSError, ValueError):
        return None
    finally:
        out.unlink(missing_ok=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs (8,64 teams; 1 round; fewer repeats)")
    parser.add_argument("--only", default="pages,cold,load,swiss,simulation,odds")
    parser.add_argument("--log", help="where the benchmarks' own output goes")
    args = parser.parse_args()
    only = set(args.only.split(","))
    log_path = Path(args.log) if args.log else Path(tempfile.mkstemp(prefix="benchmarks-", suffix=".log")[1])
    sim_env_url = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("DATABASE_URL")
    rows: list[tuple[str, str, str, str]] = []  # (benchmark, what, figure, goal)
    with log_path.open("w") as log:
        if "pages" in only:
            pages_args = ["benchmarks/pages.py"] + (
                ["--sizes", "8,64", "--rounds", "1", "--seconds", "2"] if args.quick else []
            )
            pages = run("pages", pages_args, log)
            if pages is None:
                rows.append(("pages", "failed", "see the log", ""))
            else:
                for m in pages["measured"]:
                    reader = "anon" if m["reader"].startswith("anonymous") else "member"
                    goal = ">= 0.5" if reader == "anon" else (">= 0.15" if m["teams"] == 64 else "")
                    rows.append(
                        (
                            "pages",
                            f"{m['page']}, {m['teams']} teams, {reader}",
                            f"ratio {m['ratio']:.3f}, {m['ms']:.1f} ms/req; {m['inproc_queries']} queries, {m['inproc_rows']} rows",
                            goal,
                        )
                    )
                missed = [text for text, ok in pages["goals"] if not ok]
                rows.append(
                    ("pages", "goals missed", str(len(missed)) + (": " + "; ".join(missed) if missed else ""), "")
                )
        if "cold" in only:
            cold = run(
                "cold", ["benchmarks/cold.py"] + (["--sizes", "8,64", "--rounds", "3"] if args.quick else []), log
            )
            if cold is None:
                rows.append(("cold", "failed", "see the log", ""))
            else:
                for f in cold["figures"]:
                    goal = "<= 14" if f["state"] == "cold" and f["teams"] == 64 else ""
                    rows.append(
                        (
                            "cold",
                            f"{f['page']}, {f['teams']} teams, {f['state']}",
                            f"{f['ratio']:.1f} minimal views ({f['ms']:.1f} ms CPU); {f['queries']} queries, {f['rows']} rows",
                            goal,
                        )
                    )
                missed = [text for text, ok in cold["goals"] if not ok]
                rows.append(
                    ("cold", "goals missed", str(len(missed)) + (": " + "; ".join(missed) if missed else ""), "")
                )
        if "load" in only:
            load_args = ["benchmarks/load_dashboard.py"] + (["--seconds", "8"] if args.quick else [])
            loaded = run("load", load_args, log)
            if loaded is None:
                rows.append(("load", "failed", "see the log", ""))
            else:
                goals = {
                    "dashboard, members": "p95 < 150 ms",
                    "visitor during the members' load": "p95 < 100 ms",
                }
                for name, f in loaded["figures"].items():
                    rows.append(
                        (
                            "load",
                            f"{name} ({f['connections']} connections)",
                            f"{f['rps']:.1f} req/s, p50 {f['p50_ms']:.0f} ms, p95 {f['p95_ms']:.0f} ms",
                            goals.get(name, ""),
                        )
                    )
        if "swiss" in only:
            swiss = run(
                "swiss",
                ["benchmarks/swiss.py", "--baseline-rounds", "none", "--repeats", "3" if args.quick else "5"],
                log,
            )
            if swiss is None:
                rows.append(("swiss", "failed", "see the log", ""))
            else:
                for r in swiss["rounds"]:
                    rows.append(
                        (
                            "swiss",
                            f"{swiss['teams']} teams, round {r['round']}",
                            f"{r['median_s']:.3f} s (max {r['max_s']:.3f})",
                            "< 2 s",
                        )
                    )
        if "simulation" in only:
            if not sim_env_url:
                os.environ["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/postgres"
            sim = run("simulation", ["benchmarks/simulate_season.py"], log)
            if sim is None:
                rows.append(("simulation", "failed", "see the log", ""))
            else:
                rows.append(
                    (
                        "simulation",
                        f"{sim['matches']} matches persisted",
                        f"{sim['persisted_per_s']:.1f} matches/s ({sim['queries_per_match']:.0f} queries a match)",
                        ">= 20/s",
                    )
                )
                rows.append(
                    (
                        "simulation",
                        "season job, CPU time (process and database)",
                        f"{sim['persisted_cpu_per_s']:.1f} matches/s",
                        ">= 20/s",
                    )
                )
                rows.append(
                    (
                        "simulation",
                        "round by round, CPU time (process and database)",
                        f"{sim['round_by_round_cpu_per_s']:.1f} matches/s",
                        ">= 20/s",
                    )
                )
                rows.append(("simulation", "engine only, starting rosters", f"{sim['engine_per_s']:.1f} matches/s", ""))
                rows.append(
                    (
                        "simulation",
                        "engine only, starting rosters, as the jobs run it",
                        f"{sim['engine_job_per_s']:.1f} matches/s",
                        "",
                    )
                )
                lo, hi = sim["max_roster_models"]
                rows.append(
                    (
                        "simulation",
                        f"engine only, allowance-max rosters ({lo}-{hi} models)",
                        f"{sim['engine_max_roster_per_s']:.1f} matches/s",
                        ">= 80/s",
                    )
                )
                rows.append(
                    (
                        "simulation",
                        "engine only, allowance-max rosters, as the jobs run it (fewer collections)",
                        f"{sim['engine_max_roster_job_per_s']:.1f} matches/s",
                        ">= 80/s",
                    )
                )
        if "odds" in only:
            odds = run("odds", ["benchmarks/odds.py"], log)
            if odds is None:
                rows.append(("odds", "failed", "see the log", ""))
            else:
                rows.append(("odds", f"table of {odds['pairs']} pairs, cold", f"{odds['cold_s']:.2f} s", ""))
                rows.append(("odds", f"table of {odds['pairs']} pairs, warm", f"{1000 * odds['warm_s']:.2f} ms", ""))
    widths = [max(len(r[i]) for r in [("benchmark", "what", "figure", "goal"), *rows]) for i in range(4)]
    print()
    for r in [("benchmark", "what", "figure", "goal"), tuple("-" * w for w in widths), *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    print(f"\nEach benchmark's own output: {log_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
