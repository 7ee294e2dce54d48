"""Exact combat-result probabilities (rules as in :mod:`rules.engine.combat`).

Nothing is sampled.  A pool of ``n`` fair dice is described by its count
vector (how many of each of the six faces), which has multinomial
probability ``n! / (k1! ... k6!) / 6**n``.  The combat outcome depends only
on the two count vectors (eliminations remove ``min(a[X], d[opposite X])``
dice of each element; see :func:`rules.engine.combat.remaining_counts`),
so the exact distribution is a finite weighted sum with integer weights,
returned as :class:`fractions.Fraction`.

Two exact enumerations are provided:

* :func:`combat_odds_by_compositions` -- the literal definition: every pair
  of count vectors (compositions of ``attack`` and ``defense`` into six
  parts), weighted by the two multinomial coefficients.  Used as a reference.
* :func:`combat_odds` -- the same sum, factorised by opposition pair (the
  three pairs Spirit/Void, Earth/Air, Fire/Water never interact during
  eliminations): per pair we enumerate the counts of its two faces, keep
  only (how many more dice the attacker has left than the defender, which
  faces are left per side), and convolve the three pairs with binomial
  weights.  Same integers, much faster.
  Results are cached per ``(attack, defense, policy)``.

Probabilities are keyed by the chosen element, with ``None`` for "every die
was eliminated, no result".  :func:`detailed_odds` also splits by chooser
(Water means different things depending on who picks it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from fractions import Fraction
from functools import cache
from math import comb, factorial

from .combat import DEFAULT_POLICY, ChoosingPolicy, Side, resolve_counts
from .dice import ELEMENTS, OPPOSITION_PAIRS, Element

__all__ = [
    "compositions",
    "multinomial",
    "detailed_odds",
    "combat_odds",
    "chooser_odds",
    "combat_odds_by_compositions",
    "odds_table",
    "MAX_DICE",
]

#: Largest pool size accepted (the enumeration is exact for any size, this
#: only guards against accidental huge requests).
MAX_DICE = 30

Outcome = tuple[Side | None, Element | None]
# State after eliminations: (attacker dice left minus defender dice left,
# bitmask of elements among attacker's dice left, same for defender).  The
# result reads no more: the sign of the difference says who chooses (the
# attacker on a tie), the chooser's mask what it may choose, and no die is
# left when both masks are empty.  The difference adds up over the pairs, so
# the pairs convolve on fewer states than with both counts kept apart.
State = tuple[int, int, int]

_BIT = {e: 1 << i for i, e in enumerate(ELEMENTS)}


def compositions(n: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Yield every tuple of ``parts`` non-negative ints summing to ``n``."""
    if parts == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in compositions(n - first, parts - 1):
            yield (first, *rest)


def multinomial(counts: Iterable[int]) -> int:
    """``(sum counts)! / prod(count!)`` -- ways to roll a given count vector."""
    counts = tuple(counts)
    result = factorial(sum(counts))
    for k in counts:
        result //= factorial(k)
    return result


def _check(attack: int, defense: int) -> None:
    for name, value in (("attack", attack), ("defense", defense)):
        if not isinstance(value, int) or not 0 <= value <= MAX_DICE:
            raise ValueError(f"{name} must be an int in 0..{MAX_DICE}, got {value!r}")


@cache
def _pair_table(pair: int, na: int, nd: int) -> dict[State, int]:
    """Outcome counts of one opposition pair when ``na`` attacker dice and
    ``nd`` defender dice landed on that pair's two faces."""
    x, y = OPPOSITION_PAIRS[pair]
    table: dict[State, int] = defaultdict(int)
    for ax in range(na + 1):
        ay = na - ax
        for dx in range(nd + 1):
            dy = nd - dx
            ax_left, ay_left = ax - min(ax, dy), ay - min(ay, dx)
            dx_left, dy_left = dx - min(dx, ay), dy - min(dy, ax)
            amask = (_BIT[x] if ax_left else 0) | (_BIT[y] if ay_left else 0)
            dmask = (_BIT[x] if dx_left else 0) | (_BIT[y] if dy_left else 0)
            key = (ax_left + ay_left - dx_left - dy_left, amask, dmask)
            table[key] += comb(na, ax) * comb(nd, dx)
    return dict(table)


def _convolve(left: dict[State, int], right: dict[State, int], weight: int, out: dict[State, int]) -> None:
    for (s1, am1, dm1), w1 in left.items():
        for (s2, am2, dm2), w2 in right.items():
            out[(s1 + s2, am1 | am2, dm1 | dm2)] += weight * w1 * w2


@cache
def _two_pairs(na: int, nd: int) -> dict[State, int]:
    """Outcome counts of the first two pairs sharing ``na``/``nd`` dice."""
    out: dict[State, int] = defaultdict(int)
    for a1 in range(na + 1):
        for d1 in range(nd + 1):
            _convolve(
                _pair_table(0, a1, d1),
                _pair_table(1, na - a1, nd - d1),
                comb(na, a1) * comb(nd, d1),
                out,
            )
    return dict(out)


