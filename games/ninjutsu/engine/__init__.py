"""Ninjutsu's rules as pure Python: standard library only, no Django (a test enforces it)."""

from .battle import MAX_SHURIKEN, BattleOdds, Rank, battle_odds, duel_odds, odds_table

__all__ = ["MAX_SHURIKEN", "BattleOdds", "Rank", "battle_odds", "duel_odds", "odds_table"]
