"""Reading the stored result records of the players' games (issue 17) for what is not result
entry: the statistics, the newsletters and the simulator's own check. The records themselves, their
checks and what they write on the sides are matches.game_results'.

* :func:`applied_record`: the record a confirmed match was confirmed with (a dispute settled with
  the second record counts that one);
* ``kage_seats``: a Kage Masters record's seats (``matches.game_results.kage_seats``, the one
  reader of ``{"game": "kage_masters", "seats": [{"slot", "kage_master", "coins", "rewards",
  "seat"}, ...]}``, player = slot).
"""

from __future__ import annotations

from typing import Any

from games.players import results as game_results


def applied_record(submitted: Any, counter: Any = None, settlement: str = "") -> dict[str, Any] | None:
    """The record a confirmed match's result was applied from (None when there is none)."""
    record = counter if settlement == "second" and counter else submitted
    return record if isinstance(record, dict) else None


#: A Kage Masters record's seats in slot order (player = slot); ValueError when it is not one.
kage_seats = game_results.kage_seats
