"""What the statistics of any game of players share (issue 17, part 5): the confirmed records of a
league or a season read in one query, and the rows and rates the pages and the newsletter show.
Each game's figures are its own (``games/<key>/statistics.py``, registered as its
``Game.statistics``); the arithmetic is the games' engines' (``games.*.engine.season_stats``). A
record that does not read as the game's (an old or hand-edited one) is left out, never an error
on a page.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from games.players import records as game_records
from league.models import League, Season
from matches.models import Match


def applied_records(*, league: League, season: Season | None = None) -> list[dict[str, Any]]:
    """The records the confirmed matches of a league (or one of its seasons) were confirmed with,
    in the order they were confirmed: one query. A dispute settled with the second record counts
    that one."""
    matches = Match.objects.filter(status=Match.Status.CONFIRMED, league=league)
    if season is not None:
        matches = matches.filter(season=season)
    rows = matches.order_by("confirmed_at", "pk").values_list("submitted_record", "counter_record", "settlement")
    return [record for row in rows if (record := game_records.applied_record(*row)) is not None]


def rate(rate: Fraction | None) -> float | None:
    return None if rate is None else float(rate)


def percent(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:.0f}%"


@dataclass(frozen=True)
class Row:
    label: str
    count: int
    total: int = 0
    rate: float | None = None
