"""Small statistics for the simulator's experiments (pure, standard library only)."""

from __future__ import annotations

import math

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, *, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``successes / n`` (95% by default); (0, 1) when ``n`` is 0.

    Wilson, E. B. (1927), "Probable inference, the law of succession, and statistical inference".
    """
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError("successes must lie between 0 and n")
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)
