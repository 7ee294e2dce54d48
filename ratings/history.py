"""Rate a whole match history, period by period: Glicko-2 for two-sided results, Plackett-Luce for
tables of three or more (docs/ratings.md).

Pure: results in, ratings and the predictions made before each result out. The league's service
(stats/ratings.py) builds the periods from confirmed matches; benchmarks/ratings_calibration.py
builds them from simulated seasons and scores the predictions. Same input, same output: nothing
is random and the order of results inside a period changes nothing for Glicko-2.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

from ratings import glicko2, multiplayer


@dataclass(frozen=True)
class Result:
    """One match: its subjects (teams or coaches) in slot order and each one's place (1 first; a
    two-sided draw is (1, 1)). ``table``: rated as a table (Plackett-Luce) even with two sides, as
    every game of a table game is (a Kage Masters table of two); three or more sides always are."""

    match_id: int
    sides: tuple[Hashable, ...]
    placements: tuple[int, ...]
    table: bool = False

    def __post_init__(self) -> None:
        if len(self.sides) != len(self.placements) or len(self.sides) < 2:
            raise ValueError("a result has two or more sides, one placement each")
        if len(set(self.sides)) != len(self.sides):
            raise ValueError("a subject cannot meet itself")

    @property
    def score(self) -> float:
        """Side 1's Glicko-2 score in a two-sided result: 1 a win, 1/2 a draw, 0 a loss."""
        first, second = self.placements
        return 1.0 if first < second else 0.5 if first == second else 0.0

    @property
    def at_table(self) -> bool:
        """Rated by Plackett-Luce (a table) rather than Glicko-2 (a duel)."""
        return self.table or len(self.sides) > 2


@dataclass(frozen=True)
class Period:
    """A rating period (a round of the schedule, or a week): its results and the subjects that sat
    it out (their Glicko-2 deviation grows; a subject never rated yet is left alone)."""

    key: Hashable
    results: tuple[Result, ...]
    idle: frozenset = frozenset()


@dataclass
class RatedHistory:
    glicko: dict[Hashable, glicko2.Rating] = field(default_factory=dict)
    tables: dict[Hashable, multiplayer.TableRating] = field(default_factory=dict)
    games: dict[Hashable, int] = field(default_factory=dict)
    table_games: dict[Hashable, int] = field(default_factory=dict)
    last_match: dict[Hashable, int] = field(default_factory=dict)
    #: {match id: each side's predicted chance (of winning; of finishing first at a table)} from
    #: the ratings before the match's period (two-sided) or before the match (tables).
    predictions: dict[int, tuple[float, ...]] = field(default_factory=dict)


def rate_history(
    periods: Iterable[Period],
    *,
    start: RatedHistory | None = None,
    on_period: Callable[[int, frozenset, RatedHistory], object] | None = None,
) -> RatedHistory:
    """Every subject's ratings after ``periods``, in the order given. ``start``: the ratings before
    the first of them (rating a history's later periods only: the same result as rating it whole);
    it is not changed. ``on_period(index, subjects, history)``: called after each period with the
    subjects whose ratings or counts it changed and the history as it stands then."""
    out = RatedHistory()
    if start is not None:
        out.glicko, out.tables = dict(start.glicko), dict(start.tables)
        out.games, out.table_games, out.last_match = dict(start.games), dict(start.table_games), dict(start.last_match)
    for index, period in enumerate(periods):
        duels = [r for r in period.results if not r.at_table]
        tables = [r for r in period.results if r.at_table]
        if duels:
            for result in duels:
                a, b = result.sides
                out.predictions[result.match_id] = glicko2.win_probabilities(
                    out.glicko.get(a, glicko2.Rating()), out.glicko.get(b, glicko2.Rating())
                )
            players = {s for r in duels for s in r.sides}
            start = {s: out.glicko[s] for s in players | set(period.idle) if s in out.glicko}
            rated = glicko2.rate_period(start, [(r.sides[0], r.sides[1], r.score) for r in duels])
            out.glicko.update(rated)
        else:
            for subject in period.idle:
                if subject in out.glicko:
                    out.glicko[subject] = glicko2.rate(out.glicko[subject], [])
        for result in tables:
            before = [out.tables.get(s, multiplayer.TableRating()) for s in result.sides]
            out.predictions[result.match_id] = multiplayer.table_win_probabilities(before)
            after = multiplayer.rate_table(before, placements=result.placements)
            for subject, rating in zip(result.sides, after, strict=True):
                out.tables[subject] = rating
                out.table_games[subject] = out.table_games.get(subject, 0) + 1
        for result in period.results:
            for subject in result.sides:
                if not result.at_table:
                    out.games[subject] = out.games.get(subject, 0) + 1
                out.last_match[subject] = max(out.last_match.get(subject, 0), result.match_id)
        if on_period is not None:
            played = {s for r in period.results for s in r.sides}
            on_period(index, frozenset(played | {s for s in period.idle if s in out.glicko}), out)
    return out


def placements(points: tuple[int, ...], outcomes: tuple[str, ...]) -> tuple[int, ...]:
    """Places from a match's outcomes (win/draw/loss), ties broken by nothing: winners first, then
    by points (a table of three or four: more points, a better place; equal points share it)."""
    if len(outcomes) == 2:
        first, second = outcomes
        if first == second:
            return (1, 1)
        return (1, 2) if first == "win" else (2, 1)
    order = sorted(range(len(points)), key=lambda i: (outcomes[i] != "win", -points[i]))
    places = [0] * len(points)
    for rank, i in enumerate(order, start=1):
        j = order[rank - 2] if rank > 1 else None
        same = j is not None and (outcomes[i] == "win") == (outcomes[j] == "win") and points[i] == points[j]
        places[i] = places[j] if same else rank
    return tuple(places)
