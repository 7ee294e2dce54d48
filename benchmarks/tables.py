"""Time the multi-player table scheduler and compare its repeat meetings with the lower bound.

Run by hand:
    .venv/bin/python benchmarks/tables.py                  # 64 players x 10 rounds, plus harder cases
    .venv/bin/python benchmarks/tables.py --players 64 --rounds 10 --seeds 7 --only

For each case ``games.tables.table_schedule`` plans the whole season (tables of 3-5, preferring
4) once per seed; the figures are the median time (and range) and the repeat meetings of each
seed against ``repeat_lower_bound`` (pair counting, and pigeonhole over two rounds).  A pair that
shares a table m times counts m - 1 repeats.  The bound is not always reachable: for the harder
cases below the gap is an upper limit on how far from optimal the schedule is.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.tables import table_schedule

# (players, rounds): the case first, then some where repeats are hard to avoid.
CASES = [(64, 10), (16, 5), (20, 6), (32, 8), (32, 10), (48, 12), (13, 6)]


def run(players: int, rounds: int, seeds: int) -> None:
    times, repeats, bound = [], [], None
    for seed in range(1, seeds + 1):
        start = time.perf_counter()
        schedule = table_schedule(list(range(players)), rounds, rng=random.Random(seed))
        times.append(time.perf_counter() - start)
        repeats.append(schedule.repeats)
        bound = schedule.lower_bound
        sizes = schedule.rounds[0].sizes if schedule.rounds else ()
    print(
        f"{players:>7} {rounds:>6} {'+'.join(map(str, sizes)) if len(set(sizes)) > 1 else f'{len(sizes)}x{sizes[0]}':>12} "
        f"{statistics.median(times):>8.3f} {min(times):>7.3f}-{max(times):<7.3f} "
        f"{' '.join(map(str, repeats)):>22} {bound:>6}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=5, help="runs per case (seeds 1..N)")
    parser.add_argument("--only", action="store_true", help="only the --players x --rounds case")
    args = parser.parse_args()
    cases = [(args.players, args.rounds)]
    if not args.only:
        cases += [c for c in CASES if c != cases[0]]
    print(f"table_schedule, median of {args.seeds} seeds; repeats listed per seed")
    print(f"{'players':>7} {'rounds':>6} {'tables':>12} {'median s':>8} {'range s':>15} {'repeats':>22} {'bound':>6}")
    for players, rounds in cases:
        run(players, rounds, args.seeds)


if __name__ == "__main__":
    main()
