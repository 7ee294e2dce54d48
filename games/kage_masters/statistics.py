"""Kage Masters' statistics (issue 17, part 5; moved from games/players/statistics.py), its
``Game.statistics``: each Kage Master's tables and win rate (first place, shared or not), and the
mean treasure by first-round seat for each table size. The arithmetic is the engine's
(``games.kage_masters.engine.season_stats``); a record that does not read as Kage Masters' is left
out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games import registry
from games.kage_masters import engine as kage
from games.kage_masters import results as game_results
from games.players import statistics as game_stats
from league.models import League, Season

KAGE_MASTERS = registry.KAGE_MASTERS


@dataclass(frozen=True)
class SeatRow:
    seat: int
    tables: int
    mean_treasure: float


@dataclass(frozen=True)
class KageStatistics:
    game: str
    tables: int
    stats: kage.SeasonStats
    masters: list[game_stats.Row] = field(default_factory=list)
    #: [(table size, [SeatRow by seat])] for the sizes with a recorded seat order
    seats: list[tuple[int, list[SeatRow]]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.tables == 0

    def facts(self) -> list[dict[str, str]]:
        """The figures as sentences (the newsletter's facts): ``[{"key", "text"}]``."""
        if self.empty:
            return []
        parts = ", ".join(f"{r.label} {r.count} of {r.total} ({game_stats.percent(r.rate)})" for r in self.masters)
        out = [{"key": "kage_masters", "text": f"Tables won by Kage Master: {parts}."}]
        for size, rows in self.seats:
            seats = ", ".join(f"seat {r.seat} {r.mean_treasure:.1f}" for r in rows)
            out.append(
                {"key": f"seats_{size}", "text": f"Mean treasure by first-round seat at tables of {size}: {seats}."}
            )
        return out


def kage_tables(records: Iterable[Mapping[str, Any]]) -> list[tuple[kage.Seat, ...]]:
    tables = []
    for record in records:
        try:
            seats = game_results.kage_seats(record)
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
        if kage.MIN_PLAYERS <= len(seats) <= kage.MAX_PLAYERS:
            tables.append(seats)
    return tables


def kage_statistics_of(records: Iterable[Mapping[str, Any]]) -> KageStatistics:
    """The figures of some Kage Masters records (the arithmetic is games.kage_masters.engine.season_stats)."""
    tables = kage_tables(records)
    stats = kage.season_stats(tables)
    masters = sorted(
        (
            game_stats.Row(master, stats.master_wins.get(master, 0), n, game_stats.rate(stats.win_rate(master)))
            for master, n in stats.master_tables.items()
        ),
        key=lambda r: (-(r.rate or 0), -r.total, r.label),
    )
    sizes: dict[int, list[SeatRow]] = {}
    for (size, seat), mean in sorted(stats.treasure_by_seat.items()):
        sizes.setdefault(size, []).append(SeatRow(seat, stats.tables_by_seat[(size, seat)], float(mean)))
    return KageStatistics(KAGE_MASTERS, len(tables), stats, masters, sorted(sizes.items()))


def kage_statistics(
    *, league: League, season: Season | None = None, records: Iterable[Mapping[str, Any]] | None = None
) -> KageStatistics:
    """A Kage Masters league's (or season's) statistics: one query (none when the caller gives
    the records)."""
    return kage_statistics_of(
        records if records is not None else game_stats.applied_records(league=league, season=season)
    )
