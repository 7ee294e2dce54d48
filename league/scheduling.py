"""Pure schedule and pairing algorithms (no Django, no database).

Teams are opaque hashable ids supplied by the caller; every result is a frozen dataclass.

* :func:`round_robin` -- circle method reproducing the FIDE Berger tables exactly
  (FIDE Handbook C.05, Annex 1), optionally over several cycles with colours reversed.
* :func:`random_weekly_round` -- one random week of matchups avoiding rematches and
  same-owner games (maximum weight matching).
* :func:`swiss_round` -- one Swiss round paired within score groups by maximum weight matching
  (exactly, and fast at 1,000 teams: see its docstring).
* :func:`playoff_bracket` / :func:`next_round` -- single-elimination brackets with standard
  seeding; later rounds are created from results as they come in.

Only the standard library, ``networkx`` and ``rustworkx`` (the same blossom algorithm, compiled)
are used.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import rustworkx as rx

__all__ = [
    "Pairing",
    "Round",
    "round_robin",
    "random_weekly_round",
    "SwissEntry",
    "SwissPairing",
    "SwissRound",
    "swiss_round",
    "BracketMatch",
    "playoff_bracket",
    "next_round",
    "BYE_REASON",
    "BYE_REASON_ALL_HAD_ONE",
    "PairingViolation",
    "pairing_violations",
]

TeamId = Hashable


# ---------------------------------------------------------------------------------------------
# Common result types
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pairing:
    """One game: ``home`` plays ``away`` (white/black in FIDE terms)."""

    home: TeamId
    away: TeamId

    @property
    def teams(self) -> frozenset:
        return frozenset((self.home, self.away))

    def reversed(self) -> Pairing:
        return Pairing(home=self.away, away=self.home)


@dataclass(frozen=True)
class Round:
    """A numbered round: its games (board order) and the team sitting out, if any."""

    number: int
    pairings: tuple[Pairing, ...]
    bye: TeamId | None = None

    @property
    def teams(self) -> frozenset:
        playing = {t for p in self.pairings for t in (p.home, p.away)}
        if self.bye is not None:
            playing.add(self.bye)
        return frozenset(playing)


def _check_unique(team_ids: Iterable[TeamId]) -> list[TeamId]:
    ids = list(team_ids)
    if len(set(ids)) != len(ids):
        raise ValueError("team ids must be unique")
    return ids


# ---------------------------------------------------------------------------------------------
# 1. Round robin (Berger tables)
# ---------------------------------------------------------------------------------------------


def _berger_round(n: int, r: int) -> list[tuple[int, int]]:
    """Seed pairings (white, black) of round ``r`` (1-based) of the Berger table for ``n`` (even).

    Derivation of the FIDE table: seeds 1..n-1 sit on a circle (arithmetic modulo n-1) and
    seed n is fixed.  In round r the player facing seed n is p, where 2p = r + 1 (mod n-1),
    i.e. p = (r+1)/2 for odd r and p = (r+n)/2 for even r.  Board 1 is p against n -- seed n
    has black in odd rounds and white in even rounds.  Board k (k = 2..n/2) pairs
    p+(k-1) (white) against p-(k-1) (black), both taken modulo n-1 into 1..n-1.
    """
    m = n - 1
    p = (r + 1) // 2 if r % 2 else (r + n) // 2

    def wrap(x: int) -> int:
        return (x - 1) % m + 1

    boards = [(p, n) if r % 2 else (n, p)]
    for k in range(2, n // 2 + 1):
        boards.append((wrap(p + k - 1), wrap(p - (k - 1))))
    return boards


def round_robin(team_ids: Sequence[TeamId], *, cycles: int = 1) -> list[Round]:
    """All-play-all schedule using the FIDE Berger tables.

    Seeds follow the order of ``team_ids`` (seed 1 = ``team_ids[0]``).  With an odd number of
    teams a dummy is added as the last seed and whoever meets it has the bye.  Each further
    cycle repeats the first one's rounds with home and away reversed on alternate cycles
    (cycle 2 reversed, cycle 3 as cycle 1, ...); round numbers continue across cycles.
    """
    ids = _check_unique(team_ids)
    if cycles < 1:
        raise ValueError("cycles must be at least 1")
    if len(ids) < 2:
        return []
    seeds: list[TeamId | None] = list(ids)
    if len(seeds) % 2:
        seeds.append(None)  # the dummy: pairing with it means a bye
    n = len(seeds)

    first_cycle: list[tuple[list[Pairing], TeamId | None]] = []
    for r in range(1, n):
        pairings: list[Pairing] = []
        bye = None
        for white, black in _berger_round(n, r):
            home, away = seeds[white - 1], seeds[black - 1]
            if home is None:
                bye = away
            elif away is None:
                bye = home
            else:
                pairings.append(Pairing(home, away))
        first_cycle.append((pairings, bye))

    rounds: list[Round] = []
    number = 0
    for cycle in range(cycles):
        for pairings, bye in first_cycle:
            number += 1
            games = tuple(p.reversed() for p in pairings) if cycle % 2 else tuple(pairings)
            rounds.append(Round(number=number, pairings=games, bye=bye))
    return rounds


# ---------------------------------------------------------------------------------------------
# 2. Random weekly matchups
# ---------------------------------------------------------------------------------------------

_BYE_NODE = object()  # matching node standing for "sits out this week"


def _count_byes(byes: Mapping[TeamId, int] | Iterable[TeamId]) -> Counter:
    if isinstance(byes, Mapping):
        return Counter({t: int(c) for t, c in byes.items()})
    return Counter(byes)


def random_weekly_round(
    team_ids: Sequence[TeamId],
    *,
    owners: Mapping[TeamId, Hashable],
    history: Collection[frozenset],
    rng: random.Random,
    byes: Mapping[TeamId, int] | Iterable[TeamId] = (),
    number: int = 1,
) -> Round:
    """One week of random matchups.

    Rules, in priority order:

    1. two teams with the same owner are never paired (hard; ``ValueError`` if impossible);
       teams missing from ``owners`` (or owned by ``None``) count as separately owned;
    2. with an odd number of teams one team gets the bye: one with the fewest previous byes
       (``byes`` is a mapping team -> count, or an iterable of past bye recipients with
       repeats; singleton frozensets in ``history`` also count as byes);
    3. pairs with the fewest previous meetings are preferred, lexicographically: first the
       number of games at the highest meeting count is minimised, then the next, ... so no
       rematch happens while every team can still meet someone new, and once everybody has met
       everybody the counts are effectively reset (only differences matter);
    4. remaining ties are broken at random with ``rng`` (deterministic for a given seed),
       which also picks home and away.

    ``history`` may contain the same pair several times (a list), one entry per meeting.
    """
    ids = _check_unique(team_ids)
    if len(ids) < 2:
        return Round(number=number, pairings=(), bye=ids[0] if ids else None)
    present = set(ids)
    meetings: Counter = Counter()
    bye_count = _count_byes(byes)
    for pair in history:
        pair = frozenset(pair)
        if len(pair) == 2 and pair <= present:
            meetings[pair] += 1
        elif len(pair) == 1 and pair <= present:
            bye_count[next(iter(pair))] += 1

    def owner(t: TeamId) -> Hashable:
        return owners.get(t)

    edges: list[tuple[TeamId, TeamId]] = []
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            oa, ob = owner(a), owner(b)
            if oa is not None and oa == ob:
                continue
            edges.append((a, b))
    odd = len(ids) % 2 == 1
    slots = len(ids) // 2 + (1 if odd else 0)  # edges in a complete matching

    # Cost tiers (lower is better), combined into one integer so the matching is exact.
    base = min((meetings[frozenset(e)] for e in edges), default=0)
    radix = slots + 1  # one game at count c+1 outweighs all games at counts <= c
    meet_cost = {e: radix ** (meetings[frozenset(e)] - base) - 1 for e in edges}
    tie_range = 1000
    tie_unit = 1
    meet_unit = tie_range * (slots + 1)
    bye_unit = meet_unit * (sum(meet_cost.values()) + 1)
    min_byes = min(bye_count[t] for t in ids) if odd else 0

    weighted: list[tuple[object, object, int]] = []
    for e in edges:
        cost = meet_cost[e] * meet_unit + rng.randrange(tie_range) * tie_unit
        weighted.append((e[0], e[1], cost))
    if odd:
        for t in ids:
            cost = (bye_count[t] - min_byes) * bye_unit + rng.randrange(tie_range) * tie_unit
            weighted.append((t, _BYE_NODE, cost))
    top = max(c for _, _, c in weighted) + 1 if weighted else 1

    graph = nx.Graph()
    graph.add_nodes_from(ids)
    if odd:
        graph.add_node(_BYE_NODE)
    for a, b, cost in weighted:
        graph.add_edge(a, b, weight=top - cost)  # every complete matching has `slots` edges
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if len(matching) != slots:
        raise ValueError("no complete pairing exists without pairing teams of the same owner")

    position = {t: i for i, t in enumerate(ids)}
    bye = None
    games: list[tuple[TeamId, TeamId]] = []
    for a, b in matching:
        if a is _BYE_NODE or b is _BYE_NODE:
            bye = b if a is _BYE_NODE else a
        else:
            games.append((a, b) if position[a] < position[b] else (b, a))
    games.sort(key=lambda g: position[g[0]])
    pairings = tuple(Pairing(a, b) if rng.random() < 0.5 else Pairing(b, a) for a, b in games)
    return Round(number=number, pairings=pairings, bye=bye)


# ---------------------------------------------------------------------------------------------
# 3. Swiss
# ---------------------------------------------------------------------------------------------

BYE_REASON = "bye: lowest-ranked team without a bye"
BYE_REASON_ALL_HAD_ONE = "bye: lowest-ranked team (every team has already had a bye)"


@dataclass(frozen=True)
class SwissEntry:
    """A line of the current standings: ``rank`` 1 is the leader."""

    team_id: TeamId
    score: float
    rank: int


@dataclass(frozen=True)
class SwissPairing:
    """A Swiss game.  ``home`` is the better-ranked team.

    ``reason`` is ``"score group N"`` for a game inside score group N (1 = top score), and for a
    game across groups ``"pulled up from score group Y; pulled down from score group X"`` where
    the away team was pulled up from group Y into group X and the home team pulled down.
    ``rematch`` is True only when a rematch could not be avoided.
    """

    home: TeamId
    away: TeamId
    reason: str
    rematch: bool = False
    home_group: int = 0
    away_group: int = 0

    @property
    def teams(self) -> frozenset:
        return frozenset((self.home, self.away))


@dataclass(frozen=True)
class SwissRound:
    pairings: tuple[SwissPairing, ...]
    bye: TeamId | None = None
    bye_reason: str | None = None

    @property
    def rematches(self) -> int:
        return sum(p.rematch for p in self.pairings)


# Weights up to this fit rustworkx's 128-bit integer blossom with room for its dual sums.
_RX_WEIGHT_LIMIT = 2**120


def _max_weight_matching(size: int, edges: Sequence[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """Maximum-cardinality, maximum-weight matching of nodes ``0..size-1`` (Edmonds' blossom).

    ``edges`` are ``(u, v, weight)`` with integer weights.  rustworkx's compiled implementation
    is used when every weight fits its 128-bit integers, networkx's otherwise; both are exact.
    """
    if not edges:
        return []
    if max(w for _, _, w in edges) < _RX_WEIGHT_LIMIT:
        graph = rx.PyGraph(multigraph=False)
        graph.add_nodes_from(range(size))
        graph.add_edges_from(edges)
        return [(int(a), int(b)) for a, b in rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)]
    nx_graph = nx.Graph()
    nx_graph.add_nodes_from(range(size))
    nx_graph.add_weighted_edges_from(edges)
    return list(nx.max_weight_matching(nx_graph, maxcardinality=True))


def _swiss_costs(setup: SwissSetup) -> tuple[Callable[[TeamId, TeamId], int], int]:
    """The Swiss cost of every game, as ``(cost, top)``: ``cost(a, b)`` an integer and ``top``
    a bound above every cost (a matching edge's weight is ``top - cost``)."""
    players, group_of, group_members = setup.players, setup.group_of, setup.group_members
    pos_in_group, rank_pos, played = setup.pos_in_group, setup.rank_pos, setup.played
    n_groups = setup.n_groups
    n = len(players)
    slots = n // 2
    tie_bound = n + 1
    group_radix = slots + 1
    group_unit = tie_bound * (slots + 1)
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

    return cost, rematch_unit * 2 + 1


def _swiss_general(setup: SwissSetup) -> list[tuple[TeamId, TeamId]]:
    """The matching on teams at most 1, 2, 4, ... score groups apart (see :func:`swiss_round`)."""
    cost, top = _swiss_costs(setup)
    players, group_of = setup.players, setup.group_of

    def solve(max_distance: int | None) -> list[tuple]:
        edges = []
        for i, a in enumerate(players):
            for j in range(i + 1, len(players)):
                b = players[j]
                if max_distance is None or abs(group_of[a] - group_of[b]) <= max_distance:
                    edges.append((i, j, top - cost(a, b)))
        return [(players[i], players[j]) for i, j in _max_weight_matching(len(players), edges)]

    return widening_matching(setup, solve)


def widening_matching(setup: SwissSetup, solve: Callable[[int | None], Collection[tuple]]) -> Collection[tuple]:
    """``solve(d)`` on games at most d = 1, 2, 4, ... score groups apart (``None``: every game)
    until its matching is perfect and rematch-free, or every game was allowed."""
    slots = len(setup.players) // 2
    distance = 1
    while True:
        full = distance >= setup.n_groups - 1
        matching = solve(None if full else distance)
        clean = len(matching) == slots and not any(frozenset(m) in setup.played for m in matching)
        if full or clean:
            break
        distance *= 2
    if len(matching) != slots:  # pragma: no cover - the complete graph always has one
        raise RuntimeError("no complete Swiss pairing found")
    return matching


@dataclass(frozen=True)
class _BlockSolution:
    games: tuple[tuple[TeamId, TeamId], ...]
    up: TeamId | None  # the team pulled up across the boundary above the block
    down: TeamId | None  # the team floated down across the boundary below it


def _canonical_group(
    members: Sequence[TeamId], up: bool, down: bool, played: Collection[frozenset]
) -> _BlockSolution | None:
    """The zero-cost pairing of one score group, if it has no rematch: top half meets bottom
    half at distance g//2, a floater up is the group's top team, a floater down its bottom one."""
    size = len(members)
    half = size // 2
    if up and down:
        if size != 2:
            return None  # no zero-cost pairing exists: leave it to the matching
        return _BlockSolution(games=(), up=members[0], down=members[1])
    first = 1 if up else 0
    rest = size - first - (1 if down else 0)
    if rest % 2:
        return None
    games = tuple((members[i], members[i + half]) for i in range(first, first + rest // 2))
    if any(frozenset(g) in played for g in games):
        return None
    return _BlockSolution(games=games, up=members[0] if up else None, down=members[size - 1] if down else None)


def _solve_block(
    groups: Sequence[Sequence[TeamId]],
    crossings: Sequence[int],
    up: bool,
    down: bool,
    played: Collection[frozenset],
) -> _BlockSolution | None:
    """Least tiebreak cost pairing of consecutive score groups that crosses the i-th boundary
    inside the block exactly ``crossings[i]`` times (0 or 1) with no rematch, with one team
    floating up out of the first group if ``up`` and one floating down out of the last if
    ``down``.  ``None`` when no such pairing exists.

    Games whose tiebreak exceeds a limit are left out of the matching at first, and the limit
    is raised until the best pairing found costs no more than it (or no more than a lower bound).
    That pairing is optimal: tiebreaks are never negative, so a cheaper pairing could hold no
    game dearer than the limit, and every pairing without one was in the graph.  A group whose canonical pairing holds a few
    rematches is thus solved on a graph of a handful of games per team, not all of them.
    """
    if len(groups) == 1:
        canonical = _canonical_group(groups[0], up, down, played)
        if canonical is not None:
            return canonical
    teams = [t for members in groups for t in members]
    starts = [0]
    for members in groups:
        starts.append(starts[-1] + len(members))
    n = len(teams)
    cross_unit = (n + 2) * (n + 1) + 1  # more than any sum of tiebreaks in the block
    top = cross_unit + 2 * n + 2
    up_node = n if up else None
    down_node = n + (1 if up else 0) if down else None
    size_all = n + up + down
    most = 2 * n + 2  # above every tiebreak: the limit at which the graph is complete

    def edges_up_to(limit: int) -> list[tuple[int, int, int]]:
        edges: list[tuple[int, int, int]] = []
        for k, members in enumerate(groups):
            size, base = len(members), starts[k]
            half = size // 2
            # In the group: tiebreak | |i - j| - half | <= limit.
            for i in range(size):
                a = members[i]
                for j in range(i + max(1, half - limit), min(size, i + half + limit + 1)):
                    if frozenset((a, members[j])) not in played:
                        edges.append((base + i, base + j, top - abs(j - i - half)))
            # Across to the next group: tiebreak = distance from this group's bottom + from its top.
            if k + 1 < len(groups):
                below, below_base = groups[k + 1], starts[k + 1]
                for from_bottom in range(min(limit + 1, size)):
                    i = size - 1 - from_bottom
                    for j in range(min(limit - from_bottom + 1, len(below))):
                        if frozenset((members[i], below[j])) not in played:
                            edges.append((base + i, below_base + j, top - cross_unit - from_bottom - j))
        if up:
            edges.extend((up_node, i, top - i) for i in range(min(limit + 1, len(groups[0]))))
        if down:
            last, base = len(groups[-1]), starts[-2]
            edges.extend((down_node, base + i, top - (last - 1 - i)) for i in range(max(0, last - 1 - limit), last))
        return edges

    group_at = [k for k, members in enumerate(groups) for _ in members]
    # A lower bound on the tiebreaks, to stop as soon as it is reached.  One group of size
    # 2h sending a floater up (its team at position u) and one down (at v) costs at least h - 1:
    # the other 2h - 2 teams form h - 1 games each costing |d - h| >= h - d (d their distance
    # in the group), and the distances add up to at most the top h - 1 positions left minus the
    # bottom h - 1, which is (h - 1)^2 when u and v are the group's ends and grows by no more
    # than u + (2h - 1 - v), exactly what those floaters cost.  Rematches only remove games.
    lower = len(groups[0]) // 2 - 1 if len(groups) == 1 and up and down else 0
    limit = 2
    while True:
        edges = edges_up_to(limit)
        weight = {(min(u, v), max(u, v)): w for u, v, w in edges}
        matching = _max_weight_matching(size_all, edges)
        games, got_up, got_down, ties = [], None, None, 0
        crossed = [0] * len(crossings)
        for i, j in matching:
            i, j = min(i, j), max(i, j)
            ties += top - weight[i, j]
            if j == up_node:
                got_up = teams[i]
            elif j == down_node:
                got_down = teams[i]
            else:
                if group_at[i] != group_at[j]:
                    crossed[group_at[i]] += 1
                    ties -= cross_unit
                games.append((teams[i], teams[j]))
        found = 2 * len(matching) == size_all and crossed == list(crossings)
        if found and ties <= max(limit, lower):
            return _BlockSolution(games=tuple(games), up=got_up, down=got_down)
        if limit >= most:
            return None
        # A pairing was found: every cheaper one is in the graph up to its cost.  None was:
        # widen.  Either way the limit grows, and at `most` the graph is complete.
        limit = min(most, ties if found else 2 * limit)


def _swiss_by_blocks(
    players: Sequence[TeamId],
    group_of: Mapping[TeamId, int],
    group_members: Mapping[int, Sequence[TeamId]],
    played: Collection[frozenset],
) -> list[tuple[TeamId, TeamId]] | None:
    """The optimal Swiss matching by score groups (step 1 in :func:`swiss_round`), or ``None``
    when it needs a rematch, more than one floater at a boundary, or the ranks are not in
    score order (then the general matching decides)."""
    groups_in_rank_order = [group_of[t] for t in players]
    if groups_in_rank_order != sorted(groups_in_rank_order):
        return None
    present = sorted(group_members)
    members = [group_members[g] for g in present]
    odd = []  # odd[k]: the boundary below the k-th present group needs one floater
    count = 0
    for group in members[:-1]:
        count += len(group)
        odd.append(count % 2)

    def solve(lo: int, hi: int) -> _BlockSolution | None:
        return _solve_block(
            members[lo : hi + 1],
            odd[lo:hi],
            up=lo > 0 and bool(odd[lo - 1]),
            down=hi < len(members) - 1 and bool(odd[hi]),
            played=played,
        )

    blocks: list[list[int]] = []
    solutions: list[_BlockSolution] = []
    for k in range(len(members)):
        solution = solve(k, k)
        if solution is None:
            return None
        blocks.append([k, k])
        solutions.append(solution)
    merged = True
    while merged:
        merged = False
        for b in range(len(blocks) - 1):
            if not odd[blocks[b][1]]:
                continue
            floater, puller = solutions[b].down, solutions[b + 1].up
            if frozenset((floater, puller)) in played:
                lo, hi = blocks[b][0], blocks[b + 1][1]
                solution = solve(lo, hi)
                if solution is None:
                    return None
                blocks[b : b + 2] = [[lo, hi]]
                solutions[b : b + 2] = [solution]
                merged = True
                break
    games = [g for solution in solutions for g in solution.games]
    for b in range(len(blocks) - 1):
        if odd[blocks[b][1]]:
            games.append((solutions[b].down, solutions[b + 1].up))
    return games


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
    * The rest are paired by a maximum weight matching (``maxcardinality=True``) minimising,
      in strict priority order: (1) the number of rematches, (2) games across score groups --
      lexicographically from the largest group distance down, so a game across non-adjacent
      groups only happens when every pairing without one is impossible (or needs more
      rematches), (3) a tiebreak: inside a group top half meets bottom half (1 v g/2+1, ...),
      across groups the teams closest in rank meet.  These costs are one integer per game
      (``cost`` below); the result is a perfect matching of least total cost.

    How that optimum is found quickly (the result is the same as a matching on the complete
    graph; ``tests/league/test_swiss_exact.py`` checks the total weight against it):

    1. **Score groups as blocks** (:func:`_swiss_by_blocks`).  Counting players down the
       standings, a perfect matching must cross the boundary below a group at least once when
       the count above it is odd, and a game spanning several boundaries costs more than one
       game per boundary (``R**(a+b) - 1 > (R**a - 1) + (R**b - 1)``).  So if every group
       can pair internally, sending exactly one floater across each odd boundary, with no
       rematch, that is the optimum; and then the tiebreak splits into one problem per group
       (a cross game's tiebreak is the floater's distance from the bottom of its group plus the
       pulled-up team's distance from the top of the next).  Each group is solved alone, with a
       dummy node standing for "floats up" or "floats down": first the zero-cost canonical
       pairing (1 v g/2+1 ..., the floater at the group's edge) when it has no rematch --
       costs are never negative, so zero is optimal -- else by a blossom matching on the
       group's games under a tiebreak limit, raised until the result is certified optimal
       (:func:`_solve_block`).  Where the floaters chosen at a boundary have met before, the two neighbouring blocks are
       merged and solved together (their games across that boundary allowed), until no
       boundary has a rematch.
    2. **Otherwise** (rematches or extra floats forced, ranks not in score order -- rare with
       many teams, common with few, and then cheap): the matching
       is first tried on edges between teams at most one score group apart; it is widened (2,
       4, ... groups, finally everything) only if that graph has no perfect rematch-free
       matching.  A perfect rematch-free matching on the narrow graph is optimal on the full
       graph too, because any game further apart costs more than all narrower games together.

    The blossom matching is ``rustworkx``'s (compiled) when the weights fit its 128-bit
    integers, else ``networkx``'s (the same algorithm in Python, unbounded integers).
    """
    setup = swiss_setup(standings, history=history, byes_had=byes_had)
    if not setup.players:
        return SwissRound(pairings=(), bye=setup.bye, bye_reason=setup.bye_reason)
    matching = _swiss_by_blocks(setup.players, setup.group_of, setup.group_members, setup.played)
    if matching is None:
        matching = _swiss_general(setup)
    return setup.round(matching)


@dataclass(frozen=True)
class SwissSetup:
    """What a Swiss round pairs: the bye taken out, the score groups, each player's place."""

    players: tuple[TeamId, ...]  # in standings order, the bye left out
    group_of: Mapping[TeamId, int]  # score group, 1 = the highest score
    group_members: Mapping[int, Sequence[TeamId]]
    pos_in_group: Mapping[TeamId, int]
    rank_pos: Mapping[TeamId, int]
    played: frozenset  # the pairs that already met
    n_groups: int
    bye: TeamId | None = None
    bye_reason: str | None = None

    def cost(self) -> tuple[Callable[[TeamId, TeamId], int], int]:
        """The Swiss cost function and its bound (see :func:`_swiss_costs`)."""
        return _swiss_costs(self)

    def round(self, matching: Iterable[tuple[TeamId, TeamId]]) -> SwissRound:
        """The round for a matching of :attr:`players`: home is the better ranked, each game's reason."""
        pairings: list[SwissPairing] = []
        for a, b in matching:
            home, away = (a, b) if self.rank_pos[a] < self.rank_pos[b] else (b, a)
            gh, ga = self.group_of[home], self.group_of[away]
            if gh == ga:
                reason = f"score group {gh}"
            else:
                reason = f"pulled up from score group {ga}; pulled down from score group {gh}"
            pairings.append(
                SwissPairing(
                    home=home,
                    away=away,
                    reason=reason,
                    rematch=frozenset((a, b)) in self.played,
                    home_group=gh,
                    away_group=ga,
                )
            )
        pairings.sort(key=lambda p: self.rank_pos[p.home])
        return SwissRound(pairings=tuple(pairings), bye=self.bye, bye_reason=self.bye_reason)


def swiss_setup(
    standings: Sequence[SwissEntry],
    *,
    history: Collection[frozenset],
    byes_had: Collection[TeamId] = frozenset(),
    bye: TeamId | None = None,
) -> SwissSetup:
    """The score groups of a Swiss round and its bye (given, or chosen as :func:`swiss_round` says)."""
    entries = sorted(enumerate(standings), key=lambda ie: (ie[1].rank, ie[0]))
    order = [e for _, e in entries]
    ids = _check_unique(e.team_id for e in order)
    scores = sorted({e.score for e in order}, reverse=True)
    group_index = {s: i + 1 for i, s in enumerate(scores)}
    group_of = {e.team_id: group_index[e.score] for e in order}
    played = frozenset(frozenset(p) for p in history if len(frozenset(p)) == 2)

    bye_reason = None
    if bye is None and len(order) % 2:
        byes_set = set(byes_had)
        without = [e for e in order if e.team_id not in byes_set]
        if without:
            bye, bye_reason = without[-1].team_id, BYE_REASON
        else:
            bye, bye_reason = order[-1].team_id, BYE_REASON_ALL_HAD_ONE
    players = tuple(t for t in ids if t != bye)

    # Position of each player inside its score group (among those being paired).
    group_members: dict[int, list[TeamId]] = {}
    for t in players:
        group_members.setdefault(group_of[t], []).append(t)
    return SwissSetup(
        players=players,
        group_of=group_of,
        group_members=group_members,
        pos_in_group={t: i for members in group_members.values() for i, t in enumerate(members)},
        rank_pos={t: i for i, t in enumerate(players)},
        played=played,
        n_groups=len(scores),
        bye=bye,
        bye_reason=bye_reason,
    )


# ---------------------------------------------------------------------------------------------
# 4. Playoffs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BracketMatch:
    """A knockout game.  ``slot`` is the 0-based position within ``round`` (round 1 first);
    the winners of slots 2k and 2k+1 meet in slot k of the next round.  ``away`` is ``None``
    for a first-round bye (``home`` advances).  The better (lower) seed is ``home``."""

    round: int
    slot: int
    home: TeamId
    away: TeamId | None
    home_seed: int
    away_seed: int | None

    @property
    def is_bye(self) -> bool:
        return self.away is None


def _bracket_order(size: int) -> list[int]:
    """Seed order of the first-round lines for a bracket of ``size`` (a power of two).

    Sub-brackets are the standard ones (the two halves of a sub-bracket whose final is played
    with R teams left have top seeds summing to R+1).  Layout: the top seed's sub-bracket is
    drawn first only on seed 1's path; elsewhere the sub-bracket holding the better seed is
    drawn last, and in a first-round game the better seed comes first.  For 16 this gives the
    classic 1,16,8,9,5,12,4,13,6,11,3,14,7,10,2,15.
    """

    def layout(top: int, width: int) -> list[int]:
        if width == 1:
            return [top]
        half = width // 2
        other = 2 * size // width + 1 - top
        if width == 2:
            return [min(top, other), max(top, other)]
        a, b = layout(top, half), layout(other, half)
        return a + b if top == 1 else b + a

    return layout(1, size)


def playoff_bracket(seeded_team_ids: Sequence[TeamId]) -> list[BracketMatch]:
    """First round of a single-elimination bracket; ``seeded_team_ids[0]`` is seed 1.

    Any number of teams >= 2: the bracket is the next power of two and the missing low seeds
    are byes, so the top seeds get them (as ``BracketMatch`` with ``away=None``).
    """
    ids = _check_unique(seeded_team_ids)
    if len(ids) < 2:
        raise ValueError("a playoff needs at least two teams")
    size = 1
    while size < len(ids):
        size *= 2
    order = _bracket_order(size)
    matches = []
    for slot in range(size // 2):
        s1, s2 = order[2 * slot], order[2 * slot + 1]
        hi, lo = min(s1, s2), max(s1, s2)
        away, away_seed = (ids[lo - 1], lo) if lo <= len(ids) else (None, None)
        matches.append(BracketMatch(round=1, slot=slot, home=ids[hi - 1], away=away, home_seed=hi, away_seed=away_seed))
    return matches


def next_round(
    bracket_round_results: Mapping[BracketMatch, TeamId | None] | Iterable[tuple[BracketMatch, TeamId | None]],
) -> list[BracketMatch]:
    """The next round from a complete round's results ``(match, winner)``.

    A bye's winner may be given as ``None`` (its ``home`` advances).  Returns ``[]`` after the
    final.  Raises ``ValueError`` for an incomplete or inconsistent round.
    """
    items = (
        list(bracket_round_results.items())
        if isinstance(bracket_round_results, Mapping)
        else list(bracket_round_results)
    )
    if not items:
        raise ValueError("no results given")
    rounds = {m.round for m, _ in items}
    if len(rounds) != 1:
        raise ValueError("results must all belong to one round")
    (rnd,) = rounds
    by_slot: dict[int, tuple[TeamId, int]] = {}
    for match, winner in items:
        if match.slot in by_slot:
            raise ValueError(f"slot {match.slot} given twice")
        if winner is None:
            if not match.is_bye:
                raise ValueError(f"slot {match.slot} needs a winner")
            winner = match.home
        if winner == match.home:
            by_slot[match.slot] = (match.home, match.home_seed)
        elif winner == match.away and not match.is_bye:
            by_slot[match.slot] = (match.away, match.away_seed)
        else:
            raise ValueError(f"{winner!r} did not play in slot {match.slot}")
    count = len(by_slot)
    if sorted(by_slot) != list(range(count)) or count & (count - 1):
        raise ValueError("results must cover a whole round (slots 0..2^k-1)")
    if count == 1:
        return []
    matches = []
    for slot in range(count // 2):
        (t1, s1), (t2, s2) = by_slot[2 * slot], by_slot[2 * slot + 1]
        if s2 < s1:
            (t1, s1), (t2, s2) = (t2, s2), (t1, s1)
        matches.append(BracketMatch(round=rnd + 1, slot=slot, home=t1, away=t2, home_seed=s1, away_seed=s2))
    return matches


# ---------------------------------------------------------------------------------------------
# 5. Checking a round edited by hand
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairingViolation:
    """A rule of the schedule that an edited round breaks.

    ``rule`` is one of ``plays_twice`` (a team in two games of the round), ``same_owner`` (two
    teams of one player), ``rematch`` (a pair meeting more often than the format allows),
    ``score_groups`` (swiss: teams of different scores), ``unpaired`` (a team with neither a game
    nor a bye in a round where every team has one).
    """

    rule: str
    teams: tuple[TeamId, ...]


def pairing_violations(
    pairings: Sequence[tuple[TeamId, TeamId]],
    *,
    owners: Mapping[TeamId, Hashable],
    meetings: Mapping[frozenset, int],
    max_meetings: int | None,
    scores: Mapping[TeamId, float] | None = None,
    everyone: Collection[TeamId] = (),
    byes: Collection[TeamId] = (),
) -> list[PairingViolation]:
    """Every rule of the schedule broken by a round's ``pairings`` (home, away), in a fixed order.

    ``meetings`` counts each pair's games in the season outside this round; with the round's own
    games a pair may meet at most ``max_meetings`` times (``None``: no limit, as self-arranged
    games). ``scores`` (swiss) flags games between teams of different scores. Teams of
    ``everyone`` (a round where every team plays or sits out) with neither a game nor a bye in
    ``byes`` are reported as unpaired.
    """
    found: list[PairingViolation] = []
    seen: Counter = Counter(t for pair in pairings for t in pair)
    for team in sorted((t for t, n in seen.items() if n > 1), key=repr):
        found.append(PairingViolation("plays_twice", (team,)))
    in_round: Counter = Counter(frozenset(pair) for pair in pairings)
    for home, away in pairings:
        owner = owners.get(home)
        if owner is not None and owner == owners.get(away):
            found.append(PairingViolation("same_owner", (home, away)))
        pair = frozenset((home, away))
        if max_meetings is not None and meetings.get(pair, 0) + in_round[pair] > max_meetings:
            found.append(PairingViolation("rematch", (home, away)))
        if scores is not None and scores.get(home, 0) != scores.get(away, 0):
            found.append(PairingViolation("score_groups", (home, away)))
    placed = set(seen) | set(byes)
    for team in sorted((t for t in everyone if t not in placed), key=repr):
        found.append(PairingViolation("unpaired", (team,)))
    return found
