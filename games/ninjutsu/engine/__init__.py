"""Ninjutsu's rules as pure Python: standard library only, no Django (a test enforces it)."""

from .battle import MAX_SHURIKEN, BattleOdds, Rank, battle_odds, duel_odds, odds_table
from .results import (
    Card,
    Ending,
    NinjutsuResult,
    PointsRules,
    SeasonStats,
    league_points,
    season_stats,
    simulate_game,
    validate,
)

__all__ = [
    "MAX_SHURIKEN",
    "BattleOdds",
    "Card",
    "Ending",
    "NinjutsuResult",
    "PointsRules",
    "Rank",
    "SeasonStats",
    "battle_odds",
    "duel_odds",
    "league_points",
    "odds_table",
    "season_stats",
    "simulate_game",
    "validate",
]
