"""Simulated Brawls: a starting team against the same team with advancements.

Run by hand:  .venv/bin/python benchmarks/simulate_brawls.py [--games 2000] [--seed 1]

Both teams are built from rules/data/catalog.json (Clan Yamazaru, 96 koban: chunin with Yama
Fist, four kaiken, a madoushi with Healing Herbs, a kunoichi, a yajiri).  The veteran team has
ten advancements (+1 Attack on the chunin and two kaiken, +1 Defense on a kaiken and the
kunoichi, and the keywords Dauntless, Guard, Close Combat Master, Focus and Tough), so its
rating is 19 against 9: the underdog gets ten reroll tokens and one Moon Power token
(league.underdog_bonuses).  Games alternate which team is listed (and so acts) first.

Prints the veteran's win/draw/loss rates without and with the underdog bonuses, the average
points, and engine-only matches per second (no database).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rules.engine import balance  # noqa: E402
from rules.engine.league import underdog_bonuses  # noqa: E402
from rules.engine.simulator import CHALLENGES, SimTeam, simulate_match  # noqa: E402

CATALOG = json.loads((ROOT / "rules" / "data" / "catalog.json").read_text(encoding="utf-8"))

PROFILES = {p["slug"]: p for clan in CATALOG["clans"] for p in clan["profiles"]}
#: The veterans' ten advancements: the first ten of the balance study's ladder.
VETERAN = balance.ladder_changes(balance.LADDER[:10])


def build_team(team_id: int, *, veteran: bool) -> tuple[SimTeam, int]:
    """The team and its rating (rulebook "Team Rating")."""
    changes = VETERAN if veteran else balance.ladder_changes(())
    team = balance.roster_team(PROFILES, team_id, changes, "Veterans" if veteran else "Starters")
    return team, balance.roster_rating(PROFILES, changes)


def play(games: int, seed: int, *, bonuses: bool) -> dict:
    veteran, v_rating = build_team(1, veteran=True)
    starter, s_rating = build_team(2, veteran=False)
    brawl = CHALLENGES["brawl"]
    tally = {"win": 0, "draw": 0, "loss": 0}
    points = [0, 0]
    early = 0
    for g in range(games):
        order = [veteran, starter] if g % 2 == 0 else [starter, veteran]
        ratings = [v_rating, s_rating] if g % 2 == 0 else [s_rating, v_rating]
        underdog = underdog_bonuses(ratings) if bonuses else None
        result = simulate_match(order, brawl, rng=random.Random(seed * 1_000_003 + g), underdog=underdog)
        tally[result.record.outcome_for(veteran.team_id)] += 1
        by_id = {t.team_id: t.points for t in result.record.teams}
        points[0] += by_id[veteran.team_id]
        points[1] += by_id[starter.team_id]
        early += result.ended_early
    return {
        "ratings": (v_rating, s_rating),
        "rates": {k: v / games for k, v in tally.items()},
        "points": (points[0] / games, points[1] / games),
        "early": early / games,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    bonus = underdog_bonuses(list(build_team(1, veteran=True)[1:]) + list(build_team(2, veteran=False)[1:]))[1]
    print(f"Brawl, {args.games} games per line, seed {args.seed}")
    print(
        f"underdog bonus for the starters: {bonus.reroll_tokens} reroll tokens, "
        f"{bonus.moon_power_tokens} Moon Power, {bonus.extra_all_star_awards} extra All-Star awards"
    )
    total_games, total_time = 0, 0.0
    for label, bonuses in (("without underdog bonuses", False), ("with underdog bonuses", True)):
        start = time.perf_counter()
        out = play(args.games, args.seed, bonuses=bonuses)
        elapsed = time.perf_counter() - start
        total_games += args.games
        total_time += elapsed
        r = out["rates"]
        print(
            f"{label:26s} veteran (rating {out['ratings'][0]}) v starter ({out['ratings'][1]}): "
            f"win {r['win']:.1%}  draw {r['draw']:.1%}  loss {r['loss']:.1%}  "
            f"points {out['points'][0]:.2f}-{out['points'][1]:.2f}  nine-point wins {out['early']:.1%}  "
            f"({args.games / elapsed:.0f} matches/s)"
        )
    print(f"engine only: {total_games / total_time:.0f} matches per second (one process)")


if __name__ == "__main__":
    main()
