"""Reading the stored result records of any game of players (issue 17) for what is not result
entry: the statistics, the newsletters and the simulator's own check. The records themselves, their
checks and what they write on the sides are each game's (``games/<key>/results.py``).

* :func:`applied_record`: the record a confirmed match was confirmed with (a dispute settled with
  the second record counts that one).
"""

from __future__ import annotations

from typing import Any


def applied_record(submitted: Any, counter: Any = None, settlement: str = "") -> dict[str, Any] | None:
    """The record a confirmed match's result was applied from (None when there is none)."""
    record = counter if settlement == "second" and counter else submitted
    return record if isinstance(record, dict) else None
