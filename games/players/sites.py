"""What the two players' games' ``Game`` share: the bound result form, the simulate panel's
words and the hooks that read the season's rules (moved from matches/views.py and
matches/game_forms.py, issue 28)."""

from __future__ import annotations

from typing import Any

from games.players import forms, records, simulation

STRENGTH_PANEL_MATCH = (
    "The strength model plays this game: the players' ratings give each side's chance, and the result is "
    "entered and confirmed as a player's would be."
)
STRENGTH_PANEL_SEASON = (
    "Each fixture is played by the strength model from the players' ratings, a round at a time, and "
    "confirmed as an entered result."
)


def bind_result_form(match: Any, data: Any = None, *, rules: Any = None) -> Any:
    """The match's result form (its sides prefetched): one name a side, in slot order."""
    time_limit = getattr(rules, "time_limit_minutes", None) is not None
    return forms.result_form_for(match, data, time_limit=time_limit)


def simulation_context() -> dict:
    """A job's ratings, read once for all its batches (simulation.SeasonRatings)."""
    return {"ratings": simulation.SeasonRatings()}


applied_record = records.applied_record