@cache
def _state_counts(attack: int, defense: int) -> dict[State, int]:
    """Number of ordered rolls (out of ``6**(attack+defense)``) leading to
    each post-elimination state.  Independent of the choosing policy."""
    out: dict[State, int] = defaultdict(int)
    for a3 in range(attack + 1):
        for d3 in range(defense + 1):
            _convolve(
                _two_pairs(attack - a3, defense - d3),
                _pair_table(2, a3, d3),
                comb(attack, a3) * comb(defense, d3),
                out,
            )
    return dict(out)


def _mask_elements(mask: int) -> frozenset[Element]:
    return frozenset(e for e in ELEMENTS if mask & _BIT[e])


@cache
def _detailed_counts(attack: int, defense: int, policy: ChoosingPolicy) -> dict[Outcome, int]:
    counts: dict[Outcome, int] = defaultdict(int)
    choice_cache: dict[tuple[Side, int], Element] = {}
    for (margin, amask, dmask), n in _state_counts(attack, defense).items():
        if not amask and not dmask:
            counts[(None, None)] += n
            continue
        # who has more dice left chooses, the attacker on a tie (:func:`~.combat.choosing_side`)
        chooser = Side.ATTACKER if margin >= 0 else Side.DEFENDER
        mask = amask if chooser is Side.ATTACKER else dmask
        key = (chooser, mask)
        if key not in choice_cache:
            available = _mask_elements(mask)
            choice = Element(policy(chooser, available))
            if choice not in available:
                raise ValueError(f"policy chose {choice.value}, not among {sorted(available)}")
            choice_cache[key] = choice
        counts[(chooser, choice_cache[key])] += n
    return dict(counts)


def detailed_odds(attack: int, defense: int, *, policy: ChoosingPolicy = DEFAULT_POLICY) -> dict[Outcome, Fraction]:
    """Exact probability of each ``(chooser, chosen element)``; the key
    ``(None, None)`` is "all dice eliminated".  Only outcomes with non-zero
    probability are present; the values sum to exactly 1."""
    _check(attack, defense)
    total = 6 ** (attack + defense)
    return {k: Fraction(n, total) for k, n in _detailed_counts(attack, defense, policy).items()}


def combat_odds(
    attack: int, defense: int, *, policy: ChoosingPolicy = DEFAULT_POLICY
) -> dict[Element | None, Fraction]:
    """Exact probability of each combat result for ``attack`` attack dice vs
    ``defense`` defense dice under ``policy``.

    Keys: all six elements (the chosen result) plus ``None`` (every die
    eliminated); every key is present, impossible results map to 0.
    """
    odds: dict[Element | None, Fraction] = {e: Fraction(0) for e in ELEMENTS}
    odds[None] = Fraction(0)
    for (_, element), p in detailed_odds(attack, defense, policy=policy).items():
        odds[element] += p
    return odds


def chooser_odds(attack: int, defense: int, *, policy: ChoosingPolicy = DEFAULT_POLICY) -> dict[Side | None, Fraction]:
    """Exact probability that the attacker / defender / nobody chooses."""
    odds: dict[Side | None, Fraction] = {
        Side.ATTACKER: Fraction(0),
        Side.DEFENDER: Fraction(0),
        None: Fraction(0),
    }
    for (side, _), p in detailed_odds(attack, defense, policy=policy).items():
        odds[side] += p
    return odds


def combat_odds_by_compositions(
    attack: int, defense: int, *, policy: ChoosingPolicy = DEFAULT_POLICY
) -> dict[Element | None, Fraction]:
    """Reference implementation of :func:`combat_odds`: sum over every pair
    of count vectors with multinomial weights.  Slow for big pools
    (3003 x 3003 vectors at 10 v 10) -- use for checking only."""
    _check(attack, defense)
    counts: dict[Element | None, int] = dict.fromkeys(ELEMENTS, 0)
    counts[None] = 0
    defense_vectors = [(dict(zip(ELEMENTS, v)), multinomial(v)) for v in compositions(defense, 6)]
    for av in compositions(attack, 6):
        a_counts, a_weight = dict(zip(ELEMENTS, av)), multinomial(av)
        for d_counts, d_weight in defense_vectors:
            _, element = resolve_counts(a_counts, d_counts, policy=policy)
            counts[element] += a_weight * d_weight
    total = 6 ** (attack + defense)
    return {k: Fraction(n, total) for k, n in counts.items()}


def odds_table(
    attacks: Iterable[int] = range(1, 11),
    defenses: Iterable[int] = range(1, 11),
    *,
    policy: ChoosingPolicy = DEFAULT_POLICY,
) -> dict[tuple[int, int], dict[Element | None, Fraction]]:
    """:func:`combat_odds` for every ``(attack, defense)`` combination
    (default Attack 1-10 vs Defense 1-10)."""
    defenses = tuple(defenses)
    return {(a, d): combat_odds(a, d, policy=policy) for a in attacks for d in defenses}
