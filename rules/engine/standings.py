"""The league table's order: league points, then the league's tie-breakers in turn.

The rulebook leaves the league's format to the ninja master ("Leagues"); these are the
tie-breakers a master may choose (a house rule, in order) and how they rank the teams
(docs/rulings.md, "League table").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

__all__ = [
    "TieBreaker",
    "TIE_BREAKER_LABELS",
    "DEFAULT_TIE_BREAKERS",
    "Standing",
    "parse_tie_breakers",
    "head_to_head_groups",
    "win_percentage",
    "buchholz",
    "opponents_win_percentage",
    "rank",
]


class TieBreaker(str, Enum):
    """A way to separate teams level on league points."""

    POINTS_DIFFERENCE = "points_difference"
    POINTS_FOR = "points_for"
    HEAD_TO_HEAD = "head_to_head"
    WINS = "wins"
    TEAM_RATING_LOW = "team_rating_low"
    BUCHHOLZ = "buchholz"
    OPPONENTS_WIN_PERCENTAGE = "opponents_win_percentage"

    @property
    def label(self) -> str:
        return TIE_BREAKER_LABELS[self]


TIE_BREAKER_LABELS: dict[TieBreaker, str] = {
    TieBreaker.POINTS_DIFFERENCE: "Difference between points scored and conceded",
    TieBreaker.POINTS_FOR: "Points scored",
    TieBreaker.HEAD_TO_HEAD: "Head-to-head points between the tied teams",
    TieBreaker.WINS: "Games won",
    TieBreaker.TEAM_RATING_LOW: "Lower team rating",
    TieBreaker.BUCHHOLZ: "Strength of schedule (Buchholz: the league points of every opponent met)",
    TieBreaker.OPPONENTS_WIN_PERCENTAGE: "Opponents' win percentage",
}

DEFAULT_TIE_BREAKERS: tuple[TieBreaker, ...] = (
    TieBreaker.POINTS_DIFFERENCE,
    TieBreaker.POINTS_FOR,
    TieBreaker.HEAD_TO_HEAD,
)


@dataclass(frozen=True)
class Standing:
    """One team's figures in the table. ``name`` orders teams level on everything.

    ``opponents`` holds the team id of the opponent of every game counted in the table, once per
    game (a rematch appears twice); a bye is no game and has no opponent.
    """

    team_id: int
    name: str
    points: int
    points_for: int = 0
    points_against: int = 0
    won: int = 0
    rating: int = 0
    played: int = 0
    drawn: int = 0
    opponents: tuple[int, ...] = ()

    @property
    def points_difference(self) -> int:
        return self.points_for - self.points_against


def parse_tie_breakers(names: Iterable[TieBreaker | str]) -> tuple[TieBreaker, ...]:
    """The tie-breakers named, in order; an unknown name raises ``ValueError``."""
    out = []
    for name in names:
        try:
            out.append(TieBreaker(name))
        except ValueError:
            raise ValueError(f"unknown tie-breaker {name!r}") from None
    return tuple(out)


def win_percentage(standing: Standing) -> Fraction:
    """Games won, a draw counting half, over games played (0 before the first game)."""
    if standing.played <= 0:
        return Fraction(0)
    return Fraction(2 * standing.won + standing.drawn, 2 * standing.played)


def buchholz(standings: Sequence[Standing]) -> dict[int, int]:
    """Strength of schedule: {team: the sum of the league points of each opponent it met}.

    An opponent counts once per game played against it (twice after a rematch), with its league
    points as they stand in ``standings`` (its byes included); an opponent not in ``standings``
    (a team that left the season) counts 0.
    """
    points = {s.team_id: s.points for s in standings}
    return {s.team_id: sum(points.get(o, 0) for o in s.opponents) for s in standings}


def opponents_win_percentage(standings: Sequence[Standing]) -> dict[int, Fraction]:
    """{team: the mean of its opponents' win percentages}, one term per game (exact fractions).

    A team with no game yet has 0. An opponent not in ``standings`` counts 0.
    """
    percentage = {s.team_id: win_percentage(s) for s in standings}
    return {
        s.team_id: (sum((percentage.get(o, Fraction(0)) for o in s.opponents), Fraction(0)) / len(s.opponents))
        if s.opponents
        else Fraction(0)
        for s in standings
    }


def _whole(standings: Sequence[Standing], criteria: Sequence[TieBreaker | None]) -> dict[TieBreaker, Mapping]:
    """The criteria of ``criteria`` computed over the whole table (strength of schedule)."""
    whole: dict[TieBreaker, Mapping] = {}
    if TieBreaker.BUCHHOLZ in criteria:
        whole[TieBreaker.BUCHHOLZ] = buchholz(standings)
    if TieBreaker.OPPONENTS_WIN_PERCENTAGE in criteria:
        whole[TieBreaker.OPPONENTS_WIN_PERCENTAGE] = opponents_win_percentage(standings)
    return whole


def _key(
    criterion: TieBreaker | None,
    group: Sequence[Standing],
    h2h: Mapping[tuple[int, int], int],
    whole: Mapping[TieBreaker, Mapping[int, object]],
):
    """Sort key (bigger is better) of one criterion over one group of tied teams. ``whole`` holds
    the criteria computed over the whole table (strength of schedule)."""
    if criterion in whole:
        values = whole[criterion]
        return lambda s: values[s.team_id]
    if criterion is None:  # league points
        return lambda s: s.points
    if criterion is TieBreaker.POINTS_DIFFERENCE:
        return lambda s: s.points_difference
    if criterion is TieBreaker.POINTS_FOR:
        return lambda s: s.points_for
    if criterion is TieBreaker.WINS:
        return lambda s: s.won
    if criterion is TieBreaker.TEAM_RATING_LOW:
        return lambda s: -s.rating
    if criterion is TieBreaker.HEAD_TO_HEAD:
        ids = [s.team_id for s in group]
        return lambda s: sum(h2h.get((s.team_id, o), 0) for o in ids if o != s.team_id)
    raise ValueError(f"unknown tie-breaker {criterion!r}")  # pragma: no cover - the enum is closed


def rank(
    standings: Sequence[Standing],
    tie_breakers: Iterable[TieBreaker | str],
    *,
    head_to_head: Mapping[tuple[int, int], int] | None = None,
) -> list[Standing]:
    """``standings`` in table order: by league points, then by each tie-breaker in turn.

    Each tie-breaker is applied to the group still level at that step, so head-to-head counts
    only the league points earned in games between the teams of that group
    (``head_to_head[(team, opponent)]``: league points ``team`` took from ``opponent``). Teams
    still level are listed by name (case-insensitive), then id. Strength of schedule (Buchholz,
    opponents' win percentage) is computed over the whole table, each team's ``opponents``, then
    compared within the group. An unknown tie-breaker raises ``ValueError``.
    """
    criteria: list[TieBreaker | None] = [None, *parse_tie_breakers(tie_breakers)]
    h2h = head_to_head or {}
    standings = list(standings)
    whole = _whole(standings, criteria)

    def split(group: list[Standing], remaining: list[TieBreaker | None]) -> list[Standing]:
        if len(group) <= 1 or not remaining:
            return sorted(group, key=lambda s: (s.name.casefold(), s.team_id))
        key = _key(remaining[0], group, h2h, whole)
        buckets: dict[object, list[Standing]] = {}
        for standing in group:
            buckets.setdefault(key(standing), []).append(standing)
        ordered: list[Standing] = []
        for value in sorted(buckets, reverse=True):
            ordered.extend(split(buckets[value], remaining[1:]))
        return ordered

    return split(standings, criteria)


def head_to_head_groups(
    standings: Sequence[Standing], tie_breakers: Iterable[TieBreaker | str]
) -> list[frozenset[int]]:
    """The groups of teams (ids) still level when the first head-to-head tie-breaker is reached:
    the only games whose head-to-head points :func:`rank` can read. Empty when the tie-breakers
    have no head-to-head or no two teams are level on everything before it. Applying head-to-head
    again later only looks inside these groups, so their games are all it ever needs."""
    criteria = parse_tie_breakers(tie_breakers)
    if TieBreaker.HEAD_TO_HEAD not in criteria:
        return []
    before: list[TieBreaker | None] = [None, *criteria[: criteria.index(TieBreaker.HEAD_TO_HEAD)]]
    standings = list(standings)
    whole = _whole(standings, before)
    keys = [_key(c, (), {}, whole) for c in before]  # none reads the group: made once
    groups: dict[tuple, list[int]] = {}
    for standing in standings:
        groups.setdefault(tuple([key(standing) for key in keys]), []).append(standing.team_id)
    return [frozenset(ids) for ids in groups.values() if len(ids) > 1]
