"""Ratings for multi-player tables (Kage Masters' 2-5 players; All-Stars' 3- and 4-team matches):
the Plackett-Luce model of the maintained ``openskill`` package (Weng and Lin, "A Bayesian
Approximation Method for Online Ranking", JMLR 2011), wrapped in frozen dataclasses.

A table's result is each seat's placement (1 = first; equal placements are a shared place).
The model is online: each confirmed table updates its players' ratings at once, in the order the
results were confirmed (docs/ratings.md).  Everything here is deterministic: openskill draws no
random numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

__all__ = [
    "INITIAL_MU",
    "INITIAL_SIGMA",
    "MIN_TABLE",
    "MAX_TABLE",
    "TableRating",
    "rate_table",
    "table_strengths",
    "table_win_probabilities",
]

INITIAL_MU = 25.0
INITIAL_SIGMA = 25.0 / 3.0
MIN_TABLE = 2
MAX_TABLE = 5

# openskill's defaults: beta = sigma / 2 (the spread of one game's performance), tau = mu / 300
# (the drift added before each game, so sigma never freezes).
_MODEL = PlackettLuce(mu=INITIAL_MU, sigma=INITIAL_SIGMA)
#: openskill's beta: the spread of one game's performance (half the initial sigma).
BETA = INITIAL_SIGMA / 2


@dataclass(frozen=True)
class TableRating:
    """A player's skill estimate: mean ``mu`` and uncertainty ``sigma`` (a new player's default)."""

    mu: float = INITIAL_MU
    sigma: float = INITIAL_SIGMA

    def __post_init__(self) -> None:
        if not self.sigma > 0:
            raise ValueError("sigma must be positive")

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: a conservative estimate to list players by (openskill's ordinal)."""
        return self.mu - 3 * self.sigma


def _check_table(ratings: Sequence[TableRating]) -> None:
    if not MIN_TABLE <= len(ratings) <= MAX_TABLE:
        raise ValueError(f"a table has {MIN_TABLE} to {MAX_TABLE} players")


def rate_table(ratings: Sequence[TableRating], *, placements: Sequence[int]) -> tuple[TableRating, ...]:
    """The ratings after one table, seat by seat: ``placements[i]`` is seat i's place (1 is
    first; tied players share a place, e.g. ``(1, 2, 2, 4)``)."""
    _check_table(ratings)
    if len(placements) != len(ratings):
        raise ValueError("one placement per seat")
    if any(not isinstance(p, int) or isinstance(p, bool) or not 1 <= p <= len(ratings) for p in placements):
        raise ValueError(f"placements are whole numbers from 1 to {len(ratings)}")
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    rated = _MODEL.rate(teams, ranks=[float(p) for p in placements])
    return tuple(TableRating(mu=team[0].mu, sigma=team[0].sigma) for team in rated)


def table_win_probabilities(ratings: Sequence[TableRating]) -> tuple[float, ...]:
    """Each seat's predicted chance of finishing first (they add up to 1)."""
    _check_table(ratings)
    return tuple(_MODEL.predict_win([[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]))


def table_strengths(ratings: Sequence[TableRating]) -> tuple[float, ...]:
    """Each seat's Plackett-Luce strength at this table, ``exp(mu / c)`` with
    ``c = sqrt(sum(sigma^2 + beta^2))`` over the table (the model's own parametrisation, Weng and
    Lin 2011, section 4.1): seat i finishes first with chance ``strength_i / sum(strengths)``, and
    each next place is drawn the same way among the rest. Scaled so the strongest is 1 (the
    chances depend only on the ratios). What the simulator of a table draws from."""
    _check_table(ratings)
    c = math.sqrt(sum(r.sigma**2 + BETA**2 for r in ratings))
    top = max(r.mu for r in ratings)
    return tuple(math.exp((r.mu - top) / c) for r in ratings)
