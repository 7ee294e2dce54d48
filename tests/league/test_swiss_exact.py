"""Swiss pairing is exact: the fast score-group pairing (league.scheduling.swiss_round) finds a
matching of the same total weight as a maximum weight matching on the complete graph, under the
same weight function.

The oracle is the Swiss weight function and complete-graph matching as league/scheduling.py had
them before the score-group decomposition (networkx's blossom on every pair of teams, no pruning),
kept frozen in benchmarks/swiss_baseline.py so a change to the production cost cannot hide.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import swiss_baseline
from league import scheduling
from league.scheduling import SwissEntry, swiss_round
from tests.league.helpers import SwissEvent


def oracle(table, history, bye):
    """(best total weight on the complete graph, weight function), as the original code had them."""
    setup = scheduling.swiss_setup(table, history=history, bye=bye)
    cost, top = swiss_baseline.frozen_cost(setup)

    def weight(a, b):
        return top - cost(a, b)

    matching = swiss_baseline.complete_matching(setup)
    assert len(matching) == len(setup.players) // 2
    return sum(weight(a, b) for a, b in matching), weight


def assert_exact(table, history, byes_had):
    rnd = swiss_round(table, history=history, byes_had=byes_had)
    best, weight = oracle(table, history, rnd.bye)
    ids = [e.team_id for e in table]
    seen = [t for p in rnd.pairings for t in (p.home, p.away)] + ([rnd.bye] if rnd.bye is not None else [])
    assert sorted(seen, key=str) == sorted(ids, key=str)
    assert sum(weight(p.home, p.away) for p in rnd.pairings) == best
    return rnd


def event(teams, seed):
    return SwissEvent(teams, seed, win=3, draw_below=0.15, home_below=0.55)


@pytest.mark.slow(
    reason="hypothesis pairs simulated Swiss events of up to 256 teams against the complete graph's optimum"
)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(min_value=100, max_value=256),
    rounds=st.integers(min_value=1, max_value=7),
    seed=st.integers(min_value=0, max_value=2**32),
    draws=st.booleans(),
)
def test_large_simulated_event_matches_complete_graph(n, rounds, seed, draws):
    """Up to 256 teams: the round paired after `rounds - 1` simulated rounds has the complete
    graph's optimal weight (every round is checked by the smaller test below)."""
    ev = event(range(n), seed)
    for _ in range(rounds - 1):
        ev.play(swiss_round(ev.table(), history=ev.history, byes_had=ev.byes_had), draws=draws)
    assert_exact(ev.table(), ev.history, ev.byes_had)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=60),
    rounds=st.integers(min_value=1, max_value=9),
    seed=st.integers(min_value=0, max_value=2**32),
    draws=st.booleans(),
)
def test_every_round_of_simulated_events_matches_complete_graph(n, rounds, seed, draws):
    ev = event([f"t{i}" for i in range(n)], seed)
    for _ in range(rounds):
        ev.play(assert_exact(ev.table(), ev.history, ev.byes_had), draws=draws)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=40),
    density=st.floats(min_value=0.0, max_value=0.95),
    spread=st.integers(min_value=1, max_value=8),
    scrambled=st.booleans(),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_arbitrary_histories_and_scores_match_complete_graph(n, density, spread, scrambled, seed):
    """Dense histories force rematches, merged blocks and the general path; `scrambled` gives
    ranks that are not in score order (also the general path)."""
    rng = random.Random(seed)
    teams = list(range(n))
    scores = {t: rng.randrange(spread) for t in teams}
    if scrambled:
        order = rng.sample(teams, n)
    else:
        order = sorted(teams, key=lambda t: (-scores[t], rng.random()))
    table = [SwissEntry(team_id=t, score=scores[t], rank=i + 1) for i, t in enumerate(order)]
    history = {frozenset(c) for c in combinations(teams, 2) if rng.random() < density}
    byes_had = {t for t in teams if rng.random() < 0.3}
    assert_exact(table, history, byes_had)


