"""Time Swiss pairing, every round from 1 to 7, at 1,000 teams: current against the baseline.

Run by hand:
    .venv/bin/python benchmarks/swiss.py                       # 1,000 teams, rounds 1-7
    .venv/bin/python benchmarks/swiss.py --teams 256 --repeats 7 --baseline-rounds 1-7
    .venv/bin/python benchmarks/swiss.py --baseline-rounds none  # current only

One simulated event: round r is paired from the standings after r - 1 rounds, which were paired
by the current ``swiss_round`` with results drawn at random (win 3 / draw 1 / loss 0, 10% draws,
the bye a win).  For each round the current pairing is timed ``--repeats`` times (median, and the
range); the baseline (``benchmarks/swiss_baseline.py``: main before the score-group
decomposition, networkx on every pair at most 1, 2, 4, ... groups apart) is timed
``--baseline-repeats`` times (default once: it takes 4-90 s a round at 1,000 teams) on the
same input, for the rounds in ``--baseline-rounds``.  Both results are checked to have the same
total weight, so the figures compare equal work.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import swiss_baseline
from league import scheduling
from league.scheduling import SwissEntry, swiss_round


def standings(scores: dict[int, int], tiebreak: dict[int, float]) -> list[SwissEntry]:
    order = sorted(scores, key=lambda t: (-scores[t], tiebreak[t]))
    return [SwissEntry(team_id=t, score=scores[t], rank=i + 1) for i, t in enumerate(order)]


def total_cost(table, history, rnd) -> int:
    """The pairing's total cost under the Swiss weight function (lower is better)."""
    cost, _ = scheduling.swiss_setup(table, history=history, bye=rnd.bye).cost()
    return sum(cost(p.home, p.away) for p in rnd.pairings)


def timed(fn, table, history, byes, repeats: int):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(table, history=history, byes_had=byes)
        times.append(time.perf_counter() - start)
    return result, times


def parse_rounds(text: str, last: int) -> set[int]:
    if text == "none":
        return set()
    chosen: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        chosen.update(range(int(lo), int(hi or lo) + 1))
    return {r for r in chosen if 1 <= r <= last}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7, help="pair rounds 1..N")
    parser.add_argument("--repeats", type=int, default=5, help="timings of the current pairing per round")
    parser.add_argument("--baseline-rounds", default="1-7", help='e.g. "1-7", "1,2,6" or "none"')
    parser.add_argument("--baseline-repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", help="also write each round's figures to this file (benchmarks/run_all.py)")
    args = parser.parse_args()
    rounds_out = []

    rng = random.Random(args.seed)
    teams = list(range(1, args.teams + 1))
    scores = dict.fromkeys(teams, 0)
    tiebreak = {t: rng.random() for t in teams}
    history: set[frozenset] = set()
    byes: set[int] = set()
    baseline_rounds = parse_rounds(args.baseline_rounds, args.rounds)

    print(
        f"Swiss pairing, {args.teams} teams: current = median of {args.repeats} (min-max); "
        f"baseline = {'median of ' + str(args.baseline_repeats) if args.baseline_repeats > 1 else 'one run'}"
    )
    print(
        f"{'round':>5} {'groups':>6} {'cross':>5} {'rematch':>7} {'current s':>10} {'range':>13} {'baseline s':>10} {'x':>6}"
    )
    worst = 0.0
    for number in range(1, args.rounds + 1):
        table = standings(scores, tiebreak)
        rnd, times = timed(swiss_round, table, history, byes, args.repeats)
        median = statistics.median(times)
        worst = max(worst, max(times))
        base = ""
        speedup = ""
        if number in baseline_rounds:
            old, old_times = timed(swiss_baseline.swiss_round, table, history, byes, args.baseline_repeats)
            if total_cost(table, history, old) != total_cost(table, history, rnd) or old.bye != rnd.bye:
                raise SystemExit(f"round {number}: the baseline and the current pairing differ in weight")
            old_median = statistics.median(old_times)
            base = f"{old_median:.3f}"
            speedup = f"{old_median / median:.0f}x"
        groups = len({e.score for e in table})
        cross = sum(p.home_group != p.away_group for p in rnd.pairings)
        spread = f"{min(times):.3f}-{max(times):.3f}"
        print(
            f"{number:>5} {groups:>6} {cross:>5} {rnd.rematches:>7} {median:>10.3f} {spread:>13} {base:>10} {speedup:>6}",
            flush=True,
        )
        rounds_out.append({"round": number, "median_s": median, "max_s": max(times), "groups": groups})
        if rnd.bye is not None:
            byes.add(rnd.bye)
            scores[rnd.bye] += 3
        for p in rnd.pairings:
            history.add(p.teams)
            outcome = rng.random()
            if outcome < 0.45:
                scores[p.home] += 3
            elif outcome < 0.9:
                scores[p.away] += 3
            else:
                scores[p.home] += 1
                scores[p.away] += 1
    print(f"slowest current pairing of any round: {worst:.3f} s (goal: under 2 s)")
    if args.json:
        Path(args.json).write_text(json.dumps({"teams": args.teams, "rounds": rounds_out, "worst_s": worst}))


if __name__ == "__main__":
    main()
