"""Kage Masters tables as a league records them (issue 17, part 3): validation, placements and
league points, statistics and the strength model, worked by hand (KM l.N)."""

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.kage_masters.engine import (
    KAGE_MASTERS,
    PointsScheme,
    Seat,
    league_points,
    placements,
    season_stats,
    simulate_table,
    validate,
)


def table(*treasures, seats=True) -> tuple[Seat, ...]:
    return tuple(
        Seat(player=f"p{i}", kage_master=KAGE_MASTERS[i], coins=t, seat=i + 1 if seats else None)
        for i, t in enumerate(treasures)
    )


def test_treasure_is_coins_and_location_rewards():
    assert Seat("p", "Spy", coins=7, location_rewards=4).treasure == 11


def test_placements_share_a_place_on_equal_treasure():
    assert placements(table(10, 7, 7, 3)) == (1, 2, 2, 4)
    assert placements(table(5, 5)) == (1, 1)
    assert placements(table(2, 9, 4, 9, 0)) == (4, 1, 3, 1, 5)


def test_league_points_by_scheme():
    seats = table(10, 7, 7, 3)
    assert league_points(seats) == (3, 1, 1, 0)  # one point for each opponent beaten
    assert league_points(seats, PointsScheme.WINNER_ONLY) == (1, 0, 0, 0)
    assert league_points(seats, PointsScheme.FIXED, fixed=(5, 3, 1, 0)) == (5, 3, 3, 0)
    with pytest.raises(ValueError):
        league_points(table(1, 2, 3), PointsScheme.FIXED, fixed=(1, 0))


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        (table(4), "2 to 5 players"),
        ((*table(1, 2, 3, 4, 5), Seat("p9", "Spy", 1)), "2 to 5 players"),
        ((Seat("a", "Spy", 1), Seat("a", "Firebrand", 2)), "sits at a table once"),
        ((Seat("a", "Spy", 1), Seat("b", "Spy", 2)), "different Kage Master"),
        ((Seat("a", "Ninja Cat", 1), Seat("b", "Spy", 2)), "Unknown Kage Master: Ninja Cat"),
        ((Seat("a", "Spy", -1), Seat("b", "Assassin", 2)), "cannot be negative"),
        ((Seat("a", "Spy", 1, seat=1), Seat("b", "Assassin", 2, seat=1)), "numbered 1 to 2"),
    ],
)
def test_what_is_wrong_is_said(seats, message):
    assert any(message in e for e in validate(seats)), validate(seats)


def test_a_good_table_is_valid_with_or_without_seats():
    assert validate(table(3, 8, 12)) == [] and validate(table(3, 8, 12, seats=False)) == []


def test_season_statistics_worked_by_hand():
    tables = [table(10, 7, 3), table(4, 9, 9), table(6, 2, seats=False)]
    stats = season_stats(tables)
    # Assassin (seat 1 each time) wins tables 1 and 3; Chain Specialist (3 tables) shares the 2nd table's
    # first place with Firebrand.
    assert stats.win_rate("Assassin") == Fraction(2, 3)
    assert stats.win_rate("Chain Specialist") == Fraction(1, 3)
    assert stats.win_rate("Firebrand") == Fraction(1, 2)
    assert stats.win_rate("Spy") is None
    assert stats.treasure_by_seat[(3, 1)] == Fraction(14, 2) and stats.treasure_by_seat[(3, 3)] == 6
    assert (2, 1) not in stats.treasure_by_seat and stats.tables_by_seat[(3, 2)] == 2


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    strengths=st.lists(st.floats(0.01, 100), min_size=2, max_size=5),
)
def test_a_simulated_table_is_a_valid_result_and_reproducible(seed, strengths):
    n = len(strengths)
    players = [f"p{i}" for i in range(n)]

    def play():
        return simulate_table(players, KAGE_MASTERS[:n], strengths=strengths, rng=random.Random(seed))

    seats = play()
    assert validate(seats) == [] and seats == play()
    assert [s.player for s in seats] == players and [s.seat for s in seats] == list(range(1, n + 1))
    assert all(s.coins >= 0 and s.location_rewards >= 0 for s in seats)


def test_the_stronger_player_finishes_first_as_often_as_plackett_luce_says():
    """Strengths 8 : 1 : 1 give the first player the first place with 8/10 (ties of treasure can
    share it, so a little more)."""
    rng = random.Random(3)
    wins = sum(
        placements(simulate_table(["a", "b", "c"], KAGE_MASTERS[:3], strengths=[8, 1, 1], rng=rng))[0] == 1
        for _ in range(3000)
    )
    assert 0.77 < wins / 3000 < 0.88
    with pytest.raises(ValueError):
        simulate_table(["a"], ["Spy"], strengths=[1], rng=rng)
    with pytest.raises(ValueError):
        simulate_table(["a", "b"], ["Spy", "Assassin"], strengths=[1, 0], rng=rng)
