"""Reading the stored result records of the players' games (issue 17) for what is not result
entry: the statistics, the newsletters and the simulator's own check. The records themselves, their
checks and what they write on the sides are matches.game_results'.

* :func:`applied_record`: the record a confirmed match was confirmed with (a dispute settled with
  the second record counts that one);
* :func:`kage_seats`: a Kage Masters record's seats (the contract of docs/leagues.md: ``{"game":
  "kage_masters", "seats": [{"slot", "kage_master", "coins", "rewards", "seat"}, ...]}``, player =
  slot). ``matches.game_results.kage_seats`` is the site's reader once Kage Masters results are
  entered there; this one reads the same contract until then, and defers to it after.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games import registry
from games.kage_masters import engine as kage
from matches import game_results


def applied_record(submitted: Any, counter: Any = None, settlement: str = "") -> dict[str, Any] | None:
    """The record a confirmed match's result was applied from (None when there is none)."""
    record = counter if settlement == "second" and counter else submitted
    return record if isinstance(record, dict) else None


def kage_seats(record: Mapping[str, Any]) -> tuple[kage.Seat, ...]:
    """A Kage Masters record's seats in slot order; ValueError when the record is not one."""
    reader = getattr(game_results, "kage_seats", None)
    if reader is not None:
        return tuple(reader(record))
    seats = record.get("seats") if isinstance(record, Mapping) else None
    if record.get("game") != registry.KAGE_MASTERS or not isinstance(seats, list):
        raise ValueError("not a Kage Masters record")
    try:
        return tuple(
            kage.Seat(
                player=int(s["slot"]),
                kage_master=str(s["kage_master"]),
                coins=int(s["coins"]),
                location_rewards=int(s.get("rewards") or 0),
                seat=None if s.get("seat") is None else int(s["seat"]),
            )
            for s in seats
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError("not a Kage Masters record") from exc
