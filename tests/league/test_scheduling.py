"""Tests for league.scheduling (pure Python: no Django, no database)."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.scheduling import (
    BYE_REASON,
    BYE_REASON_ALL_HAD_ONE,
    BracketMatch,
    Pairing,
    Round,
    SwissEntry,
    next_round,
    playoff_bracket,
    random_weekly_round,
    round_robin,
    swiss_round,
)
from tests.league.helpers import SwissEvent

# ---------------------------------------------------------------------------------------------
# Round robin: the published FIDE Berger tables (FIDE Handbook C.05, Annex 1), written out.
# ---------------------------------------------------------------------------------------------

BERGER = {
    4: [
        "1-4 2-3",
        "4-3 1-2",
        "2-4 3-1",
    ],
    6: [
        "1-6 2-5 3-4",
        "6-4 5-3 1-2",
        "2-6 3-1 4-5",
        "6-5 1-4 2-3",
        "3-6 4-2 5-1",
    ],
    8: [
        "1-8 2-7 3-6 4-5",
        "8-5 6-4 7-3 1-2",
        "2-8 3-1 4-7 5-6",
        "8-6 7-5 1-4 2-3",
        "3-8 4-2 5-1 6-7",
        "8-7 1-6 2-5 3-4",
        "4-8 5-3 6-2 7-1",
    ],
    10: [
        "1-10 2-9 3-8 4-7 5-6",
        "10-6 7-5 8-4 9-3 1-2",
        "2-10 3-1 4-9 5-8 6-7",
        "10-7 8-6 9-5 1-4 2-3",
        "3-10 4-2 5-1 6-9 7-8",
        "10-8 9-7 1-6 2-5 3-4",
        "4-10 5-3 6-2 7-1 8-9",
        "10-9 1-8 2-7 3-6 4-5",
        "5-10 6-4 7-3 8-2 9-1",
    ],
}


def parse_round(text: str) -> list[tuple[int, int]]:
    return [tuple(int(x) for x in game.split("-")) for game in text.split()]


def as_tuples(rnd: Round) -> list[tuple]:
    return [(p.home, p.away) for p in rnd.pairings]


@pytest.mark.parametrize("n", sorted(BERGER))
def test_round_robin_reproduces_berger_table(n):
    rounds = round_robin(list(range(1, n + 1)))
    assert [r.number for r in rounds] == list(range(1, n))
    assert [as_tuples(r) for r in rounds] == [parse_round(t) for t in BERGER[n]]
    assert all(r.bye is None for r in rounds)


@pytest.mark.parametrize("n", sorted(BERGER))
def test_round_robin_odd_count_uses_table_with_last_seed_as_bye(n):
    rounds = round_robin(list(range(1, n)))  # n - 1 teams: seed n is the dummy
    assert len(rounds) == n - 1
    for rnd, text in zip(rounds, BERGER[n]):
        games = parse_round(text)
        assert as_tuples(rnd) == [g for g in games if n not in g]
        (bye_game,) = [g for g in games if n in g]
        assert rnd.bye == (bye_game[0] if bye_game[1] == n else bye_game[1])


def test_round_robin_seeds_follow_team_id_order():
    ids = [40, 10, 30, 20]  # seed 1 = 40, seed 2 = 10, ...
    seed = dict(enumerate(ids, start=1))
    rounds = round_robin(ids)
    expected = [[(seed[a], seed[b]) for a, b in parse_round(t)] for t in BERGER[4]]
    assert [as_tuples(r) for r in rounds] == expected


@pytest.mark.parametrize("n", range(4, 17))
def test_round_robin_properties(n):
    ids = [100 + i for i in range(n)]
    rounds = round_robin(ids, cycles=2)
    per_cycle = n - 1 if n % 2 == 0 else n
    assert len(rounds) == 2 * per_cycle
    assert [r.number for r in rounds] == list(range(1, 2 * per_cycle + 1))
    first, second = rounds[:per_cycle], rounds[per_cycle:]

    for cycle in (first, second):
        met = Counter()
        home, away = Counter(), Counter()
        byes = Counter()
        for rnd in cycle:
            seen = [t for p in rnd.pairings for t in (p.home, p.away)]
            if rnd.bye is not None:
                seen.append(rnd.bye)
                byes[rnd.bye] += 1
            assert len(seen) == len(set(seen)) == n  # nobody twice, nobody missing
            assert (rnd.bye is not None) == (n % 2 == 1)
            for p in rnd.pairings:
                met[p.teams] += 1
                home[p.home] += 1
                away[p.away] += 1
        assert set(met) == {frozenset(c) for c in combinations(ids, 2)}
        assert set(met.values()) == {1}
        for t in ids:
            assert abs(home[t] - away[t]) <= 1
            assert home[t] + away[t] == n - 1
        if n % 2:
            assert byes == Counter(dict.fromkeys(ids, 1))

    for a, b in zip(first, second):
        assert b.bye == a.bye
        assert [(p.home, p.away) for p in b.pairings] == [(p.away, p.home) for p in a.pairings]


def test_round_robin_small_and_invalid():
    assert round_robin([]) == []
    assert round_robin([7]) == []
    assert [as_tuples(r) for r in round_robin([1, 2], cycles=2)] == [[(1, 2)], [(2, 1)]]
    three = round_robin(["a", "b", "c"])
    assert [(as_tuples(r), r.bye) for r in three] == [
        ([("b", "c")], "a"),
        ([("a", "b")], "c"),
        ([("c", "a")], "b"),
    ]
    with pytest.raises(ValueError):
        round_robin([1, 2, 2])
    with pytest.raises(ValueError):
        round_robin([1, 2], cycles=0)


def test_results_are_frozen():
    rnd = round_robin([1, 2, 3, 4])[0]
    with pytest.raises(AttributeError):
        rnd.number = 5
    with pytest.raises(AttributeError):
        rnd.pairings[0].home = 9
    assert isinstance(rnd.pairings[0], Pairing)
    hash(rnd)


# ---------------------------------------------------------------------------------------------
# Random weekly matchups
# ---------------------------------------------------------------------------------------------


def has_perfect_matching(nodes, allowed) -> bool:
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(e for e in combinations(nodes, 2) if allowed(*e))
    return len(nx.max_weight_matching(graph, maxcardinality=True)) * 2 == len(nodes)


def check_weekly(rnd, teams, owners, meetings, byes):
    playing = [t for p in rnd.pairings for t in (p.home, p.away)]
    assert sorted(playing + ([rnd.bye] if rnd.bye is not None else [])) == sorted(teams)
    assert len(playing) == len(set(playing))
    assert (rnd.bye is not None) == (len(teams) % 2 == 1)
    if rnd.bye is not None:
        assert byes[rnd.bye] == min(byes[t] for t in teams)
    for p in rnd.pairings:
        assert owners.get(p.home) is None or owners.get(p.home) != owners.get(p.away)

    def allowed(a, b, below):
        same_owner = owners.get(a) is not None and owners.get(a) == owners.get(b)
        return not same_owner and meetings[frozenset((a, b))] < below

    # Fewest previous meetings: no chosen pair's count could have been avoided entirely.
    worst = max((meetings[p.teams] for p in rnd.pairings), default=0)
    players = [t for t in teams if t != rnd.bye]
    if worst > 0:
        assert not has_perfect_matching(players, lambda a, b: allowed(a, b, worst))


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8, 9, 12, 13])
def test_random_weekly_rounds_over_a_long_season(n):
    teams = list(range(1, n + 1))
    owners = {t: f"owner{(t - 1) // 2}" for t in teams}  # teams 1&2, 3&4, ... share owners
    rng = random.Random(n)
    history: list[frozenset] = []
    byes: Counter = Counter()
    for week in range(1, 3 * n):
        meetings = Counter(history)
        rnd = random_weekly_round(teams, owners=owners, history=history, rng=rng, byes=byes, number=week)
        assert rnd.number == week
        check_weekly(rnd, teams, owners, meetings, byes)
        history.extend(p.teams for p in rnd.pairings)
        if rnd.bye is not None:
            byes[rnd.bye] += 1
    # Everyone eligible met everyone eligible at least once over three "cycles".
    counts = Counter(history)
    eligible = [frozenset(c) for c in combinations(teams, 2) if owners[c[0]] != owners[c[1]]]
    assert all(counts[pair] >= 1 for pair in eligible)
    if n % 2:
        assert max(byes.values()) - min(byes[t] for t in teams) <= 1


def test_random_weekly_first_full_cycle_without_rematch_when_possible():
    teams = list(range(8))
    for seed in range(10):
        rng = random.Random(seed)
        history: list[frozenset] = []
        for _ in range(7):
            rnd = random_weekly_round(teams, owners={}, history=history, rng=rng)
            meetings = Counter(history)
            if any(meetings[p.teams] for p in rnd.pairings):
                # Only acceptable if every rematch-free week was impossible.
                assert not has_perfect_matching(teams, lambda a, b, met=meetings: not met[frozenset((a, b))])
            history.extend(p.teams for p in rnd.pairings)


def test_random_weekly_is_deterministic_for_a_seed():
    teams = list(range(1, 12))
    owners = {1: "a", 2: "a", 3: "b", 4: "b"}
    history = [frozenset((1, 3)), frozenset((5, 6))]

    def run(seed):
        return random_weekly_round(teams, owners=owners, history=history, rng=random.Random(seed))

    assert run(7) == run(7)
    assert len({run(s) for s in range(20)}) > 1  # the rng really decides ties


def test_random_weekly_resets_after_everyone_met_everyone():
    teams = [1, 2, 3, 4]
    history = [frozenset(c) for c in combinations(teams, 2)]  # one full cycle
    history += [frozenset((1, 2)), frozenset((3, 4))]  # and a first week of the next
    rnd = random_weekly_round(teams, owners={}, history=history, rng=random.Random(1))
    assert {p.teams for p in rnd.pairings} in (
        {frozenset((1, 3)), frozenset((2, 4))},
        {frozenset((1, 4)), frozenset((2, 3))},
    )


def test_random_weekly_bye_goes_to_team_with_fewest_byes():
    teams = [1, 2, 3, 4, 5]
    for seed in range(10):
        rnd = random_weekly_round(teams, owners={}, history=[], rng=random.Random(seed), byes=[1, 2, 3, 5, 5])
        assert rnd.bye == 4
    # Singleton frozensets in the history count as byes too.
    rnd = random_weekly_round([1, 2, 3], owners={}, history=[frozenset({1}), frozenset({2})], rng=random.Random(3))
    assert rnd.bye == 3


def test_random_weekly_same_owner_never_paired_and_impossible_is_an_error():
    owners = {1: "x", 2: "x", 3: "x", 4: "y"}
    with pytest.raises(ValueError):
        random_weekly_round([1, 2, 3, 4], owners=owners, history=[], rng=random.Random(0))
    owners = {1: "x", 2: "x", 3: "y", 4: "y"}
    for seed in range(10):
        rnd = random_weekly_round([1, 2, 3, 4], owners=owners, history=[], rng=random.Random(seed))
        assert all(owners[p.home] != owners[p.away] for p in rnd.pairings)


# ---------------------------------------------------------------------------------------------
# Swiss
# ---------------------------------------------------------------------------------------------


def entries(scores: dict, order: list) -> list[SwissEntry]:
    return [SwissEntry(team_id=t, score=scores[t], rank=i + 1) for i, t in enumerate(order)]


def best_fresh_matching(players, allowed, played, bonus=lambda a, b: 0):
    """(size, fresh games, bonus) of the best matching over `allowed` edges, lexicographic."""
    slots = len(players) // 2 + 1
    graph = nx.Graph()
    graph.add_nodes_from(players)
    for a, b in combinations(players, 2):
        if allowed(a, b):
            fresh = frozenset((a, b)) not in played
            graph.add_edge(a, b, weight=1 + fresh * slots + bonus(a, b))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    fresh = sum(frozenset(m) not in played for m in matching)
    return len(matching), fresh, sum(bonus(a, b) for a, b in matching)


def check_swiss(rnd, table, history, byes_had):
    ids = [e.team_id for e in table]
    group = {e.team_id: sorted({x.score for x in table}, reverse=True).index(e.score) + 1 for e in table}
    rank = {e.team_id: e.rank for e in table}
    playing = [t for p in rnd.pairings for t in (p.home, p.away)]
    assert len(playing) == len(set(playing))
    assert sorted(playing + ([rnd.bye] if rnd.bye is not None else [])) == sorted(ids)

    # Bye: only for odd counts, never a second one, to the lowest-ranked team without one.
    assert (rnd.bye is not None) == (len(ids) % 2 == 1)
    if rnd.bye is not None:
        assert rnd.bye not in byes_had
        assert rnd.bye_reason == BYE_REASON
        assert rank[rnd.bye] == max(rank[t] for t in ids if t not in byes_had)

    for p in rnd.pairings:
        assert p.rematch == (p.teams in history)
        assert rank[p.home] < rank[p.away]
        assert (p.home_group, p.away_group) == (group[p.home], group[p.away])
        if group[p.home] == group[p.away]:
            assert p.reason == f"score group {group[p.home]}"
        else:
            assert f"pulled up from score group {group[p.away]}" in p.reason
            assert "pulled down" in p.reason

    players = [t for t in ids if t != rnd.bye]
    slots = len(players) // 2

    # No rematch while avoidable: the number of rematches is the minimum possible
    # (in particular zero whenever a perfect matching of unplayed pairs exists).
    _, fresh, _ = best_fresh_matching(players, lambda a, b: True, history)
    assert rnd.rematches == slots - fresh
    if rnd.rematches:
        assert not has_perfect_matching(players, lambda a, b: frozenset((a, b)) not in history)

    # Games across non-adjacent score groups only when unavoidable: no perfect matching
    # inside adjacent groups with no more rematches exists.
    def adjacent(a, b):
        return abs(group[a] - group[b]) <= 1

    size, fresh_adj, _ = best_fresh_matching(players, adjacent, history)
    far = [p for p in rnd.pairings if abs(p.home_group - p.away_group) > 1]
    if far:
        assert size < slots or slots - fresh_adj > rnd.rematches
    else:
        # ... and then as few cross-group games as possible (same group preferred).
        def same(a, b):
            return int(group[a] == group[b])

        _, _, best_same = best_fresh_matching(players, adjacent, history, bonus=lambda a, b: same(a, b))
        assert sum(p.home_group == p.away_group for p in rnd.pairings) == best_same


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(min_value=5, max_value=64),
    rounds=st.integers(min_value=1, max_value=7),
    seed=st.integers(min_value=0, max_value=2**32),
    draws=st.booleans(),
)
def test_swiss_simulated_events(n, rounds, seed, draws):
    event = SwissEvent([f"t{i}" for i in range(n)], seed, win=2, draw_below=0.2, home_below=0.6)
    for _ in range(min(rounds, n - 1)):
        table = event.table()
        rnd = swiss_round(table, history=event.history, byes_had=event.byes_had)
        check_swiss(rnd, table, event.history, event.byes_had)
        event.play(rnd, draws=draws)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(min_value=5, max_value=24),
    density=st.floats(min_value=0.0, max_value=0.9),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_swiss_arbitrary_history_and_scores(n, density, seed):
    """Dense, arbitrary histories so that rematches and long floats are sometimes forced."""
    rng = random.Random(seed)
    teams = list(range(n))
    scores = {t: rng.randrange(0, 6) for t in teams}
    order = sorted(teams, key=lambda t: (-scores[t], rng.random()))
    history = {frozenset(c) for c in combinations(teams, 2) if rng.random() < density}
    byes_had = {t for t in teams if rng.random() < 0.3}
    table = entries(scores, order)
    rnd = swiss_round(table, history=history, byes_had=byes_had)
    if len(byes_had) < n:
        check_swiss(rnd, table, history, byes_had)


def test_swiss_first_round_top_half_meets_bottom_half():
    table = entries(dict.fromkeys(range(1, 9), 0), list(range(1, 9)))
    rnd = swiss_round(table, history=set(), byes_had=set())
    assert [(p.home, p.away) for p in rnd.pairings] == [(1, 5), (2, 6), (3, 7), (4, 8)]
    assert {p.reason for p in rnd.pairings} == {"score group 1"}
    assert rnd.bye is None and rnd.rematches == 0


def test_swiss_odd_group_floats_to_adjacent_group():
    scores = {1: 2, 2: 2, 3: 2, 4: 1, 5: 1, 6: 1}
    rnd = swiss_round(entries(scores, [1, 2, 3, 4, 5, 6]), history=set(), byes_had=set())
    assert [(p.home, p.away, p.reason) for p in rnd.pairings] == [
        (1, 2, "score group 1"),
        (3, 4, "pulled up from score group 2; pulled down from score group 1"),
        (5, 6, "score group 2"),
    ]


def test_swiss_non_adjacent_only_when_forced():
    scores = {1: 3, 2: 2, 3: 1, 4: 0}
    table = entries(scores, [1, 2, 3, 4])
    rnd = swiss_round(table, history=set(), byes_had=set())
    assert [(p.home, p.away) for p in rnd.pairings] == [(1, 2), (3, 4)]
    history = {frozenset((1, 2)), frozenset((3, 4)), frozenset((2, 3))}
    rnd = swiss_round(table, history=history, byes_had=set())
    assert [(p.home, p.away) for p in rnd.pairings] == [(1, 3), (2, 4)]
    assert rnd.rematches == 0
    assert rnd.pairings[0].reason == "pulled up from score group 3; pulled down from score group 1"


def test_swiss_unavoidable_rematch_is_flagged():
    table = entries({1: 1, 2: 0}, [1, 2])
    rnd = swiss_round(table, history={frozenset((1, 2))}, byes_had=set())
    (game,) = rnd.pairings
    assert (game.home, game.away, game.rematch) == (1, 2, True)
    assert rnd.rematches == 1


def test_swiss_bye_rules():
    table = entries({1: 2, 2: 1, 3: 0}, [1, 2, 3])
    rnd = swiss_round(table, history=set(), byes_had={3})
    assert (rnd.bye, rnd.bye_reason) == (2, BYE_REASON)
    assert [(p.home, p.away) for p in rnd.pairings] == [(1, 3)]
    rnd = swiss_round(table, history=set(), byes_had={1, 2, 3})
    assert (rnd.bye, rnd.bye_reason) == (3, BYE_REASON_ALL_HAD_ONE)
    assert swiss_round([], history=set()).pairings == ()
    # Ranks, not input order, decide.
    shuffled = [table[2], table[0], table[1]]
    assert swiss_round(shuffled, history=set(), byes_had=set()).bye == 3


# ---------------------------------------------------------------------------------------------
# Playoffs
# ---------------------------------------------------------------------------------------------


def first_round_seeds(bracket: list[BracketMatch]) -> list:
    return [s for m in bracket for s in (m.home_seed, m.away_seed)]


def play_out(bracket, winner_of):
    """Run the bracket to the end; returns the list of rounds."""
    rounds = [bracket]
    while True:
        results = [(m, None if m.is_bye else winner_of(m)) for m in rounds[-1]]
        following = next_round(results)
        if not following:
            return rounds
        rounds.append(following)


def better_seed(match):
    return match.home if match.home_seed < match.away_seed else match.away


def test_playoff_standard_orders():
    order16 = [1, 16, 8, 9, 5, 12, 4, 13, 6, 11, 3, 14, 7, 10, 2, 15]
    assert first_round_seeds(playoff_bracket(list(range(1, 17)))) == order16
    assert first_round_seeds(playoff_bracket(list(range(1, 9)))) == [1, 8, 4, 5, 3, 6, 2, 7]
    assert first_round_seeds(playoff_bracket(list(range(1, 5)))) == [1, 4, 2, 3]
    (final,) = playoff_bracket(["x", "y"])
    assert (final.home, final.away, final.round, final.slot) == ("x", "y", 1, 0)


@pytest.mark.parametrize("n", [4, 8, 16, 32])
def test_playoff_seeding_properties(n):
    ids = [f"team{s}" for s in range(1, n + 1)]  # seed s = f"team{s}"
    bracket = playoff_bracket(ids)
    assert len(bracket) == n // 2
    for m in bracket:
        assert m.home_seed + m.away_seed == n + 1
        assert m.home_seed < m.away_seed
        assert (m.home, m.away) == (ids[m.home_seed - 1], ids[m.away_seed - 1])
        assert m.round == 1
    assert [m.slot for m in bracket] == list(range(n // 2))
    assert sorted(first_round_seeds(bracket)) == list(range(1, n + 1))

    rounds = play_out(bracket, better_seed)
    assert [len(r) for r in rounds] == [n // 2**k for k in range(1, len(rounds) + 1)]
    assert len(rounds[-1]) == 1
    for k, rnd in enumerate(rounds, start=1):
        assert all(m.round == k for m in rnd)
        remaining = 2 * len(rnd)
        # With chalk results every round pairs seeds summing to (teams left) + 1.
        assert all(m.home_seed + m.away_seed == remaining + 1 for m in rnd)
        meets = [{m.home_seed, m.away_seed} for m in rnd]
        if k < len(rounds):
            assert {1, 2} not in meets
    assert (rounds[-1][0].home_seed, rounds[-1][0].away_seed) == (1, 2)
    if n >= 4:
        assert {(m.home_seed, m.away_seed) for m in rounds[-2]} == {(1, 4), (2, 3)}


@pytest.mark.parametrize("n", [3, 5, 6, 7, 10, 12])
def test_playoff_byes_go_to_top_seeds(n):
    ids = list(range(101, 101 + n))
    bracket = playoff_bracket(ids)
    size = 1 << (n - 1).bit_length()
    assert len(bracket) == size // 2
    byes = sorted(m.home_seed for m in bracket if m.is_bye)
    assert byes == list(range(1, size - n + 1))
    for m in bracket:
        if not m.is_bye:
            assert m.home_seed + m.away_seed == size + 1
    rounds = play_out(bracket, better_seed)
    assert [len(r) for r in rounds][1:] == [size // 2**k for k in range(2, len(rounds) + 1)]
    assert (rounds[-1][0].home, rounds[-1][0].away) == (101, 102)


def test_playoff_upsets_and_validation():
    bracket = playoff_bracket(list(range(1, 9)))
    rng = random.Random(5)
    rounds = play_out(bracket, lambda m: rng.choice([m.home, m.away]))
    assert [len(r) for r in rounds] == [4, 2, 1]
    for rnd in rounds[1:]:
        assert all(m.home_seed < m.away_seed for m in rnd)

    # Results may arrive in any order, as a mapping too.
    results = {m: m.away for m in reversed(bracket)}
    semis = next_round(results)
    assert [(m.home_seed, m.away_seed, m.slot, m.round) for m in semis] == [
        (5, 8, 0, 2),
        (6, 7, 1, 2),
    ]

    with pytest.raises(ValueError):
        next_round([(bracket[1], 4)])  # a round must start at slot 0
    with pytest.raises(ValueError):
        next_round([(bracket[0], 1), (semis[1], 6)])  # mixed rounds
    with pytest.raises(ValueError):
        next_round([(m, 99) for m in bracket])  # winner not in the game
    with pytest.raises(ValueError):
        next_round([(m, m.home) for m in bracket[:3]])  # missing a slot
    with pytest.raises(ValueError):
        next_round([(m, None) for m in bracket])  # real games need a winner
    with pytest.raises(ValueError):
        playoff_bracket([1])
    with pytest.raises(ValueError):
        playoff_bracket([1, 1])
