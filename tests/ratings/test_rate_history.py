"""Rating a match history period by period (ratings/history.py): pure, no database."""

from __future__ import annotations

import pytest

from ratings import glicko2
from ratings.history import Period, Result, placements, rate_history


def duel(match_id, a, b, outcome):
    return Result(match_id, (a, b), {"a": (1, 2), "b": (2, 1), "draw": (1, 1)}[outcome])


def test_a_team_that_always_wins_a_table_rises_above_all_others():
    # Twelve tables of three or four; "ace" always finishes first, the others in turn.
    others = ["b", "c", "d"]
    periods = []
    for i in range(12):
        seated = others if i % 2 else others[:2]
        order = seated[i % len(seated) :] + seated[: i % len(seated)]
        periods.append(Period(i, (Result(i, ("ace", *order), tuple(range(1, len(order) + 2))),)))
    history = rate_history(periods)
    ace = history.tables["ace"]
    assert all(ace.mu > history.tables[o].mu and ace.ordinal > history.tables[o].ordinal for o in others)
    # ...and the model ends up predicting it: its chance of finishing first is the highest.
    last = history.predictions[11]
    assert last[0] == max(last) and last[0] > 0.4
    assert history.table_games == {"ace": 12, "b": 12, "c": 12, "d": 6}
    assert history.glicko == {}  # tables never touch the two-sided ratings


def test_two_sided_periods_follow_glicko2_and_predict_from_the_start_of_the_period():
    periods = [
        Period(1, (duel(1, "a", "b", "a"), duel(2, "c", "d", "draw"))),
        Period(2, (duel(3, "a", "c", "a"),), idle=frozenset({"b", "d", "newcomer"})),
    ]
    history = rate_history(periods)
    assert history.predictions[1] == (0.5, 0.5)  # two unrated teams
    after_1 = glicko2.rate_period({}, [("a", "b", 1.0), ("c", "d", 0.5)])
    expected = glicko2.rate_period(
        {k: after_1[k] for k in "abcd"}, [("a", "c", 1.0)]
    )  # b and d sat out: their RD grows
    assert history.glicko == expected
    assert history.glicko["b"].rd > after_1["b"].rd and history.glicko["b"].rating == after_1["b"].rating
    assert "newcomer" not in history.glicko
    assert history.predictions[3] == glicko2.win_probabilities(after_1["a"], after_1["c"])
    assert history.games == {"a": 2, "b": 1, "c": 2, "d": 1}
    assert history.last_match == {"a": 3, "b": 1, "c": 3, "d": 2}


def test_order_inside_a_period_changes_nothing():
    results = (duel(1, "a", "b", "a"), duel(2, "c", "d", "b"), duel(3, "a", "d", "draw"))
    once = rate_history([Period(1, results)])
    again = rate_history([Period(1, tuple(reversed(results)))])
    assert once.glicko == again.glicko


@pytest.mark.parametrize(
    ("points", "outcomes", "expected"),
    [
        ((3, 0), ("win", "loss"), (1, 2)),
        ((0, 3), ("loss", "win"), (2, 1)),
        ((2, 2), ("draw", "draw"), (1, 1)),
        ((5, 3, 3, 1), ("win", "loss", "loss", "loss"), (1, 2, 2, 4)),
        ((1, 4, 2), ("loss", "win", "loss"), (3, 1, 2)),
    ],
)
def test_placements(points, outcomes, expected):
    assert placements(points, outcomes) == expected


def test_a_result_cannot_meet_itself():
    with pytest.raises(ValueError):
        Result(1, ("a", "a"), (1, 2))
