"""The exact odds table (rules.engine.odds): Attack 1-10 against Defense 1-10, no database.

Run by hand:  .venv/bin/python benchmarks/odds.py [--rounds 3] [--json FILE]

Each round clears the module's caches and computes the whole table cold (what the first request
to the rules' odds page after a restart pays), then once more warm (every later request). Prints
the median and range of each.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.engine import odds


def clear_caches() -> None:
    for value in vars(odds).values():
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the figures to this file (benchmarks/run_all.py)")
    args = parser.parse_args()
    cold, warm = [], []
    for _ in range(args.rounds):
        clear_caches()
        t = time.perf_counter()
        table = odds.odds_table()
        cold.append(time.perf_counter() - t)
        t = time.perf_counter()
        odds.odds_table()
        warm.append(time.perf_counter() - t)
    print(f"odds table, {len(table)} (attack, defense) pairs, {args.rounds} rounds")
    print(f"cold: median {statistics.median(cold):.3f} s (range {min(cold):.3f}-{max(cold):.3f})")
    print(f"warm: median {1000 * statistics.median(warm):.2f} ms (range {1000 * min(warm):.2f}-{1000 * max(warm):.2f})")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"pairs": len(table), "cold_s": statistics.median(cold), "warm_s": statistics.median(warm)})
        )


if __name__ == "__main__":
    main()
