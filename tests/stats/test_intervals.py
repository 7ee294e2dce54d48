"""The Wilson score interval against published values, and the rate chart."""

from __future__ import annotations

import pytest

from stats.charts import rate_chart
from stats.intervals import THIN, Rate, wilson


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", table I:
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # 2 of 5 (the small league's first player): the textbook (0.1176, 0.7693).
        (2, 5, 0.1176, 0.7693),
    ],
)
def test_wilson_reproduces_published_intervals(successes, n, low, high):
    got = wilson(successes, n)
    assert got == pytest.approx((low, high), abs=0.0001)


def test_wilson_refuses_nonsense():
    with pytest.raises(ValueError):
        wilson(0, 0)
    with pytest.raises(ValueError):
        wilson(6, 5)


def test_rate():
    rate = Rate(wins=2, draws=1, losses=2)
    assert (rate.n, rate.rate, rate.thin) == (5, 0.4, True)
    assert (rate.low, rate.high) == pytest.approx((0.1176, 0.7693), abs=0.0001)
    assert Rate(THIN, 0, 0).thin is False
    assert Rate(0, 0, 0).rate is None and Rate(0, 0, 0).interval is None
    assert Rate(1, 2, 3) + Rate(1, 0, 0) == Rate(2, 2, 3)


def test_rate_chart_greys_thin_rows_and_escapes_labels():
    svg = rate_chart([("<Tora>", Rate(2, 1, 2)), ("Ika", Rate(30, 0, 10)), ("Empty", Rate(0, 0, 0))], title="T & T")
    assert svg.startswith("<svg") and "&lt;Tora&gt;" in svg and "<Tora>" not in svg and "T &amp; T" in svg
    assert svg.count("#9a9a9a") == 1 and svg.count('fill="#0072B2"') == 1  # one thin bar, one full
    assert "Empty" not in svg and "n=40" in svg and "75% of 40" in svg
    assert rate_chart([("Empty", Rate(0, 0, 0))], title="x") == ""
