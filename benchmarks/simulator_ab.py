"""The match simulator against a baseline revision, side by side in one run (engine only, no database).

Run by hand:  .venv/bin/python benchmarks/simulator_ab.py [--base main] [--rounds 5]

The baseline's ``rules/`` is exported from git (``git archive``) into a temporary directory; both
engines then play the same matches in child processes, interleaved round by round, and the median
of the rounds is printed for each workload, in matches per second of process CPU time (less
sensitive to a shared machine than wall time):

* ``brawls``: benchmarks/simulate_brawls.py's 800 Brawls (veterans against starters, without and
  with the underdog bonuses);
* ``challenges``: the golden test's 288 matches (tests/rules/test_engine_simulator_golden.py:
  every challenge, two to four teams, every roster shape);
* ``max``: its 48 matches between rosters at the allowance maximum (three and four teams included).

Both engines must offer ``rules.engine.simulator``; the workloads come from the working tree.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ("brawls", "challenges", "max")


def child(root: str, workload: str) -> None:
    """Play one workload with the engine under ``root``; print its rate as JSON."""
    sys.path[:0] = [root, str(ROOT)]  # the engine from root; the workloads from the working tree
    import rules.engine.simulator  # first: the workloads put ROOT first on sys.path when imported

    assert Path(rules.engine.simulator.__file__).is_relative_to(root)
    if workload == "brawls":
        from benchmarks import simulate_brawls

        start = time.process_time()
        simulate_brawls.play(400, 1, bonuses=False)
        simulate_brawls.play(400, 1, bonuses=True)
        games = 800
    else:
        from tests.rules import test_engine_simulator_golden as golden

        cases = [c for c in golden.cases() if workload == "challenges" or "max" in c[0]]
        start = time.process_time()
        for _case_id, slug, mixed, rosters, ratings, kwargs, _seed in cases:
            golden.play(slug, mixed, rosters, ratings, kwargs)
        games = len(cases)
    print(json.dumps({"rate": games / (time.process_time() - start)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the baseline revision (default: main)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--child", nargs=2, metavar=("ROOT", "WORKLOAD"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    workloads = args.workloads.split(",")
    tmp = Path(tempfile.mkdtemp(prefix="simulator-ab-"))
    try:
        archive = subprocess.run(["git", "archive", args.base, "rules"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
        roots = {f"base ({args.base})": str(tmp), "working tree": str(ROOT)}
        rates: dict[tuple[str, str], list[float]] = {(r, w): [] for r in roots for w in workloads}
        for _ in range(args.rounds):
            for w in workloads:
                for name, root in roots.items():
                    out = subprocess.run(
                        [sys.executable, __file__, "--child", root, w], capture_output=True, text=True, check=True
                    )
                    rates[(name, w)].append(json.loads(out.stdout)["rate"])
        print(f"engine only, matches per second of CPU time, median of {args.rounds} interleaved rounds")
        for w in workloads:
            base, now = (statistics.median(rates[(name, w)]) for name in roots)
            print(f"{w:11s} base {base:6.1f}   working tree {now:6.1f}   ({(now / base - 1) * 100:+.1f}%)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
