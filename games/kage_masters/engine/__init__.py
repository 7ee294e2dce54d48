"""Kage Masters' league rules as pure Python: standard library only, no Django (a test enforces it)."""

from .results import (
    KAGE_MASTERS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PointsScheme,
    SeasonStats,
    Seat,
    league_points,
    placements,
    season_stats,
    simulate_table,
    validate,
)

__all__ = [
    "KAGE_MASTERS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PointsScheme",
    "Seat",
    "SeasonStats",
    "league_points",
    "placements",
    "season_stats",
    "simulate_table",
    "validate",
]
