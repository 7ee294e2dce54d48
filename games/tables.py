"""Tables for multi-player games (issue 17, part 3): Kage Masters plays at tables of 3 to 5.

Pure Python, standard library only.  Players are opaque hashable ids supplied by the caller;
randomness comes from the ``random.Random`` passed in, so a stored seed replays a schedule.

* :func:`table_sizes` -- how many tables, and of which sizes, for ``n`` players: as even as
  possible, every size within the league's range, closest to its preferred size.
* :func:`table_round` -- one round of tables keeping repeat meetings as few as possible (greedy
  seating from several random starts, each improved by swapping players between tables until no
  swap helps; the best start wins).
* :func:`table_schedule` -- several rounds in a row, with the repeat meetings counted and a
  lower bound (:func:`repeat_lower_bound`) to measure them against.
* :func:`swiss_tables` -- multi-player Swiss: tables formed down the standings, avoiding repeats.

A *repeat meeting* is a pair of players at the same table again: a pair that shares a table
``m`` times in a season makes ``m - 1`` repeat meetings.  Players the sizes cannot seat (fewer
than the smallest table, or a remainder no size range can take) get a recorded bye, given to
those with the fewest byes so far.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

__all__ = [
    "MIN_SIZE",
    "MAX_SIZE",
    "PREFERRED_SIZE",
    "Table",
    "TableRound",
    "TableSchedule",
    "table_sizes",
    "table_round",
    "table_schedule",
    "swiss_tables",
    "meeting_counts",
    "repeat_meetings",
    "repeat_lower_bound",
]

PlayerId = Hashable

MIN_SIZE = 3
MAX_SIZE = 5
PREFERRED_SIZE = 4
RESTARTS = 8  # random starts per round; the best one is kept
ITERATIONS = 3000  # tabu search steps over a whole planned season (stops early at the bound)
CONFLICTS_PER_STEP = 20  # players meeting someone again, drawn per step, whose swaps are weighed
SWISS_WINDOW = 3  # a Swiss table looks this many tables' worth of players down the standings

# A pair that has met costs far more than anything else, so the search first minimises the
# number of pairs meeting again, and then prefers pairs that have met the fewest times.
_REPEAT = 1_000_000


@dataclass(frozen=True)
class Table:
    """One table: its players (seat order as drawn) and the pairs among them that had already met."""

    number: int
    players: tuple[PlayerId, ...]
    repeat_pairs: tuple[frozenset, ...] = ()

    @property
    def repeats(self) -> int:
        return len(self.repeat_pairs)


@dataclass(frozen=True)
class TableRound:
    number: int
    tables: tuple[Table, ...]
    byes: tuple[PlayerId, ...] = ()

    @property
    def repeats(self) -> int:
        """Pairs at this round's tables that had met before it."""
        return sum(t.repeats for t in self.tables)

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(t.players) for t in self.tables)


@dataclass(frozen=True)
class TableSchedule:
    rounds: tuple[TableRound, ...]
    repeats: int  # repeat meetings over the schedule (a pair meeting m times counts m - 1)
    lower_bound: int  # no schedule with these table sizes can have fewer (repeat_lower_bound)


def _check_sizes(min_size: int, max_size: int, preferred: int) -> None:
    if not 2 <= min_size <= max_size:
        raise ValueError("table sizes need 2 <= min_size <= max_size")
    if not min_size <= preferred <= max_size:
        raise ValueError("the preferred size must be within min_size..max_size")


def _unique(players: Iterable[PlayerId]) -> list[PlayerId]:
    ids = list(players)
    if len(set(ids)) != len(ids):
        raise ValueError("player ids must be unique")
    return ids


