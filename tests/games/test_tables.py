"""Tables for multi-player games (games/tables.py): sizes, byes, repeat meetings against a
lower bound (and against the true optimum where it can be found by exhaustive search)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.tables import (
    TableRound,
    meeting_counts,
    repeat_lower_bound,
    repeat_meetings,
    swiss_tables,
    table_round,
    table_schedule,
    table_sizes,
)

# ---------------------------------------------------------------------------------------------
# Sizes
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "sizes"),
    [
        (0, ()),
        (1, ()),
        (2, ()),
        (3, (3,)),
        (4, (4,)),
        (5, (5,)),
        (6, (3, 3)),
        (7, (4, 3)),
        (8, (4, 4)),
        (9, (5, 4)),
        (10, (4, 3, 3)),
        (11, (4, 4, 3)),
        (13, (5, 4, 4)),
        (64, (4,) * 16),
    ],
)
def test_table_sizes_examples(n, sizes):
    assert table_sizes(n) == sizes


@given(n=st.integers(min_value=0, max_value=300))
def test_table_sizes_seat_everyone_from_three_with_balanced_tables(n):
    sizes = table_sizes(n)
    if n < 3:
        assert sizes == ()
    else:
        assert sum(sizes) == n
        assert all(3 <= s <= 5 for s in sizes)
        assert max(sizes) - min(sizes) <= 1
        assert list(sizes) == sorted(sizes, reverse=True)


def test_other_size_ranges_leave_byes_only_when_they_must():
    assert table_sizes(6, min_size=4, max_size=4, preferred=4) == (4,)  # two byes
    assert table_sizes(9, min_size=4, max_size=4, preferred=4) == (4, 4)  # one bye
    assert table_sizes(7, min_size=2, max_size=2, preferred=2) == (2, 2, 2)
    with pytest.raises(ValueError):
        table_sizes(5, min_size=4, max_size=3)
    with pytest.raises(ValueError):
        table_sizes(5, preferred=6)
    with pytest.raises(ValueError):
        table_sizes(-1)


# ---------------------------------------------------------------------------------------------
# Lower bound
# ---------------------------------------------------------------------------------------------


def test_lower_bound_by_pair_counting():
    # 8 players, 7 rounds of two tables of 4: 7 * 12 = 84 meetings, 28 pairs: 56 repeats at least.
    assert repeat_lower_bound(8, [(4, 4)] * 7) == 56
    # 64 players, 10 rounds of sixteen 4s: 960 meetings among 2,016 pairs: no repeat forced.
    assert repeat_lower_bound(64, [(4,) * 16] * 10) == 0


def test_lower_bound_by_pigeonhole_on_two_rounds():
    # 8 players in two 4s twice: a new table of 4 draws from two old tables, so at least
    # two of its players sat together: 2 pairs a table, 4 in all (pair counting says 0).
    assert repeat_lower_bound(8, [(4, 4), (4, 4)]) == 4
    # 6 players in two 3s: each new table of 3 has two from one old table.
    assert repeat_lower_bound(6, [(3, 3), (3, 3)]) == 2
    # One round alone forces nothing.
    assert repeat_lower_bound(8, [(4, 4)]) == 0


# ---------------------------------------------------------------------------------------------
# A round and a planned season: structure
# ---------------------------------------------------------------------------------------------


def check_round(rnd: TableRound, players, earlier_tables, min_size=3, max_size=5, preferred=4):
    seated = [p for t in rnd.tables for p in t.players]
    assert len(seated) == len(set(seated))
    assert sorted(seated + list(rnd.byes), key=str) == sorted(players, key=str)  # everyone, once
    sizes = table_sizes(len(players), min_size=min_size, max_size=max_size, preferred=preferred)
    assert rnd.sizes == sizes
    assert len(rnd.byes) == len(players) - sum(sizes)  # a bye only when the sizes cannot seat
    if len(players) >= min_size and min_size == 3 and max_size == 5:
        assert rnd.byes == ()
    counts = meeting_counts(earlier_tables)
    for table in rnd.tables:
        assert min_size <= len(table.players) <= max_size
        expected = {frozenset(p) for p in itertools.combinations(table.players, 2) if counts[frozenset(p)]}
        assert set(table.repeat_pairs) == expected


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(min_value=0, max_value=64),
    rounds=st.integers(min_value=1, max_value=10),
    seed=st.integers(min_value=0, max_value=2**32),
    sizes=st.sampled_from([(3, 5, 4), (3, 5, 3), (4, 4, 4), (2, 3, 2)]),
)
def test_every_player_plays_every_round_or_has_a_recorded_bye(n, rounds, seed, sizes):
    min_size, max_size, preferred = sizes
    players = [f"p{i}" for i in range(n)]
    schedule = table_schedule(
        players,
        rounds,
        rng=random.Random(seed),
        min_size=min_size,
        max_size=max_size,
        preferred=preferred,
        iterations=100,
    )
    earlier: list = []
    for number, rnd in enumerate(schedule.rounds, start=1):
        assert rnd.number == number
        check_round(rnd, players, earlier, min_size, max_size, preferred)
        earlier.extend(t.players for t in rnd.tables)
    # Repeats are reported consistently, and never below the lower bound.
    assert schedule.repeats == repeat_meetings(schedule.rounds) == sum(r.repeats for r in schedule.rounds)
    assert schedule.lower_bound == repeat_lower_bound(n, [r.sizes for r in schedule.rounds])
    assert schedule.repeats >= schedule.lower_bound
    # Byes are spread: nobody has two more than anyone else.
    byes = Counter(p for r in schedule.rounds for p in r.byes)
    if byes:
        assert max(byes[p] for p in players) - min(byes[p] for p in players) <= 1


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(min_value=3, max_value=40),
    rounds=st.integers(min_value=2, max_value=8),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_seeded_and_reproducible_and_the_search_never_makes_it_worse(n, rounds, seed):
    players = list(range(n))
    first = table_schedule(players, rounds, rng=random.Random(seed), iterations=150)
    assert first == table_schedule(players, rounds, rng=random.Random(seed), iterations=150)
    greedy = table_schedule(players, rounds, rng=random.Random(seed), iterations=0)
    assert first.repeats <= greedy.repeats


def test_a_round_avoids_every_repeat_it_can():
    # 16 players who sat in four 4s: the next round can mix them completely.
    history = [(0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11), (12, 13, 14, 15)]
    rnd = table_round(list(range(16)), history=history, rng=random.Random(3))
    assert rnd.repeats == 0
    assert all(len({p // 4 for p in t.players}) == 4 for t in rnd.tables)
    # 12 in three 4s cannot: a new table of 4 draws two from one old table (pigeonhole), so
    # one repeat a table is the least, and the round finds it.
    rnd = table_round(list(range(12)), history=history[:3], rng=random.Random(3))
    assert rnd.repeats == 3 == repeat_lower_bound(12, [(4, 4, 4), (4, 4, 4)])


def test_byes_go_to_those_with_fewest():
    rnd = table_round(["a", "b"], rng=random.Random(1))
    assert (rnd.tables, set(rnd.byes)) == ((), {"a", "b"})
    rnd = table_round(list("abcdef"), rng=random.Random(1), byes={"a": 1, "b": 1}, min_size=4, max_size=4)
    assert set(rnd.byes) <= set("cdef") and len(rnd.byes) == 2
    with pytest.raises(ValueError):
        table_round(["a", "a", "b"], rng=random.Random(1))


# ---------------------------------------------------------------------------------------------
# Quality: the true optimum by exhaustive search on small cases, the bound on larger ones
# ---------------------------------------------------------------------------------------------


def all_seatings(n, sizes):
    """Every way to split players 0..n-1 into tables of the given sizes (as sets of tables)."""

    def fill(players, order):
        if not order:
            yield []
            return
        first, size = players[0], order[0]
        for rest in itertools.combinations(players[1:], size - 1):
            table = (first, *rest)
            left = [p for p in players if p not in table]
            for tail in fill(left, order[1:]):
                yield [table, *tail]

    seen = {}
    for order in sorted(set(itertools.permutations(sizes))):
        for seating in fill(list(range(n)), list(order)):
            seen.setdefault(frozenset(frozenset(t) for t in seating), seating)
    return list(seen.values())


def optimum(n, rounds):
    """The fewest repeat meetings of any schedule (round 1 fixed: players are interchangeable)."""
    seatings = all_seatings(n, table_sizes(n))
    best = None
    for rest in itertools.product(seatings, repeat=rounds - 1):
        counts = meeting_counts(t for seating in (seatings[0], *rest) for t in seating)
        repeats = sum(m - 1 for m in counts.values())
        best = repeats if best is None else min(best, repeats)
    return best


@pytest.mark.parametrize(
    ("n", "rounds"), [(3, 2), (4, 3), (5, 2), (6, 2), (6, 3), (7, 2), (7, 3), (8, 2), (8, 3), (9, 2)]
)
def test_small_schedules_are_optimal(n, rounds):
    best = optimum(n, rounds)
    for seed in (0, 1):
        schedule = table_schedule(list(range(n)), rounds, rng=random.Random(seed))
        assert schedule.lower_bound <= best
        assert schedule.repeats == best


@pytest.mark.parametrize(("n", "rounds"), [(12, 5), (16, 5), (64, 10)])
def test_larger_schedules_meet_the_bound(n, rounds):
    # 12 in three 4s x5: 24 forced by pigeonhole (8 a round-pair); 16 in four 4s x5: an affine
    # plane exists, no repeat needed; 64 x 10: no repeat needed.
    schedule = table_schedule(list(range(n)), rounds, rng=random.Random(2024))
    assert schedule.repeats == schedule.lower_bound


# ---------------------------------------------------------------------------------------------
# Multi-player Swiss
# ---------------------------------------------------------------------------------------------


def test_swiss_tables_without_history_cut_the_standings_into_blocks():
    rnd = swiss_tables(list(range(1, 12)))
    assert [t.players for t in rnd.tables] == [(1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11)]
    assert rnd.byes == () and rnd.repeats == 0


def test_swiss_tables_skip_a_player_already_met():
    # 2 has met 1: the top table takes 1, 3, 4, 5 and 2 goes down to the next table.
    rnd = swiss_tables(list(range(1, 9)), history=[(1, 2)])
    assert [t.players for t in rnd.tables] == [(1, 3, 4, 5), (2, 6, 7, 8)]
    assert rnd.repeats == 0


def test_swiss_tables_take_the_fewest_repeats_when_forced():
    # Four players who all met: one table of 4, every pair a repeat, reported.
    rnd = swiss_tables([1, 2, 3, 4], history=[(1, 2, 3, 4)])
    assert rnd.tables[0].players == (1, 2, 3, 4)
    assert rnd.repeats == comb(4, 2)


def test_swiss_byes_go_to_the_lowest_ranked_with_fewest_byes():
    rnd = swiss_tables(["a", "b", "c", "d", "e", "f"], byes={"f": 1}, min_size=4, max_size=4)
    assert set(rnd.byes) == {"d", "e"}
    assert rnd.tables[0].players == ("a", "b", "c", "f")


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(min_value=0, max_value=64),
    seed=st.integers(min_value=0, max_value=2**32),
    density=st.floats(min_value=0, max_value=0.5),
)
def test_swiss_tables_seat_everyone_with_repeats_reported(n, seed, density):
    rng = random.Random(seed)
    players = list(range(n))
    history = [pair for pair in itertools.combinations(players, 2) if rng.random() < density]
    rnd = swiss_tables(players, history=history)
    check_round(rnd, players, history)
    # The leader always sits at the top table.
    if rnd.tables:
        assert rnd.tables[0].players[0] == 0


def test_the_lower_bound_counts_the_players_who_sat_out():
    """Five players, one table of four a round: the round-2 table may take the round-1 bye, so
    three pairs must meet again (not six, as when every player was assumed seated in round 1)."""
    assert repeat_lower_bound(5, [(4,), (4,)]) == 3
    schedule = table_schedule(
        [f"p{i}" for i in range(5)], 2, rng=random.Random(0), min_size=4, max_size=4, preferred=4, iterations=100
    )
    assert schedule.repeats == schedule.lower_bound == 3
