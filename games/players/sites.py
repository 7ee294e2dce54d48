"""What the two players' games' ``Game`` share: the bound result form, the simulate panel's
words and the hooks that read the season's rules (moved from matches/views.py and
matches/game_forms.py, issue 28)."""

from __future__ import annotations

from typing import Any

from django.utils.safestring import mark_safe

from games.players import forms, records, simulation

#: The simulate panels' words (the text is the site's own: marked safe for its apostrophes).
STRENGTH_PANEL_MATCH = mark_safe(
    "The simulator draws the result from the players' strength ratings; it is confirmed at once and marked simulated."
)
STRENGTH_PANEL_SEASON = mark_safe(
    "Simulated results are drawn from the players' strength ratings, confirmed at once and marked simulated."
)


def bind_result_form(match: Any, data: Any = None, *, rules: Any = None) -> Any:
    """The match's result form (its sides prefetched): one name a side, in slot order."""
    time_limit = getattr(rules, "time_limit_minutes", None) is not None
    return forms.result_form_for(match, data, time_limit=time_limit)


def simulation_context() -> dict:
    """A job's ratings, read once for all its batches (simulation.SeasonRatings)."""
    return {"ratings": simulation.SeasonRatings()}


applied_record = records.applied_record