def table_sizes(
    n: int, *, min_size: int = MIN_SIZE, max_size: int = MAX_SIZE, preferred: int = PREFERRED_SIZE
) -> tuple[int, ...]:
    """Table sizes (largest first) seating as many of ``n`` players as the range allows.

    Among the numbers of tables that seat the most players, the one whose sizes are closest to
    ``preferred`` (least total distance) wins, ties going to more, smaller tables (shorter games).
    Sizes differ by at most one.  With 3 to 5: 5 -> (5,), 6 -> (3, 3), 9 -> (5, 4),
    10 -> (4, 3, 3), 64 -> sixteen 4s; fewer than 3 players -> no table (all byes).
    """
    _check_sizes(min_size, max_size, preferred)
    if n < 0:
        raise ValueError("n must not be negative")
    for seated in range(n, -1, -1):
        options = []
        for k in range(1, seated // min_size + 1):
            if k * min_size <= seated <= k * max_size:
                q, r = divmod(seated, k)
                sizes = (q + 1,) * r + (q,) * (k - r)
                options.append((sum(abs(s - preferred) for s in sizes), -k, sizes))
        if options:
            return min(options)[2]
    return ()


def meeting_counts(tables: Iterable[Collection[PlayerId]]) -> Counter:
    """How many times each pair (a frozenset) has shared a table."""
    counts: Counter = Counter()
    for table in tables:
        for a, b in combinations(list(table), 2):
            counts[frozenset((a, b))] += 1
    return counts


def repeat_meetings(rounds: Iterable[TableRound]) -> int:
    """Repeat meetings over ``rounds``: the sum over pairs of (times met - 1), for pairs that met."""
    counts = meeting_counts(t.players for r in rounds for t in r.tables)
    return sum(m - 1 for m in counts.values())


def _min_overlap(sizes: Sequence[int], other: Sequence[int], n: int | None = None) -> int:
    """The fewest pairs that can share a table in two rounds with table sizes ``sizes`` and
    ``other`` (same ``n`` players): each table of the second round draws its players from the
    first round's tables, or from the players who had a bye then (each met nobody: a "table" of
    one), and spreading them as evenly as the tables allow is the least it can re-pair (a
    relaxation: each table on its own, so a lower bound)."""
    sat_out = max(0, (n if n is not None else sum(sizes)) - sum(sizes))
    total = 0
    for s in other:
        caps = sorted([*sizes, *[1] * sat_out])
        # Fill one player at a time into the first-round table with the fewest drawn so far
        # that still has room: the even spread, which minimises the sum of C(x, 2).
        drawn = [0] * len(caps)
        for _ in range(s):
            best = min((x, i) for i, x in enumerate(drawn) if x < caps[i])[1]
            total += drawn[best]  # the new player meets everyone already drawn from that table
            drawn[best] += 1
    return total


def repeat_lower_bound(n: int, round_sizes: Sequence[Sequence[int]]) -> int:
    """A lower bound on the repeat meetings of any schedule of ``n`` players whose rounds have
    the given table sizes.  The larger of:

    * pair counting: a round with tables of sizes s_i seats sum C(s_i, 2) pairs; over all rounds
      that is T meetings among at most C(n, 2) distinct pairs, so at least T - C(n, 2) repeat;
    * pigeonhole on two rounds: a pair that shares a table in two rounds is a repeat, and any
      two rounds share at least :func:`_min_overlap` pairs (a table of round 2 larger than the
      number of round-1 tables must take two players from one of them).
    """
    if n < 0:
        raise ValueError("n must not be negative")
    meetings = sum(comb(s, 2) for sizes in round_sizes for s in sizes)
    bound = max(0, meetings - comb(n, 2))
    distinct = {tuple(sorted(s)) for s in round_sizes}
    rounds_of = Counter(tuple(sorted(s)) for s in round_sizes)
    for a in distinct:
        for b in distinct:
            if a != b or rounds_of[a] >= 2:
                bound = max(bound, _min_overlap(a, b, n))
    return bound


def _pick_byes(
    ids: Sequence[PlayerId], count: int, bye_count: Mapping[PlayerId, int], rng: random.Random
) -> list[PlayerId]:
    """``count`` players with the fewest byes so far, ties drawn at random."""
    if count <= 0:
        return []
    keyed = sorted(ids, key=lambda p: (bye_count.get(p, 0), rng.random()))
    return keyed[:count]


def _bye_counts(byes: Mapping[PlayerId, int] | Iterable[PlayerId]) -> Counter:
    if isinstance(byes, Mapping):
        return Counter({p: int(c) for p, c in byes.items()})
    return Counter(byes)


class _Seating:
    """Players as indices 0..n-1 with an n x n matrix of pair costs, seated at tables of fixed sizes."""

    def __init__(self, weights: list[list[int]], sizes: Sequence[int], rng: random.Random) -> None:
        self.w = weights
        self.sizes = list(sizes)
        self.rng = rng

    def greedy(self) -> list[list[int]]:
        """Seat players in a random order, each at the open table where they add the least cost."""
        order = list(range(len(self.w)))
        self.rng.shuffle(order)
        tables: list[list[int]] = [[] for _ in self.sizes]
        for p in order:
            options = [
                (sum(self.w[p][q] for q in table), self.rng.random(), i)
                for i, table in enumerate(tables)
                if len(table) < self.sizes[i]
            ]
            tables[min(options)[2]].append(p)
        return tables

    def cost(self, tables: list[list[int]]) -> int:
        return sum(self.w[a][b] for table in tables for a, b in combinations(table, 2))

    def improve(self, tables: list[list[int]]) -> list[list[int]]:
        """Best-improvement swaps of two players at different tables until none lowers the cost."""
        w = self.w
        while True:
            # to_table[p][t]: what player p costs with everyone at table t.
            to_table = [[sum(wp[q] for q in table) for table in tables] for wp in w]
            best_delta, best_swap = 0, None
            for i in range(len(tables)):
                for j in range(i + 1, len(tables)):
                    for x, a in enumerate(tables[i]):
                        ta, wa = to_table[a], w[a]
                        base = ta[j] - ta[i]
                        for y, b in enumerate(tables[j]):
                            tb = to_table[b]
                            delta = base + tb[i] - tb[j] - 2 * wa[b]
                            if delta < best_delta:
                                best_delta, best_swap = delta, (i, x, j, y)
            if best_swap is None:
                return tables
            i, x, j, y = best_swap
            tables[i][x], tables[j][y] = tables[j][y], tables[i][x]


def _weights(ids: Sequence[PlayerId], counts: Mapping[frozenset, int]) -> list[list[int]]:
    index = {p: i for i, p in enumerate(ids)}
    w = [[0] * len(ids) for _ in ids]
    for pair, m in counts.items():
        if m <= 0 or len(pair) != 2:
            continue
        a, b = tuple(pair)
        if a in index and b in index:
            i, j = index[a], index[b]
            w[i][j] = w[j][i] = _REPEAT + m
    return w


def _make_round(
    number: int, seated: Sequence[Sequence[PlayerId]], counts: Mapping[frozenset, int], byes: Sequence[PlayerId]
) -> TableRound:
    tables = []
    for k, players in enumerate(seated, start=1):
        repeats = tuple(frozenset((a, b)) for a, b in combinations(players, 2) if counts.get(frozenset((a, b)), 0) > 0)
        tables.append(Table(number=k, players=tuple(players), repeat_pairs=repeats))
    return TableRound(number=number, tables=tuple(tables), byes=tuple(byes))


def table_round(
    players: Sequence[PlayerId],
    *,
    history: Iterable[Collection[PlayerId]] = (),
    rng: random.Random,
    byes: Mapping[PlayerId, int] | Iterable[PlayerId] = (),
    number: int = 1,
    min_size: int = MIN_SIZE,
    max_size: int = MAX_SIZE,
    preferred: int = PREFERRED_SIZE,
    restarts: int = RESTARTS,
) -> TableRound:
    """One round of tables for ``players``.

    ``history`` holds the tables already played (each a collection of player ids; a player not
    in ``players`` is ignored); ``byes`` the byes had so far (a mapping to counts, or the
    recipients with repeats).  Sizes come from :func:`table_sizes`.  The seating minimises, in
    order, the number of pairs meeting again and then how often those pairs have met, searched
    from ``restarts`` random greedy seatings, each improved by the best swap of two players
    between tables until no swap helps; the first seating with no repeat ends the search.
    Tables are listed largest first, players in the order they were seated.
    """
    ids = _unique(players)
    if restarts < 1:
        raise ValueError("restarts must be at least 1")
    sizes = table_sizes(len(ids), min_size=min_size, max_size=max_size, preferred=preferred)
    counts = meeting_counts(history)
    bye_list = _pick_byes(ids, len(ids) - sum(sizes), _bye_counts(byes), rng)
    on_bye = set(bye_list)
    sitting = [p for p in ids if p not in on_bye]
    if not sizes:
        return TableRound(number=number, tables=(), byes=tuple(bye_list))
    seating = _Seating(_weights(sitting, counts), sizes, rng)
    best, best_cost = None, None
    for _ in range(restarts):
        tables = seating.improve(seating.greedy())
        cost = seating.cost(tables)
        if best_cost is None or cost < best_cost:
            best, best_cost = tables, cost
        if cost == 0:
            break
    assert best is not None
    seated = [[sitting[i] for i in table] for table in best]
    return _make_round(number, seated, counts, bye_list)


def _improve_schedule(
    rounds: list[list[list[int]]], n: int, rng: random.Random, iterations: int, target: int
) -> list[list[list[int]]]:
    """Tabu search over the whole schedule (as in Dotú and Van Hentenryck's social golfer
    search): each step swaps two players of one round between tables, choosing the best swap
    that moves a player who meets someone again at that table, even if it makes things worse,
    except swaps undone too recently (tabu) unless they beat the best so far.  Returns the best
    schedule seen: by repeat meetings, which it never worsens, stopping at ``target``."""
    met = [[0] * n for _ in range(n)]
    for tables in rounds:
        for table in tables:
            for a, b in combinations(table, 2):
                met[a][b] += 1
                met[b][a] += 1
    table_of = [[0] * n for _ in rounds]
    for r, tables in enumerate(rounds):
        for t, table in enumerate(tables):
            for p in table:
                table_of[r][p] = t

    def repeats() -> int:
        return sum(m - 1 for row in met for m in row if m > 1) // 2

    current = repeats()
    best, best_rounds = current, [[list(t) for t in tables] for tables in rounds]
    tabu: dict[tuple[int, int], int] = {}
    tenure = 4 + n // 8
    for step in range(iterations):
        if best <= target:
            break
        conflicts = [
            (r, a_table, a)
            for r, tables in enumerate(rounds)
            for a_table, table in enumerate(tables)
            for a in table
            if any(met[a][x] > 1 for x in table if x != a)
        ]
        if len(conflicts) > CONFLICTS_PER_STEP:
            conflicts = rng.sample(conflicts, CONFLICTS_PER_STEP)
        moves: list[tuple[int, float, int, int, int]] = []
        for r, a_table, a in conflicts:
            tables = rounds[r]
            table = tables[a_table]
            ma = met[a]
            lose_a = sum(1 for x in table if x != a and ma[x] > 1)
            for b_table, other in enumerate(tables):
                if b_table == a_table:
                    continue
                gain_a = sum(1 for y in other if ma[y] > 0)
                for b in other:
                    mb = met[b]
                    delta = (
                        gain_a
                        - (1 if ma[b] > 0 else 0)
                        - lose_a
                        + sum(1 for x in table if x != a and mb[x] > 0)
                        - sum(1 for y in other if y != b and mb[y] > 1)
                    )
                    allowed = tabu.get((r, a), -1) < step and tabu.get((r, b), -1) < step
                    if allowed or current + delta < best:
                        moves.append((delta, rng.random(), r, a, b))
        if not moves:
            continue  # every swap weighed is tabu: the next step draws others, tabu expires
        delta, _, r, a, b = min(moves)
        ta, tb = table_of[r][a], table_of[r][b]
        for x in rounds[r][ta]:
            if x != a:
                met[a][x] -= 1
                met[x][a] -= 1
                met[b][x] += 1
                met[x][b] += 1
        for y in rounds[r][tb]:
            if y != b:
                met[b][y] -= 1
                met[y][b] -= 1
                met[a][y] += 1
                met[y][a] += 1
        rounds[r][ta][rounds[r][ta].index(a)] = b
        rounds[r][tb][rounds[r][tb].index(b)] = a
        table_of[r][a], table_of[r][b] = tb, ta
        tabu[(r, a)] = tabu[(r, b)] = step + tenure + rng.randrange(3)
        current += delta
        if current < best:
            best, best_rounds = current, [[list(t) for t in tables] for tables in rounds]
    return best_rounds


def table_schedule(
    players: Sequence[PlayerId],
    rounds: int,
    *,
    rng: random.Random,
    min_size: int = MIN_SIZE,
    max_size: int = MAX_SIZE,
    preferred: int = PREFERRED_SIZE,
    restarts: int = RESTARTS,
    iterations: int = ITERATIONS,
) -> TableSchedule:
    """A season of ``rounds`` rounds planned at once, with its repeat meetings and the lower
    bound for the same table sizes.

    Built round by round with :func:`table_round` (each seeing the ones before; byes to the
    fewest byes so far), then, unless that already meets the lower bound, improved as a whole
    by a tabu search of up to ``iterations`` swaps (:func:`_improve_schedule`), which keeps the
    best schedule seen.  The same ``rng`` seed gives the same schedule.
    """
    ids = _unique(players)
    if rounds < 0:
        raise ValueError("rounds must not be negative")
    if iterations < 0:
        raise ValueError("iterations must not be negative")
    played: list[tuple[PlayerId, ...]] = []
    bye_count: Counter = Counter()
    made: list[TableRound] = []
    for number in range(1, rounds + 1):
        rnd = table_round(
            ids,
            history=played,
            rng=rng,
            byes=bye_count,
            number=number,
            min_size=min_size,
            max_size=max_size,
            preferred=preferred,
            restarts=restarts,
        )
        made.append(rnd)
        played.extend(t.players for t in rnd.tables)
        bye_count.update(rnd.byes)
    bound = repeat_lower_bound(len(ids), [r.sizes for r in made])
    if iterations and repeat_meetings(made) > bound:
        index = {p: i for i, p in enumerate(ids)}
        improved = _improve_schedule(
            [[[index[p] for p in t.players] for t in r.tables] for r in made], len(ids), rng, iterations, bound
        )
        history: list[list[PlayerId]] = []
        rebuilt = []
        for rnd, tables in zip(made, improved):
            seated = [[ids[i] for i in table] for table in tables]
            rebuilt.append(_make_round(rnd.number, seated, meeting_counts(history), rnd.byes))
            history.extend(seated)
        made = rebuilt
    return TableSchedule(rounds=tuple(made), repeats=repeat_meetings(made), lower_bound=bound)


def swiss_tables(
    standings: Sequence[PlayerId],
    *,
    history: Iterable[Collection[PlayerId]] = (),
    byes: Mapping[PlayerId, int] | Iterable[PlayerId] = (),
    number: int = 1,
    min_size: int = MIN_SIZE,
    max_size: int = MAX_SIZE,
    preferred: int = PREFERRED_SIZE,
    window: int = SWISS_WINDOW,
) -> TableRound:
    """Multi-player Swiss: tables formed down the standings (``standings[0]`` is the leader).

    Byes (when the sizes cannot seat everyone) go to the lowest-ranked players with the fewest
    byes.  Then table 1 (the largest size first, as :func:`table_sizes` lists them) takes the
    best-placed player not yet seated, and fills each further seat with the best-placed
    unseated player among the next ``window`` tables' worth who adds the fewest pairs that have
    met before (then the fewest earlier meetings); so with no history the tables are the
    standings cut into consecutive blocks.  Table 2 starts from the best-placed player left,
    and so on.  Deterministic: no random source is needed.
    """
    ids = _unique(standings)
    if window < 1:
        raise ValueError("window must be at least 1")
    sizes = table_sizes(len(ids), min_size=min_size, max_size=max_size, preferred=preferred)
    counts = meeting_counts(history)
    bye_count = _bye_counts(byes)
    rank = {p: i for i, p in enumerate(ids)}
    spare = len(ids) - sum(sizes)
    bye_list = sorted(ids, key=lambda p: (bye_count.get(p, 0), -rank[p]))[:spare]
    on_bye = set(bye_list)
    left = [p for p in ids if p not in on_bye]
    seated: list[list[PlayerId]] = []
    for size in sizes:
        table = [left.pop(0)]
        reach = window * max_size
        while len(table) < size:
            candidates = left[:reach]

            def added(p: PlayerId, table: list[PlayerId] = table) -> tuple[int, int, int]:
                met = [counts.get(frozenset((p, q)), 0) for q in table]
                return (sum(m > 0 for m in met), sum(met), rank[p])

            choice = min(candidates, key=added)
            left.remove(choice)
            table.append(choice)
        seated.append(table)
    return _make_round(number, seated, counts, bye_list)