def test_floaters_who_met_merge_their_blocks(monkeypatch):
    """Groups {1,2,3} and {4,5,6}: the canonical floaters 3 and 4 have met, so the two groups
    are solved together and the float moves to a fresh pair, still one game across."""
    calls = []
    real = scheduling._solve_block

    def spy(groups, crossings, up, down, played):
        calls.append([list(g) for g in groups])
        return real(groups, crossings, up, down, played)

    monkeypatch.setattr(scheduling, "_solve_block", spy)
    table = [SwissEntry(team_id=t, score=2 if t <= 3 else 1, rank=t) for t in range(1, 7)]
    rnd = assert_exact(table, {frozenset((3, 4))}, set())
    assert calls == [[[1, 2, 3]], [[4, 5, 6]], [[1, 2, 3], [4, 5, 6]]]
    assert rnd.rematches == 0
    assert sum(p.home_group != p.away_group for p in rnd.pairings) == 1


def test_general_path_when_the_blocks_cannot_pair(monkeypatch):
    """Everyone in the top group has met: the score-group pairing gives up (it never takes a
    rematch) and the general matching decides, still at the complete graph's optimum."""
    general = []
    real = scheduling._swiss_general

    def spy(*args):
        general.append(args)
        return real(*args)

    monkeypatch.setattr(scheduling, "_swiss_general", spy)
    table = [SwissEntry(team_id=t, score=1 if t <= 4 else 0, rank=t) for t in range(1, 9)]
    history = {frozenset(c) for c in combinations([1, 2, 3, 4], 2)}
    rnd = assert_exact(table, history, set())
    assert len(general) == 1
    assert rnd.rematches == 0


@pytest.mark.parametrize("size", [2, 3, 4, 5, 8, 9])
def test_canonical_pairing_needs_no_matching(size, monkeypatch):
    """A group with no history pairs 1 v g/2+1, ... at cost zero, with no blossom run at all."""

    def fail(*args):
        raise AssertionError("the zero-cost pairing needs no matching")

    monkeypatch.setattr(scheduling, "_max_weight_matching", fail)
    table = [SwissEntry(team_id=t, score=0, rank=t) for t in range(1, size + 1)]
    rnd = swiss_round(table, history=set(), byes_had=set())
    players = [t for t in range(1, size + 1) if t != rnd.bye]
    half = len(players) // 2
    assert [(p.home, p.away) for p in rnd.pairings] == [(players[i], players[i + half]) for i in range(half)]


def test_large_weights_use_the_unbounded_matching():
    """Weights past rustworkx's 128-bit integers go to networkx; both give the same matching."""
    edges = [(0, 1, 2**130 + 5), (1, 2, 2**130 + 7), (2, 3, 2**130 + 5), (0, 3, 2**130 + 1)]
    small = [(a, b, w - 2**130) for a, b, w in edges]
    big = scheduling._max_weight_matching(4, edges)
    assert {frozenset(m) for m in big} == {frozenset(m) for m in scheduling._max_weight_matching(4, small)}
    assert {frozenset(m) for m in big} == {frozenset((0, 1)), frozenset((2, 3))}


def all_matchings(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for k, other in enumerate(rest):
        for tail in all_matchings(rest[:k] + rest[k + 1 :]):
            yield [(first, other), *tail]


@pytest.mark.parametrize("size", [2, 4, 6, 8, 10])
def test_lower_bound_for_a_group_floating_both_ways(size):
    """The bound that lets a group sending a floater up and one down stop early (h - 1, for a
    group of 2h) is the true minimum, found here over every choice of floaters and games."""
    half = size // 2
    best = min(
        u + (size - 1 - v) + sum(abs(abs(a - b) - half) for a, b in games)
        for u in range(size)
        for v in range(size)
        if u != v
        for games in all_matchings([p for p in range(size) if p not in (u, v)])
    )
    assert best == half - 1
    solution = scheduling._solve_block([list(range(size))], [], True, True, set())
    cost = solution.up + (size - 1 - solution.down) + sum(abs(abs(a - b) - half) for a, b in solution.games)
    assert cost == best
