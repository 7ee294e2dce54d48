"""Glicko-2 (Mark E. Glickman, "Example of the Glicko-2 system", Boston University, 2013).

Implemented step by step from the paper; the step numbers below are its own.  Standard library
only.  A rating is kept on the familiar scale (``rating`` 1500, ``rd`` 350) and converted to the
Glicko-2 scale (``mu``, ``phi``) for the update, with the paper's constant 173.7178.

The chosen parameters (tau 0.5; a new team 1500 / 350 / 0.06; one rating period per league
round) are explained in docs/ratings.md.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "SCALE",
    "TAU",
    "INITIAL_RATING",
    "INITIAL_RD",
    "INITIAL_VOLATILITY",
    "CONVERGENCE",
    "Rating",
    "Game",
    "rate",
    "rate_period",
    "expected_score",
    "win_probabilities",
]

SCALE = 173.7178  # Step 2: mu = (r - 1500) / 173.7178, phi = RD / 173.7178
TAU = 0.5  # the system constant: how much volatility may change (the paper: 0.3 to 1.2)
INITIAL_RATING = 1500.0
INITIAL_RD = 350.0
INITIAL_VOLATILITY = 0.06
CONVERGENCE = 0.000001  # Step 5's epsilon


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating: ``rating`` and rating deviation ``rd`` on the Glicko scale, and the
    volatility ``volatility`` (sigma).  The default is a new, unknown team."""

    rating: float = INITIAL_RATING
    rd: float = INITIAL_RD
    volatility: float = INITIAL_VOLATILITY

    def __post_init__(self) -> None:
        for name in ("rating", "rd", "volatility"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number")
        if self.rd <= 0 or self.volatility <= 0:
            raise ValueError("rd and volatility must be positive")

    @property
    def mu(self) -> float:
        return (self.rating - INITIAL_RATING) / SCALE

    @property
    def phi(self) -> float:
        return self.rd / SCALE


@dataclass(frozen=True)
class Game:
    """One game against ``opponent`` (as rated at the start of the period): ``score`` 1 for a
    win, 0.5 for a draw, 0 for a loss."""

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if self.score not in (0, 0.5, 1):
            raise ValueError("a game's score is 1 (win), 0.5 (draw) or 0 (loss)")


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the Illinois algorithm (a regula falsi variant) on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > CONVERGENCE:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def rate(player: Rating, games: Sequence[Game], *, tau: float = TAU) -> Rating:
    """The player's rating after one rating period in which they played ``games``.

    With no games, only the rating deviation grows (Step 6 with phi' = phi*): the rating and
    the volatility stay as they were.
    """
    if tau <= 0:
        raise ValueError("tau must be positive")
    mu, phi, sigma = player.mu, player.phi, player.volatility
    if not games:
        return Rating(rating=player.rating, rd=math.sqrt(phi * phi + sigma * sigma) * SCALE, volatility=sigma)
    # Step 3: the estimated variance v of the rating from the game outcomes alone.
    terms = []
    for game in games:
        mu_j, phi_j = game.opponent.mu, game.opponent.phi
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        terms.append((g, e, game.score))
    v = 1 / sum(g * g * e * (1 - e) for g, e, _ in terms)
    # Step 4: the estimated improvement Delta.
    improvement = sum(g * (s - e) for g, e, s in terms)
    delta = v * improvement
    # Step 5: the new volatility.
    new_sigma = _new_volatility(sigma, phi, v, delta, tau)
    # Step 6: the pre-period rating deviation.
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    # Step 7: the new rating deviation and rating.
    new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    new_mu = mu + new_phi * new_phi * improvement
    # Step 8: back to the Glicko scale.
    return Rating(rating=SCALE * new_mu + INITIAL_RATING, rd=SCALE * new_phi, volatility=new_sigma)


def rate_period(
    ratings: Mapping[Hashable, Rating],
    games: Iterable[tuple[Hashable, Hashable, float]],
    *,
    tau: float = TAU,
) -> dict[Hashable, Rating]:
    """Every player's rating after one rating period.

    ``ratings`` holds every player's rating at the start of the period (a player missing from it
    is new: :class:`Rating` ``()``); ``games`` are ``(a, b, score of a)``.  Each game counts for
    both sides against the other's rating at the start of the period, as the paper prescribes;
    a player with no game in the period gets the no-games update (their RD grows).
    """
    start = dict(ratings)
    played: dict[Hashable, list[Game]] = {player: [] for player in start}
    for a, b, score in games:
        if a == b:
            raise ValueError("a player cannot play themselves")
        for player in (a, b):
            start.setdefault(player, Rating())
            played.setdefault(player, [])
        played[a].append(Game(opponent=start[b], score=score))
        played[b].append(Game(opponent=start[a], score=1 - score))
    return {player: rate(start[player], played[player], tau=tau) for player in start}


def expected_score(player: Rating, opponent: Rating) -> float:
    """The expected score of ``player`` against ``opponent`` (a win 1, a draw 1/2), counting the
    uncertainty of both ratings: ``E = 1 / (1 + exp(-g(sqrt(phi^2 + phi_j^2)) (mu - mu_j)))``
    (Glickman's prediction formula for a game between two rated players, on the Glicko-2 scale)."""
    combined = math.sqrt(player.phi**2 + opponent.phi**2)
    return 1 / (1 + math.exp(-_g(combined) * (player.mu - opponent.mu)))


def win_probabilities(first: Rating, second: Rating) -> tuple[float, float]:
    """Each side's predicted chance in a two-sided match: their expected scores, which add up
    to 1 (a draw is counted as half a win to each side; Glicko-2 does not model draws apart)."""
    p = expected_score(first, second)
    return p, 1 - p
