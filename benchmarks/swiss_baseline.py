"""The Swiss pairing as it was before the score-group decomposition (main at 53b3cc9): a
networkx blossom on every pair of teams at most 1, 2, 4, ... score groups apart.

Kept only so ``benchmarks/swiss.py`` can time it side by side with the current
``league.scheduling.swiss_round``; nothing else imports it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import networkx as nx

from league.scheduling import (
    BYE_REASON,
    BYE_REASON_ALL_HAD_ONE,
    SwissEntry,
    SwissPairing,
    SwissRound,
    TeamId,
    _check_unique,
)


def swiss_round(
    standings: Sequence[SwissEntry],
    *,
    history: Collection[frozenset],
    byes_had: Collection[TeamId] = frozenset(),
) -> SwissRound:
    """Pair one Swiss round.

    * Odd number of teams: the bye goes to the lowest-ranked team that has not had one (at most
      one bye per team); only if every team already had one does the lowest-ranked team get a
      second (reported with :data:`BYE_REASON_ALL_HAD_ONE`).
    * The rest are paired by ``networkx.max_weight_matching(maxcardinality=True)`` minimising,
      in strict priority order: (1) the number of rematches, (2) games across score groups --
      lexicographically from the largest group distance down, so a game across non-adjacent
      groups only happens when every pairing without one is impossible (or needs more
      rematches), (3) a tiebreak: inside a group top half meets bottom half (1 v g/2+1, ...),
      across groups the teams closest in rank meet.
    * For speed the matching is first tried on edges between teams at most one score group
      apart; it is widened (2, 4, ... groups, finally everything) only if that graph has no
      perfect rematch-free matching.  A perfect rematch-free matching on the narrow graph is
      optimal on the full graph too, because any game further apart costs more than all
      narrower games together, so the restriction never changes the result.
    """
    entries = sorted(enumerate(standings), key=lambda ie: (ie[1].rank, ie[0]))
    order = [e for _, e in entries]
    ids = _check_unique(e.team_id for e in order)
    if not order:
        return SwissRound(pairings=())

    scores = sorted({e.score for e in order}, reverse=True)
    group_of = {e.team_id: scores.index(e.score) + 1 for e in order}
    byes_set = set(byes_had)
    played: set[frozenset] = {frozenset(p) for p in history if len(frozenset(p)) == 2}

    bye = bye_reason = None
    if len(order) % 2:
        without = [e for e in order if e.team_id not in byes_set]
        if without:
            bye, bye_reason = without[-1].team_id, BYE_REASON
        else:
            bye, bye_reason = order[-1].team_id, BYE_REASON_ALL_HAD_ONE
    players = [t for t in ids if t != bye]
    if not players:
        return SwissRound(pairings=(), bye=bye, bye_reason=bye_reason)

    # Position of each player inside its score group (among those being paired).
    group_members: dict[int, list[TeamId]] = {}
    for t in players:
        group_members.setdefault(group_of[t], []).append(t)
    pos_in_group = {t: i for members in group_members.values() for i, t in enumerate(members)}
    rank_pos = {t: i for i, t in enumerate(players)}

    n = len(players)
    slots = n // 2
    tie_bound = n + 1
    group_radix = slots + 1
    group_unit = tie_bound * (slots + 1)
    n_groups = len(scores)
    max_group_cost = group_radix ** max(n_groups - 1, 1)
    rematch_unit = group_unit * max_group_cost * (slots + 1)

    def cost(a: TeamId, b: TeamId) -> int:
        ga, gb = group_of[a], group_of[b]
        d = abs(ga - gb)
        if d == 0:
            size = len(group_members[ga])
            tie = abs(abs(pos_in_group[a] - pos_in_group[b]) - size // 2)
        else:
            tie = abs(rank_pos[a] - rank_pos[b]) - 1
        c = (group_radix**d - 1) * group_unit + min(tie, n)
        if frozenset((a, b)) in played:
            c += rematch_unit
        return c

    top = rematch_unit * 2 + 1

    def solve(max_distance: int) -> set:
        graph = nx.Graph()
        graph.add_nodes_from(players)
        for i, a in enumerate(players):
            for b in players[i + 1 :]:
                if abs(group_of[a] - group_of[b]) <= max_distance:
                    graph.add_edge(a, b, weight=top - cost(a, b))
        return nx.max_weight_matching(graph, maxcardinality=True)

    distance = 1
    while True:
        full = distance >= n_groups - 1
        matching = solve(n_groups if full else distance)
        perfect = len(matching) == slots
        clean = perfect and not any(frozenset(m) in played for m in matching)
        if full or clean:
            break
        distance *= 2
    if len(matching) != slots:  # pragma: no cover - the complete graph always has one
        raise RuntimeError("no complete Swiss pairing found")

    pairings: list[SwissPairing] = []
    for a, b in matching:
        home, away = (a, b) if rank_pos[a] < rank_pos[b] else (b, a)
        gh, ga = group_of[home], group_of[away]
        if gh == ga:
            reason = f"score group {gh}"
        else:
            reason = f"pulled up from score group {ga}; pulled down from score group {gh}"
        pairings.append(
            SwissPairing(
                home=home,
                away=away,
                reason=reason,
                rematch=frozenset((a, b)) in played,
                home_group=gh,
                away_group=ga,
            )
        )
    pairings.sort(key=lambda p: rank_pos[p.home])
    return SwissRound(pairings=tuple(pairings), bye=bye, bye_reason=bye_reason)
