"""The Swiss pairing as it was before the score-group decomposition (main at 53b3cc9): a
networkx blossom on every pair of teams at most 1, 2, 4, ... score groups apart.

Kept so ``benchmarks/swiss.py`` can time it side by side with the current
``league.scheduling.swiss_round``, and as the oracle of ``tests/league/test_swiss_exact.py``
(its weight function, :func:`frozen_cost`, and the complete-graph matching).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import networkx as nx

from league.scheduling import SwissEntry, SwissRound, SwissSetup, TeamId, swiss_setup, widening_matching


def frozen_cost(setup: SwissSetup):
    """The Swiss cost of a game as main had it at 53b3cc9, as ``(cost, top)``: a frozen copy,
    so that ``tests/league/test_swiss_exact.py`` compares the production pairing against the
    original weight function and a change to the production cost cannot hide."""
    players, group_of, played = setup.players, setup.group_of, setup.played
    n = len(players)
    slots = n // 2
    group_radix = slots + 1
    group_unit = (n + 1) * group_radix
    rematch_unit = group_unit * group_radix ** max(setup.n_groups - 1, 1) * group_radix

    def cost(a: TeamId, b: TeamId) -> int:
        d = abs(group_of[a] - group_of[b])
        if d:
            tie = abs(setup.rank_pos[a] - setup.rank_pos[b]) - 1
        else:
            half = len(setup.group_members[group_of[a]]) // 2
            tie = abs(abs(setup.pos_in_group[a] - setup.pos_in_group[b]) - half)
        rematch = rematch_unit if frozenset((a, b)) in played else 0
        return (group_radix**d - 1) * group_unit + min(tie, n) + rematch

    return cost, rematch_unit * 2 + 1


def complete_matching(setup: SwissSetup, max_distance: int | None = None) -> set:
    """networkx's blossom on every pair of players at most ``max_distance`` score groups apart
    (all pairs when None), weighted ``top - cost``."""
    cost, top = frozen_cost(setup)
    graph = nx.Graph()
    graph.add_nodes_from(setup.players)
    for i, a in enumerate(setup.players):
        for b in setup.players[i + 1 :]:
            if max_distance is None or abs(setup.group_of[a] - setup.group_of[b]) <= max_distance:
                graph.add_edge(a, b, weight=top - cost(a, b))
    return nx.max_weight_matching(graph, maxcardinality=True)


def swiss_round(
    standings: Sequence[SwissEntry],
    *,
    history: Collection[frozenset],
    byes_had: Collection[TeamId] = frozenset(),
) -> SwissRound:
    """Pair one Swiss round the old way: the bye and score groups as today
    (:func:`league.scheduling.swiss_setup`), then the matching first tried on edges between
    teams at most one score group apart, widened (2, 4, ... groups, finally everything) until
    the graph has a perfect rematch-free matching."""
    setup = swiss_setup(standings, history=history, byes_had=byes_had)
    if not setup.players:
        return SwissRound(pairings=(), bye=setup.bye, bye_reason=setup.bye_reason)
    matching = widening_matching(setup, lambda distance: complete_matching(setup, distance))
    return setup.round(matching)
