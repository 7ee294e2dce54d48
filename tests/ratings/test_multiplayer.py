"""Multi-player table ratings (ratings/multiplayer.py, openskill's Plackett-Luce)."""

from __future__ import annotations

import random

import pytest

from ratings.multiplayer import TableRating, rate_table, table_win_probabilities


def play_season(seed: int, tables: int = 40) -> dict[str, TableRating]:
    rng = random.Random(seed)
    players = ["ace", "b", "c", "d", "e", "f", "g"]
    ratings = {p: TableRating() for p in players}
    for _ in range(tables):
        size = rng.randint(3, 5)
        seats = ["ace", *rng.sample(players[1:], size - 1)]
        rng.shuffle(seats)
        others = [p for p in seats if p != "ace"]
        rng.shuffle(others)
        order = ["ace", *others]  # ace always wins; the rest finish in random order
        placements = [order.index(p) + 1 for p in seats]
        after = rate_table([ratings[p] for p in seats], placements=placements)
        ratings.update(zip(seats, after))
    return ratings


def test_a_player_who_always_wins_rises_above_all_others():
    ratings = play_season(7)
    ace = ratings["ace"]
    assert all(ace.mu > r.mu and ace.ordinal > r.ordinal for p, r in ratings.items() if p != "ace")
    assert ace.mu > 25 + 2 * 25 / 3  # well above a new player, not just a little
    table = [ratings["ace"], ratings["b"], ratings["c"], ratings["d"]]
    chances = table_win_probabilities(table)
    assert chances[0] == max(chances)
    assert chances[0] > 0.4  # an even table of four would give 0.25


def test_deterministic():
    assert play_season(11) == play_season(11)


def test_one_table_orders_by_placement_and_shares_ties():
    after = rate_table([TableRating()] * 4, placements=(1, 2, 2, 4))
    assert after[0].mu > after[1].mu == after[2].mu > after[3].mu
    assert all(r.sigma < 25 / 3 for r in after)


def test_probabilities_add_up_and_follow_skill():
    chances = table_win_probabilities([TableRating(30, 2), TableRating(25, 2), TableRating(20, 2)])
    assert sum(chances) == pytest.approx(1)
    assert chances[0] > chances[1] > chances[2]
    assert table_win_probabilities([TableRating()] * 3) == pytest.approx((1 / 3,) * 3)


@pytest.mark.parametrize(
    ("ratings", "placements"),
    [
        ([TableRating()], (1,)),
        ([TableRating()] * 6, (1, 2, 3, 4, 5, 6)),
        ([TableRating()] * 3, (1, 2)),
        ([TableRating()] * 3, (1, 2, 4)),
    ],
)
def test_bad_tables(ratings, placements):
    with pytest.raises(ValueError):
        rate_table(ratings, placements=placements)
