"""Rates with honest uncertainty: the Wilson score interval (Wilson 1927).

Pure Python, no Django. Written out rather than taken from statsmodels (``proportion_confint(...,
method="wilson")``): the formula is four lines, and statsmodels would bring numpy, scipy and
pandas into the web process for it. tests/stats/test_intervals.py checks it against published
values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The normal quantile for a two-sided 95% interval.
Z95 = 1.959963984540054
#: Fewer games than this and a rate is shown greyed: its interval is wider than about ±0.3.
THIN = 10


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` out of ``n`` (n > 0)."""
    if n <= 0:
        raise ValueError("no trials")
    if not 0 <= successes <= n:
        raise ValueError(f"{successes} successes out of {n}")
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    margin = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return max(0.0, centre - margin), min(1.0, centre + margin)


@dataclass(frozen=True)
class Rate:
    """Wins (or any success) out of n games, with draws and losses kept for the table."""

    wins: int
    draws: int
    losses: int

    @property
    def n(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def rate(self) -> float | None:
        return self.wins / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.wins, self.n) if self.n else None

    @property
    def low(self) -> float | None:
        return self.interval[0] if self.n else None

    @property
    def high(self) -> float | None:
        return self.interval[1] if self.n else None

    @property
    def thin(self) -> bool:
        return self.n < THIN

    def __add__(self, other: Rate) -> Rate:
        return Rate(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)


NO_GAMES = Rate(0, 0, 0)
