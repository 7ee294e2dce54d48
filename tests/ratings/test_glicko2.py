"""Glicko-2 (ratings/glicko2.py) against the worked example of Glickman's "Example of the
Glicko-2 system": a player rated 1500, RD 200, volatility 0.06, tau 0.5, plays three games
in a rating period -- beats 1400 (RD 30), loses to 1550 (RD 100) and to 1700 (RD 300)."""

from __future__ import annotations

import math

import pytest

from ratings import glicko2
from ratings.glicko2 import Game, Rating, expected_score, rate, rate_period, win_probabilities

PLAYER = Rating(rating=1500, rd=200, volatility=0.06)
OPPONENTS = [Rating(rating=1400, rd=30), Rating(rating=1550, rd=100), Rating(rating=1700, rd=300)]
SCORES = [1, 0, 0]


def test_the_papers_step_2_to_4_figures():
    # Step 2: the Glicko-2 scale.
    assert (round(PLAYER.mu, 4), round(PLAYER.phi, 4)) == (0, 1.1513)
    assert [(round(o.mu, 4), round(o.phi, 4)) for o in OPPONENTS] == [
        (-0.5756, 0.1727),
        (0.2878, 0.5756),
        (1.1513, 1.7269),
    ]
    # Step 3: g(phi_j) and E(mu, mu_j, phi_j) as the paper's table prints them, and v.
    assert [round(glicko2._g(o.phi), 4) for o in OPPONENTS] == [0.9955, 0.9531, 0.7242]
    expectations = [glicko2._e(PLAYER.mu, o.mu, o.phi) for o in OPPONENTS]
    assert [round(e, 3) for e in expectations] == [0.639, 0.432, 0.303]
    v = 1 / sum(glicko2._g(o.phi) ** 2 * e * (1 - e) for o, e in zip(OPPONENTS, expectations))
    delta = v * sum(glicko2._g(o.phi) * (s - e) for o, s, e in zip(OPPONENTS, SCORES, expectations))
    # The paper computes v and Delta from its rounded g and E (v = 1.7785, Delta = -0.4834); the
    # same formulas on those rounded figures give its numbers, and unrounded differ by < 0.001.
    g = [0.9955, 0.9531, 0.7242]
    e = [0.639, 0.432, 0.303]
    paper_v = 1 / sum(gj**2 * ej * (1 - ej) for gj, ej in zip(g, e))
    assert round(paper_v, 4) == 1.7785
    assert round(paper_v * sum(gj * (s - ej) for gj, s, ej in zip(g, SCORES, e)), 4) == -0.4834
    assert v == pytest.approx(1.7785, abs=0.001)
    assert delta == pytest.approx(-0.4834, abs=0.001)


def test_the_papers_worked_example():
    after = rate(PLAYER, [Game(opponent=o, score=s) for o, s in zip(OPPONENTS, SCORES)], tau=0.5)
    # Steps 5-7 on the Glicko-2 scale, to the paper's four decimals.
    assert round(after.mu, 4) == -0.2069
    assert round(after.phi, 4) == 0.8722
    # sigma' = 0.059996...: the paper prints 0.05999 (five decimals, cut rather than rounded).
    assert math.floor(after.volatility * 1e5) / 1e5 == 0.05999
    # Step 8: RD' = 151.52; r' = 1464.06 is the paper's 173.7178 * (-0.2069) + 1500, from mu'
    # rounded to four decimals (unrounded, r' = 1464.0507).
    assert round(after.rd, 2) == 151.52
    assert round(glicko2.SCALE * round(after.mu, 4) + 1500, 2) == 1464.06
    assert after.rating == pytest.approx(1464.06, abs=0.01)


def test_no_games_only_the_rd_grows():
    after = rate(PLAYER, [])
    # Step 6 alone: phi' = sqrt(phi^2 + sigma^2).
    assert after.rd == pytest.approx(glicko2.SCALE * math.sqrt(PLAYER.phi**2 + 0.06**2))
    assert after.rd > PLAYER.rd
    assert (after.rating, after.volatility) == (PLAYER.rating, PLAYER.volatility)
    longer = PLAYER
    for _ in range(10):
        longer = rate(longer, [])
    assert longer.rd > after.rd


def test_a_period_rates_everyone_against_start_of_period_ratings():
    start = {"a": PLAYER, "b": OPPONENTS[0], "c": OPPONENTS[1], "d": OPPONENTS[2], "idle": Rating()}
    games = [("a", "b", 1), ("c", "a", 1), ("a", "d", 0)]
    after = rate_period(start, games, tau=0.5)
    assert after["a"] == rate(PLAYER, [Game(o, s) for o, s in zip(OPPONENTS, SCORES)], tau=0.5)
    assert after["b"] == rate(OPPONENTS[0], [Game(PLAYER, 0)])
    assert after["c"] == rate(OPPONENTS[1], [Game(PLAYER, 1)])
    assert after["idle"] == rate(Rating(), [])
    assert set(rate_period({}, [("new1", "new2", 0.5)])) == {"new1", "new2"}
    with pytest.raises(ValueError):
        rate_period(start, [("a", "a", 1)])


def test_predictions_favour_the_stronger_and_add_up():
    strong, weak = Rating(1700, 50), Rating(1500, 50)
    p, q = win_probabilities(strong, weak)
    assert p + q == pytest.approx(1)
    assert p > 0.7
    assert expected_score(weak, strong) == pytest.approx(q)
    assert win_probabilities(weak, weak) == (0.5, 0.5)
    # More uncertainty pulls the prediction towards a coin flip.
    assert win_probabilities(Rating(1700, 300), Rating(1500, 300))[0] < p


def test_draws_and_bad_input():
    drawn = rate(Rating(), [Game(Rating(), 0.5)])
    assert drawn.rating == pytest.approx(1500)
    assert drawn.rd < 350
    with pytest.raises(ValueError):
        Game(Rating(), 2)
    with pytest.raises(ValueError):
        Rating(rd=0)
    with pytest.raises(ValueError):
        Rating(rating=float("nan"))
    with pytest.raises(ValueError):
        rate(Rating(), [], tau=0)
