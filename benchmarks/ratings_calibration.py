"""Calibration of the strength ratings' predictions on simulated seasons (issue 16, part 4).

Run by hand (no database; the game engine and the pure ratings only):

    .venv/bin/python benchmarks/ratings_calibration.py [--seasons 10] [--teams 12] [--seed 1] [--no-underdog]

Each season is a fresh league: ``--teams`` Yamazaru teams (the roster of benchmarks/
simulate_brawls.py) with a random number, 0 to 10, of that benchmark's veteran advancements, so
their team ratings run from 9 to 19 and their strength really differs. They play a double round
robin, each game a random challenge of the simulator (rules.engine.simulator) with the underdog
bonuses on (the house rule's default; ``--no-underdog`` turns them off). Every round is a rating period, as in the league
(stats/ratings.py): ``ratings.history.rate_history`` rates the rounds in order and records each
game's prediction made from the ratings at the start of its round.

Three predictions of the first-listed side's score (win 1, draw 1/2, loss 0) are scored with the
Brier score, the mean of (prediction - score)^2 (lower is better):

* a coin flip: always 1/2;
* the game's own team rating: 1 / (1 + exp(-k * (TR_a - TR_b))), k fitted by least squares on
  ``--seasons`` separate training seasons (other seeds), so it is the best this rating can do;
* Glicko-2 (ratings/glicko2.py), from the results alone, knowing nothing of the rosters.

Printed for every game, and for the second half of each season (once Glicko-2 has seen each team
play about half its games).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ratings.history import Period, Result, rate_history  # noqa: E402
from rules.engine import balance  # noqa: E402
from rules.engine.league import underdog_bonuses  # noqa: E402
from rules.engine.simulator import CHALLENGES, SimTeam, simulate_match  # noqa: E402

CATALOG = json.loads((ROOT / "rules" / "data" / "catalog.json").read_text(encoding="utf-8"))

PROFILES = {p["slug"]: p for clan in CATALOG["clans"] for p in clan["profiles"]}
#: That benchmark's ten veteran advancements, one at a time: (roster index, change).
ADVANCEMENTS = [
    (0, ("attack", 1)),
    (0, ("extra_keywords", "Dauntless")),
    (1, ("attack", 1)),
    (1, ("extra_keywords", "Guard")),
    (2, ("defense", 1)),
    (2, ("extra_keywords", "Close Combat Master")),
    (3, ("attack", 1)),
    (4, ("extra_keywords", "Focus")),
    (5, ("extra_keywords", "Tough")),
    (6, ("defense", 1)),
]


def build_team(team_id: int, advancements: int, rng: random.Random) -> tuple[SimTeam, int]:
    """The balance study's roster with ``advancements`` of the ten, chosen at random, and its team rating."""
    chosen = rng.sample(ADVANCEMENTS, advancements)
    changes = balance.ladder_changes(
        (index, {what: [value] if what == "extra_keywords" else value}) for index, (what, value) in chosen
    )
    team = balance.roster_team(PROFILES, team_id, changes, f"Team {team_id}")
    return team, balance.roster_rating(PROFILES, changes)


def double_round_robin(n: int) -> list[list[tuple[int, int]]]:
    """The circle method, then the same rounds with home and away swapped."""
    teams = list(range(n))
    rounds = []
    for _ in range(n - 1):
        rounds.append([(teams[i], teams[n - 1 - i]) for i in range(n // 2)])
        teams = [teams[0], teams[-1], *teams[1:-1]]
    return rounds + [[(b, a) for a, b in r] for r in rounds]


def play_season(season_seed: int, n_teams: int, *, underdog: bool = True) -> list[dict]:
    """Every game of one simulated season: round, teams, team ratings, the first side's score and
    the Glicko-2 prediction made before its round."""
    rng = random.Random(season_seed)
    base = season_seed * 1000
    built = [build_team(base + i, rng.randint(0, len(ADVANCEMENTS)), rng) for i in range(n_teams)]
    challenges = sorted(CHALLENGES)
    games, periods = [], []
    for r, pairs in enumerate(double_round_robin(n_teams)):
        results = []
        for a, b in pairs:
            (team_a, tr_a), (team_b, tr_b) = built[a], built[b]
            challenge = CHALLENGES[rng.choice(challenges)]
            result = simulate_match(
                [team_a, team_b],
                challenge,
                rng=random.Random(rng.getrandbits(64)),
                underdog=underdog_bonuses([tr_a, tr_b], enabled=underdog),
            )
            outcome = result.record.outcome_for(team_a.team_id)
            score = {"win": 1.0, "draw": 0.5, "loss": 0.0}[outcome]
            match_id = len(games) + 1
            places = (1, 1) if score == 0.5 else (1, 2) if score == 1 else (2, 1)
            results.append(Result(match_id, (a, b), places))
            games.append({"id": match_id, "round": r, "tr": (tr_a, tr_b), "score": score})
        periods.append(Period(r, tuple(results)))
    predictions = rate_history(periods).predictions
    half = len(periods) // 2
    for game in games:
        game["glicko"] = predictions[game["id"]][0]
        game["second_half"] = game["round"] >= half
    return games


def tr_prediction(k: float, tr: tuple[int, int]) -> float:
    return 1 / (1 + math.exp(-k * (tr[0] - tr[1])))


def fit_k(games: list[dict]) -> float:
    """The team-rating logistic's slope minimising the Brier score on the training games (a
    golden-section search on [0, 2]: the score is unimodal in k)."""

    def loss(k: float) -> float:
        return sum((tr_prediction(k, g["tr"]) - g["score"]) ** 2 for g in games)

    lo, hi = 0.0, 2.0
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if loss(a) < loss(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def brier(games: list[dict], predict) -> float:
    return sum((predict(g) - g["score"]) ** 2 for g in games) / len(games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seasons", type=int, default=10, help="evaluation seasons (and as many to fit on)")
    parser.add_argument("--teams", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-underdog", action="store_true", help="play without the underdog bonuses")
    args = parser.parse_args()
    underdog = not args.no_underdog
    if args.teams < 2 or args.teams % 2:
        raise SystemExit("--teams must be even and at least 2")
    start = time.perf_counter()
    training = [
        g
        for s in range(args.seasons)
        for g in play_season(args.seed * 10_000 + 5_000 + s, args.teams, underdog=underdog)
    ]
    evaluation = [
        g for s in range(args.seasons) for g in play_season(args.seed * 10_000 + s, args.teams, underdog=underdog)
    ]
    elapsed = time.perf_counter() - start
    k = fit_k(training)
    draws = sum(g["score"] == 0.5 for g in evaluation) / len(evaluation)
    print(
        f"{args.seasons} seasons of {args.teams} teams (double round robin), seed {args.seed}: "
        f"{len(evaluation)} games scored, {len(training)} to fit the team-rating slope "
        f"({len(evaluation) + len(training)} simulated in {elapsed:.0f} s); draws {draws:.1%}; "
        f"underdog bonuses {'on' if underdog else 'off'}"
    )
    print(f"team-rating slope k = {k:.3f} (per point of team rating)")
    predictors = {
        "coin flip (1/2)": lambda g: 0.5,
        "team rating (fitted logistic)": lambda g: tr_prediction(k, g["tr"]),
        "Glicko-2 (results only)": lambda g: g["glicko"],
    }
    later = [g for g in evaluation if g["second_half"]]
    print(f"{'predictor':32s} {'Brier, all games':>17s} {'second half':>12s}")
    for name, predict in predictors.items():
        print(f"{name:32s} {brier(evaluation, predict):17.4f} {brier(later, predict):12.4f}")


if __name__ == "__main__":
    main()
