"""What the ``Game`` of any game of players shares: the simulate panel's words and the hooks that
read the season's rules (moved from matches/views.py, issue 28). Each game's bound result form is
its own (``games/<key>/forms.py``)."""

from __future__ import annotations

from django.utils.safestring import mark_safe

from games.players import records, simulation

#: The simulate panels' words (the text is the site's own: marked safe for its apostrophes).
STRENGTH_PANEL_MATCH = mark_safe(
    "The simulator draws the result from the players' strength ratings; it is confirmed at once and marked simulated."
)
STRENGTH_PANEL_SEASON = mark_safe(
    "Simulated results are drawn from the players' strength ratings, confirmed at once and marked simulated."
)


def simulation_context() -> dict:
    """A job's ratings, read once for all its batches (simulation.SeasonRatings)."""
    return {"ratings": simulation.SeasonRatings()}


applied_record = records.applied_record
