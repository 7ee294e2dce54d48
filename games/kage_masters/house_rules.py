"""Kage Masters' own house rules (``Game.house_rules``; issue 17, moved into the game's package by
issue 28): the book has no league, so how a table's places become league points, the fixed
scheme's points of 1st to 5th place, and what a player who drops out of a table scores."""

from __future__ import annotations

from typing import Any

from games.kage_masters.engine.results import MAX_PLACE_POINTS, DropoutRule, PointsScheme
from games.protocol import HouseRule


def place_points_problem(value: str) -> str:
    """Five places' points, comma-separated, each 0 to MAX_PLACE_POINTS, not rising (1st scores most)."""
    parts = [p.strip() for p in str(value).split(",")]
    if len(parts) != 5 or not all(p.isdigit() and len(p) <= 2 for p in parts):
        return "Give the points of five places, 1st to 5th, comma-separated (e.g. 3,2,1,0,0)."
    points = [int(p) for p in parts]
    if max(points) > MAX_PLACE_POINTS:
        return f"A place scores at most {MAX_PLACE_POINTS} points."
    if points != sorted(points, reverse=True):
        return "A place cannot score more than the place above it."
    return ""


PLACES_SCORE = HouseRule(
    "kage_points",
    "Places score",
    PointsScheme.OPPONENTS_BEATEN.value,
    choices=(
        (PointsScheme.OPPONENTS_BEATEN.value, "One point for each opponent beaten"),
        (PointsScheme.WINNER_ONLY.value, "One point for first place (shared on equal treasure)"),
        (PointsScheme.FIXED.value, "Fixed points for each place"),
    ),
    help="How a table's places become league points. Total treasure breaks ties.",
)
FIXED_POINTS = HouseRule(
    "kage_fixed_points",
    "Fixed points of 1st to 5th",
    "3,2,1,0,0",
    check=place_points_problem,
    help="Fixed points only: the points of 1st to 5th place, comma-separated (a shared place scores "
    "that place's points).",
)
DROPOUT = HouseRule(
    "kage_dropout",
    "A player who drops out",
    DropoutRule.LAST_PLACE.value,
    choices=(
        (DropoutRule.LAST_PLACE.value, "Last place at the table"),
        (DropoutRule.FORFEIT_LOSS.value, "A forfeit loss (the forfeit's points)"),
    ),
    help="What a player who drops out of a table scores. The table plays on, and the players present "
    "score their places.",
)
HOUSE_RULES = (PLACES_SCORE, FIXED_POINTS, DROPOUT)


def scheme(rules: Any) -> PointsScheme:
    return PointsScheme(PLACES_SCORE.of(rules))


def fixed_points(rules: Any) -> tuple[int, ...]:
    """The fixed scheme's points of 1st to 5th place."""
    return tuple(int(p) for p in FIXED_POINTS.of(rules).split(","))


def dropout_rule(rules: Any) -> tuple[str, str]:
    """(value, label) of what a player who drops out scores, under the season's rules."""
    value = DROPOUT.of(rules)
    return value, DROPOUT.shows(value)
