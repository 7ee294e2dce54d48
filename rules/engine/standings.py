"""The league table's order: league points, then the league's tie-breakers in turn.

The rulebook leaves the league's format to the ninja master ("Leagues"); these are the
tie-breakers a master may choose (a house rule, in order) and how they rank the teams
(docs/rulings.md, "League table").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

__all__ = [
    "TieBreaker",
    "TIE_BREAKER_LABELS",
    "DEFAULT_TIE_BREAKERS",
    "Standing",
    "parse_tie_breakers",
    "head_to_head_groups",
    "rank",
]


class TieBreaker(str, Enum):
    """A way to separate teams level on league points."""

    POINTS_DIFFERENCE = "points_difference"
    POINTS_FOR = "points_for"
    HEAD_TO_HEAD = "head_to_head"
    WINS = "wins"
    TEAM_RATING_LOW = "team_rating_low"

    @property
    def label(self) -> str:
        return TIE_BREAKER_LABELS[self]


TIE_BREAKER_LABELS: dict[TieBreaker, str] = {
    TieBreaker.POINTS_DIFFERENCE: "Difference between points scored and conceded",
    TieBreaker.POINTS_FOR: "Points scored",
    TieBreaker.HEAD_TO_HEAD: "Head-to-head points between the tied teams",
    TieBreaker.WINS: "Games won",
    TieBreaker.TEAM_RATING_LOW: "Lower team rating",
}

DEFAULT_TIE_BREAKERS: tuple[TieBreaker, ...] = (
    TieBreaker.POINTS_DIFFERENCE,
    TieBreaker.POINTS_FOR,
    TieBreaker.HEAD_TO_HEAD,
)


@dataclass(frozen=True)
class Standing:
    """One team's figures in the table. ``name`` orders teams level on everything."""

    team_id: int
    name: str
    points: int
    points_for: int = 0
    points_against: int = 0
    won: int = 0
    rating: int = 0

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


def _key(criterion: TieBreaker | None, group: Sequence[Standing], h2h: Mapping[tuple[int, int], int]):
    """Sort key (bigger is better) of one criterion over one group of tied teams."""
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
    still level are listed by name (case-insensitive), then id. An unknown tie-breaker raises
    ``ValueError``.
    """
    criteria: list[TieBreaker | None] = [None, *parse_tie_breakers(tie_breakers)]
    h2h = head_to_head or {}

    def split(group: list[Standing], remaining: list[TieBreaker | None]) -> list[Standing]:
        if len(group) <= 1 or not remaining:
            return sorted(group, key=lambda s: (s.name.casefold(), s.team_id))
        key = _key(remaining[0], group, h2h)
        buckets: dict[int, list[Standing]] = {}
        for standing in group:
            buckets.setdefault(key(standing), []).append(standing)
        ordered: list[Standing] = []
        for value in sorted(buckets, reverse=True):
            ordered.extend(split(buckets[value], remaining[1:]))
        return ordered

    return split(list(standings), criteria)


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
    groups: dict[tuple, list[int]] = {}
    for standing in standings:
        key = tuple(_key(c, (), {})(standing) for c in before)
        groups.setdefault(key, []).append(standing.team_id)
    return [frozenset(ids) for ids in groups.values() if len(ids) > 1]
