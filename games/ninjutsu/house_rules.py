"""Ninjutsu's own house rules (``Game.house_rules``; issue 17, moved into the game's package by
issue 28): the book has no clock and no draws; a league may set a time limit and what a game
stopped by it scores. Their ranges are the engine's (``engine.results.HOUSE_RULE_BOUNDS``)."""

from __future__ import annotations

from typing import Any

from games.ninjutsu.engine.results import HOUSE_RULE_BOUNDS
from games.protocol import HouseRule


def _bounded(key: str) -> dict:
    low, high = HOUSE_RULE_BOUNDS[key]
    return {"low": low, "high": high}


TIME_LIMIT = HouseRule(
    "time_limit_minutes",
    "Time limit (minutes)",
    None,
    optional=True,
    empty="no time limit",
    help="A game's time limit in minutes. A game stopped by the clock is won by the side with more "
    "ninjas left and drawn when both have as many. Empty: no time limit (a game always has a winner).",
    **_bounded("time_limit_minutes"),
)
POINTS_TIME_WIN = HouseRule(
    "points_time_win",
    "Points for a win on time",
    None,
    optional=True,
    empty="a win's",
    help="League points for winning a game stopped by the time limit. Empty: as many as a win.",
    **_bounded("points_time_win"),
)
POINTS_TIME_LOSS = HouseRule(
    "points_time_loss",
    "Points for a loss on time",
    None,
    optional=True,
    empty="a loss's",
    help="League points for losing a game stopped by the time limit. Empty: as many as a loss. "
    "A draw on time scores a draw's points.",
    **_bounded("points_time_loss"),
)
HOUSE_RULES = (TIME_LIMIT, POINTS_TIME_WIN, POINTS_TIME_LOSS)


def time_limited(rules: Any) -> bool:
    """Whether the season's games have a time limit (and so may be drawn, or won on time)."""
    return TIME_LIMIT.of(rules) is not None


def time_points(rules: Any) -> tuple[int, int]:
    """League points for a game won and lost on time (the house rules, else a win's and a loss's)."""
    win, loss = POINTS_TIME_WIN.of(rules), POINTS_TIME_LOSS.of(rules)
    return (rules.points_win if win is None else win, rules.points_loss if loss is None else loss)
