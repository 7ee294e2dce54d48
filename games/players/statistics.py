"""The statistics of the players' games (issue 17, part 5), registered with the per-game interface
(``league.games.register_statistics``, from ``StatsConfig.ready()``):

* **Ninjutsu**: how often the starting player won, each colour's win rate, how the Sokes died and
  which action cards opened the way to them;
* **Kage Masters**: each Kage Master's tables and win rate (first place, shared or not), and the
  mean treasure by first-round seat for each table size.

The arithmetic is the games' own (``games.*.engine.season_stats``); this module reads the confirmed
records of a league or a season in one query and feeds them. A record that does not read as the
game's (an old or hand-edited one) is left out, never an error on a page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from games import registry
from games.kage_masters import engine as kage
from games.ninjutsu import engine as ninjutsu
from games.players import records as game_records
from games.players import results as game_results
from league.models import League, Season
from matches.models import Match

NINJUTSU, KAGE_MASTERS = registry.NINJUTSU, registry.KAGE_MASTERS
CARD_LABELS = {
    ninjutsu.Card.JUMP.value: "Jump",
    ninjutsu.Card.SMOKE.value: "Smoke",
    ninjutsu.Card.JOKER.value: "Joker (as a Jump or a Smoke)",
}


def applied_records(*, league: League, season: Season | None = None) -> list[dict[str, Any]]:
    """The records the confirmed matches of a league (or one of its seasons) were confirmed with,
    in the order they were confirmed: one query. A dispute settled with the second record counts
    that one."""
    matches = Match.objects.filter(status=Match.Status.CONFIRMED, league=league)
    if season is not None:
        matches = matches.filter(season=season)
    rows = matches.order_by("confirmed_at", "pk").values_list("submitted_record", "counter_record", "settlement")
    return [record for row in rows if (record := game_records.applied_record(*row)) is not None]


def _rate(rate: Fraction | None) -> float | None:
    return None if rate is None else float(rate)


def _percent(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:.0f}%"


# --- Ninjutsu ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    label: str
    count: int
    total: int = 0
    rate: float | None = None


@dataclass(frozen=True)
class NinjutsuStatistics:
    game: str
    stats: ninjutsu.SeasonStats
    colours: list[Row] = field(default_factory=list)
    endings: list[Row] = field(default_factory=list)
    cards: list[Row] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.stats.games == 0

    @property
    def starter_win_rate(self) -> float | None:
        return _rate(self.stats.starter_win_rate)

    @property
    def sokes_died(self) -> int:
        return sum(n for key, n in self.stats.endings.items() if ninjutsu.Ending(key).soke_died)

    @property
    def opened_by_card(self) -> int:
        return sum(self.stats.cards.values())

    def facts(self) -> list[dict[str, str]]:
        """The figures as sentences (the newsletter's facts): ``[{"key", "text"}]``."""
        if self.empty:
            return []
        out = []
        if self.stats.decided:
            out.append(
                {
                    "key": "starter",
                    "text": f"The starting player won {self.stats.starter_wins} of {self.stats.decided} "
                    f"game{'s' if self.stats.decided != 1 else ''} ({_percent(self.starter_win_rate)}).",
                }
            )
        if self.colours:
            parts = ", ".join(f"{r.label} {r.count} of {r.total} ({_percent(r.rate)})" for r in self.colours)
            out.append({"key": "colours", "text": f"Wins by colour: {parts}."})
        if self.endings:
            parts = "; ".join(f"{r.label.lower()}: {r.count}" for r in self.endings)
            out.append({"key": "endings", "text": f"How the games ended: {parts}."})
        if self.cards:
            parts = ", ".join(f"{r.label} {r.count}" for r in self.cards)
            out.append({"key": "cards", "text": f"The card that opened the way to the Soke: {parts}."})
        return out


def ninjutsu_results(records: Iterable[Mapping[str, Any]]) -> list[ninjutsu.NinjutsuResult]:
    results = []
    for record in records:
        try:
            results.append(game_results.ninjutsu_result(record))
        except (ValueError, TypeError):
            continue
    return results


def ninjutsu_statistics_of(records: Iterable[Mapping[str, Any]]) -> NinjutsuStatistics:
    """The figures of some Ninjutsu records (the arithmetic is games.ninjutsu.engine.season_stats)."""
    stats = ninjutsu.season_stats(ninjutsu_results(records))
    colours = sorted(
        (
            Row(colour, stats.colour_wins.get(colour, 0), games, _rate(stats.colour_win_rate(colour)))
            for colour, games in stats.colour_games.items()
        ),
        key=lambda r: (-r.total, r.label.casefold()),
    )
    endings = [
        Row(ending.label, stats.endings[ending.value], stats.games, stats.endings[ending.value] / stats.games)
        for ending in ninjutsu.Ending
        if stats.endings.get(ending.value)
    ]
    opened = sum(stats.cards.values())
    cards = [
        Row(CARD_LABELS[card.value], stats.cards[card.value], opened, stats.cards[card.value] / opened)
        for card in ninjutsu.Card
        if stats.cards.get(card.value)
    ]
    return NinjutsuStatistics(NINJUTSU, stats, colours, endings, cards)


def ninjutsu_statistics(
    *, league: League, season: Season | None = None, records: Iterable[Mapping[str, Any]] | None = None
) -> NinjutsuStatistics:
    """A Ninjutsu league's (or season's) statistics: one query (none when the caller gives the
    records, as the newsletter does with those through its period)."""
    return ninjutsu_statistics_of(records if records is not None else applied_records(league=league, season=season))


# --- Kage Masters --------------------------------------------------------------------------------


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
    masters: list[Row] = field(default_factory=list)
    #: [(table size, [SeatRow by seat])] for the sizes with a recorded seat order
    seats: list[tuple[int, list[SeatRow]]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.tables == 0

    def facts(self) -> list[dict[str, str]]:
        """The figures as sentences (the newsletter's facts): ``[{"key", "text"}]``."""
        if self.empty:
            return []
        parts = ", ".join(f"{r.label} {r.count} of {r.total} ({_percent(r.rate)})" for r in self.masters)
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
            seats = game_records.kage_seats(record)
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
            Row(master, stats.master_wins.get(master, 0), n, _rate(stats.win_rate(master)))
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
    return kage_statistics_of(records if records is not None else applied_records(league=league, season=season))


#: The statistics function of each players' game (registered in StatsConfig.ready()).
STATISTICS = {NINJUTSU: ninjutsu_statistics, KAGE_MASTERS: kage_statistics}
