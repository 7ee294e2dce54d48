"""Time one Swiss round pairing for 256 teams with random prior results.

Run by hand:  .venv/bin/python benchmarks/swiss_256.py [--teams 256] [--rounds 5] [--seed 2024]

Prior rounds are themselves paired with ``swiss_round`` (so history and byes look like a real
event) and results are drawn at random (win 3 / draw 1 / loss 0, bye = win); only the final
pairing call is timed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from league.scheduling import SwissEntry, swiss_round


def standings(scores: dict[int, int], tiebreak: dict[int, float]) -> list[SwissEntry]:
    order = sorted(scores, key=lambda t: (-scores[t], tiebreak[t]))
    return [SwissEntry(team_id=t, score=scores[t], rank=i + 1) for i, t in enumerate(order)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=5, help="prior rounds played")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    teams = list(range(1, args.teams + 1))
    scores = dict.fromkeys(teams, 0)
    tiebreak = {t: rng.random() for t in teams}
    history: set[frozenset] = set()
    byes: set[int] = set()

    setup_start = time.perf_counter()
    for _ in range(args.rounds):
        rnd = swiss_round(standings(scores, tiebreak), history=history, byes_had=byes)
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
    setup = time.perf_counter() - setup_start

    table = standings(scores, tiebreak)
    start = time.perf_counter()
    rnd = swiss_round(table, history=history, byes_had=byes)
    elapsed = time.perf_counter() - start

    groups = len({e.score for e in table})
    cross = sum(p.home_group != p.away_group for p in rnd.pairings)
    print(
        f"{args.teams} teams, {args.rounds} prior rounds, {groups} score groups: "
        f"paired {len(rnd.pairings)} games (bye: {rnd.bye}, rematches: {rnd.rematches}, "
        f"cross-group: {cross}) in {elapsed:.3f} s "
        f"(setting up the {args.rounds} prior rounds took {setup:.2f} s)"
    )


if __name__ == "__main__":
    main()
