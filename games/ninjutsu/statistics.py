"""Ninjutsu's statistics (issue 17, part 5; moved from games/players/statistics.py), its
``Game.statistics``: how often the starting player won, each colour's win rate, how the Sokes died
and which action cards opened the way to them. The arithmetic is the engine's
(``games.ninjutsu.engine.season_stats``); a record that does not read as Ninjutsu's is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games import registry
from games.ninjutsu import engine as ninjutsu
from games.ninjutsu import results as game_results
from games.players import statistics as game_stats
from league.models import League, Season

NINJUTSU = registry.NINJUTSU
CARD_LABELS = {
    ninjutsu.Card.JUMP.value: "Jump",
    ninjutsu.Card.SMOKE.value: "Smoke",
    ninjutsu.Card.JOKER.value: "Joker (as a Jump or a Smoke)",
}


@dataclass(frozen=True)
class NinjutsuStatistics:
    game: str
    stats: ninjutsu.SeasonStats
    colours: list[game_stats.Row] = field(default_factory=list)
    endings: list[game_stats.Row] = field(default_factory=list)
    cards: list[game_stats.Row] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.stats.games == 0

    @property
    def starter_win_rate(self) -> float | None:
        return game_stats.rate(self.stats.starter_win_rate)

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
                    f"game{'s' if self.stats.decided != 1 else ''} ({game_stats.percent(self.starter_win_rate)}).",
                }
            )
        if self.colours:
            parts = ", ".join(f"{r.label} {r.count} of {r.total} ({game_stats.percent(r.rate)})" for r in self.colours)
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
            game_stats.Row(
                colour, stats.colour_wins.get(colour, 0), games, game_stats.rate(stats.colour_win_rate(colour))
            )
            for colour, games in stats.colour_games.items()
        ),
        key=lambda r: (-r.total, r.label.casefold()),
    )
    endings = [
        game_stats.Row(
            ending.label, stats.endings[ending.value], stats.games, stats.endings[ending.value] / stats.games
        )
        for ending in ninjutsu.Ending
        if stats.endings.get(ending.value)
    ]
    opened = sum(stats.cards.values())
    cards = [
        game_stats.Row(CARD_LABELS[card.value], stats.cards[card.value], opened, stats.cards[card.value] / opened)
        for card in ninjutsu.Card
        if stats.cards.get(card.value)
    ]
    return NinjutsuStatistics(NINJUTSU, stats, colours, endings, cards)


def ninjutsu_statistics(
    *, league: League, season: Season | None = None, records: Iterable[Mapping[str, Any]] | None = None
) -> NinjutsuStatistics:
    """A Ninjutsu league's (or season's) statistics: one query (none when the caller gives the
    records, as the newsletter does with those through its period)."""
    return ninjutsu_statistics_of(
        records if records is not None else game_stats.applied_records(league=league, season=season)
    )
