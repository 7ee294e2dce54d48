"""Close combat resolution (rulebook: "Combat", "Assists", "Back Strike",
"Rerolls", "Ability And Card Timing").

Procedure, as written:

1. *The attacker rolls a number of Ninja All-Stars dice equal to its Attack
   attribute. The defender rolls a number of dice equal to its Defense
   attribute.*  The core rules set no minimum pool: a pool of 0 rolls no dice
   (e.g. Tiger Strike: "the chunin does not roll any defense dice").  Only
   specific abilities impose a minimum ("-2 Attack, to a minimum of 1"),
   which callers apply when sizing the pool.
2. Rerolls happen *before* eliminations ("Effects that allow or require
   rerolls must be played before eliminations are made"); a die that has
   been rerolled cannot be rerolled again -- see :func:`rules.engine.dice.reroll`.
3. Eliminations: Spirit/Void, Earth/Air and Fire/Water eliminate each other;
   *Dice that the attacker rolled can only eliminate dice that the defender
   rolled and vice versa. All possible eliminations must be made.*
   Reading: an attacker die of element X is removed together with one
   defender die of the opposite element, and this repeats until no attacker
   die has an opposite among the defender's remaining dice.  Because every
   element has exactly one opposite, the number of eliminations is forced:
   for each element X, ``min(attacker X, defender opposite(X))`` pairs go.
   (Two dice in the *same* pool never eliminate each other.)
4. *The player with the most dice remaining chooses a single die from the
   dice remaining as the result ... only from the dice they rolled. When
   both players have the same number of dice remaining, the attacker
   chooses.*  If every die was eliminated (or nobody rolled), there is no
   die to choose: the attack has no result (:attr:`CombatEffect.NO_EFFECT`).
5. The chosen element gives the result (see :class:`CombatEffect`).

Which die the chooser picks is a decision; automated resolution uses a
:class:`ChoosingPolicy` (default :data:`DEFAULT_POLICY`, a fixed
preference order per side).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from .dice import (
    ELEMENTS,
    DicePool,
    Element,
    RerollEvent,
    as_element,
    opposite,
    parse_faces,
    reroll,
    roll_pool,
)

__all__ = [
    "Side",
    "CombatEffect",
    "ChoosingPolicy",
    "PreferencePolicy",
    "DEFAULT_POLICY",
    "ATTACKER_PREFERENCE",
    "DEFENDER_PREFERENCE",
    "EliminatedPair",
    "CombatResult",
    "attack_pool_size",
    "defense_pool_size",
    "eliminate",
    "choosing_side",
    "remaining_counts",
    "resolve_counts",
    "combat_effect",
    "roll_combat",
    "resolve_combat",
    "combat",
    "reroll",
]


class Side(str, Enum):
    """The two sides of a combat."""

    ATTACKER = "attacker"
    DEFENDER = "defender"


class CombatEffect(str, Enum):
    """What the chosen element does ("Combat"; "Ranged Combat").

    * Spirit -> ``ATTACKER_INJURED``: the attacker is Injured.
    * Void -> ``DEFENDER_INJURED``: the defender is Injured.
    * Earth -> ``DEFENDER_STUNNED``: the defender is Stunned.
    * Air -> ``DEFENDER_MOVED``: the attacker may move the defender up to
      three spaces in any direction.
    * Water -> ``ATTACKER_MOVED``: the player who picked Water may move the
      attacker up to three spaces; the defending player then places the
      defender in the attacker's front influence zone.
    * Fire -> ``ALL_STUNNED``: all models in the attacker's influence zone,
      including the attacker, are Stunned.
    * no die left, or a ranged result other than Earth/Void -> ``NO_EFFECT``.
    """

    ATTACKER_INJURED = "attacker_injured"
    DEFENDER_INJURED = "defender_injured"
    DEFENDER_STUNNED = "defender_stunned"
    DEFENDER_MOVED = "defender_moved"
    ATTACKER_MOVED = "attacker_moved"
    ALL_STUNNED = "all_stunned"
    NO_EFFECT = "no_effect"


_EFFECTS: dict[Element, CombatEffect] = {
    Element.SPIRIT: CombatEffect.ATTACKER_INJURED,
    Element.VOID: CombatEffect.DEFENDER_INJURED,
    Element.EARTH: CombatEffect.DEFENDER_STUNNED,
    Element.AIR: CombatEffect.DEFENDER_MOVED,
    Element.WATER: CombatEffect.ATTACKER_MOVED,
    Element.FIRE: CombatEffect.ALL_STUNNED,
}


def combat_effect(result: Element | None, *, ranged: bool = False) -> CombatEffect:
    """Map a chosen element to its effect ("Combat").

    For ranged attacks *the only elemental results that cause any effect are
    Earth and Void* ("Ranged Combat"); other results give ``NO_EFFECT``.
    """
    if result is None:
        return CombatEffect.NO_EFFECT
    result = as_element(result)
    if ranged and result not in (Element.EARTH, Element.VOID):
        return CombatEffect.NO_EFFECT
    return _EFFECTS[result]


class ChoosingPolicy(Protocol):
    """How the choosing player picks the result.

    Called with the choosing side and the set of distinct elements among
    that side's remaining dice (never empty); must return one of them.
    A policy must depend only on these arguments (the exact odds in
    :mod:`rules.engine.odds` rely on it) and be hashable.
    """

    def __call__(self, chooser: Side, available: frozenset[Element]) -> Element: ...


#: Attacker's default preference, best first: kill (Void) > stun the
#: defender (Earth) > stun everything around, attacker included (Fire) >
#: push the defender (Air) > reposition (Water) > Spirit (attacker Injured,
#: only taken when it is the only die left).
ATTACKER_PREFERENCE: tuple[Element, ...] = (
    Element.VOID,
    Element.EARTH,
    Element.FIRE,
    Element.AIR,
    Element.WATER,
    Element.SPIRIT,
)

#: Defender's default preference, best first: Spirit (attacker Injured) >
#: Water (the defender's player moves the attacker and re-places the
#: defender) > Air (defender only moved) > Fire (defender Stunned but so is
#: the attacker) > Earth (defender Stunned) > Void (defender Injured).
DEFENDER_PREFERENCE: tuple[Element, ...] = (
    Element.SPIRIT,
    Element.WATER,
    Element.AIR,
    Element.FIRE,
    Element.EARTH,
    Element.VOID,
)


@dataclass(frozen=True)
class PreferencePolicy:
    """A :class:`ChoosingPolicy` given by a fixed preference order per side:
    the chooser takes the first element in its order that it has left."""

    attacker_order: tuple[Element, ...] = ATTACKER_PREFERENCE
    defender_order: tuple[Element, ...] = DEFENDER_PREFERENCE

    def __post_init__(self) -> None:
        for name in ("attacker_order", "defender_order"):
            order = tuple(Element(e) for e in getattr(self, name))
            if sorted(order, key=ELEMENTS.index) != list(ELEMENTS):
                raise ValueError(f"{name} must list each of the six elements once")
            object.__setattr__(self, name, order)

    def __call__(self, chooser: Side, available: frozenset[Element]) -> Element:
        order = self.attacker_order if chooser is Side.ATTACKER else self.defender_order
        for element in order:
            if element in available:
                return element
        raise ValueError("the chooser has no dice left to choose from")


#: The default choosing policy (see :data:`ATTACKER_PREFERENCE`,
#: :data:`DEFENDER_PREFERENCE`).
DEFAULT_POLICY = PreferencePolicy()


def attack_pool_size(
    attack: int,
    *,
    assist_bonus: int = 0,
    back_strike: bool = False,
    back_strike_bonus: int = 1,
    stealth: bool = False,
    modifier: int = 0,
    minimum: int = 0,
) -> int:
    """Number of attack dice: Attack + assists + back strike + Stealth.

    "Assists": +1 Attack per friendly model in the defender's influence zone
    (pass the summed ``assist_bonus``; Combined Attack makes one assist +2).
    "Back Strike": +1 Attack (``back_strike_bonus=2`` for Backstab).
    "Stealth Combat": +1 Attack when attacking from Stealth (not ranged).
    ``modifier`` covers other effects; ``minimum`` applies effects written
    "to a minimum of 1".  Never below 0.
    """
    dice = attack + assist_bonus + modifier
    if back_strike:
        dice += back_strike_bonus
    if stealth:
        dice += 1
    return max(dice, minimum, 0)


def defense_pool_size(defense: int, *, assist_bonus: int = 0, modifier: int = 0, minimum: int = 0) -> int:
    """Number of defense dice: Defense + assists ("Assists": +1 Defense per
    friendly model in the attacker's influence zone; Guard makes one assist
    +2) + ``modifier``, at least ``minimum`` and never below 0."""
    return max(defense + assist_bonus + modifier, minimum, 0)


@dataclass(frozen=True)
class EliminatedPair:
    """An attacker die and a defender die that eliminated each other."""

    attack_index: int
    defense_index: int
    attack_face: Element
    defense_face: Element


def eliminate(
    attack_faces: Sequence[Element], defense_faces: Sequence[Element]
) -> tuple[tuple[EliminatedPair, ...], tuple[int, ...], tuple[int, ...]]:
    """Make all possible eliminations ("Combat").

    Each attacker die (in roll order) is paired with the first unused
    defender die of the opposite element.  Since each element has exactly
    one opposite this greedy pairing is maximal and the remaining faces do
    not depend on the order.  Returns ``(pairs, attacker_remaining_indices,
    defender_remaining_indices)``.
    """
    # the defender's dice by face, in roll order: each attacker die takes the first still free
    free: dict[Element, list[int]] = {}
    for di, dface in enumerate(defense_faces):
        if isinstance(dface, Element):  # only an element can be its opposite
            free.setdefault(dface, []).append(di)
    used: set[int] = set()
    pairs: list[EliminatedPair] = []
    attack_left: list[int] = []
    for ai, face in enumerate(attack_faces):
        left = free.get(opposite(face))
        if left:
            di = left.pop(0)
            used.add(di)
            pairs.append(EliminatedPair(ai, di, face, defense_faces[di]))
        else:
            attack_left.append(ai)
    defense_left = tuple(i for i in range(len(defense_faces)) if i not in used)
    return tuple(pairs), tuple(attack_left), defense_left


def choosing_side(attack_left: int, defense_left: int) -> Side | None:
    """Who chooses the result: the side with more dice remaining, the
    attacker on a tie, nobody (``None``) if no dice remain at all."""
    if attack_left == 0 and defense_left == 0:
        return None
    return Side.ATTACKER if attack_left >= defense_left else Side.DEFENDER


def remaining_counts(
    attack_counts: Mapping[Element, int], defense_counts: Mapping[Element, int]
) -> tuple[dict[Element, int], dict[Element, int]]:
    """Per-element dice left after eliminations, from per-element counts.

    ``attacker X left = a[X] - min(a[X], d[opposite X])`` and symmetrically.
    """
    a = {e: attack_counts.get(e, 0) for e in ELEMENTS}
    d = {e: defense_counts.get(e, 0) for e in ELEMENTS}
    a_left = {e: a[e] - min(a[e], d[opposite(e)]) for e in ELEMENTS}
    d_left = {e: d[e] - min(d[e], a[opposite(e)]) for e in ELEMENTS}
    return a_left, d_left


def resolve_counts(
    attack_counts: Mapping[Element, int],
    defense_counts: Mapping[Element, int],
    *,
    policy: ChoosingPolicy = DEFAULT_POLICY,
) -> tuple[Side | None, Element | None]:
    """Resolve a combat given only how many of each face each side rolled.

    Returns ``(chooser, chosen element)``, ``(None, None)`` when every die
    was eliminated.  Same rules and policy as :func:`resolve_combat`.
    """
    a_left, d_left = remaining_counts(attack_counts, defense_counts)
    chooser = choosing_side(sum(a_left.values()), sum(d_left.values()))
    if chooser is None:
        return None, None
    pool = a_left if chooser is Side.ATTACKER else d_left
    available = frozenset(e for e, n in pool.items() if n > 0)
    return chooser, _apply_policy(policy, chooser, available)


def _apply_policy(policy: ChoosingPolicy, chooser: Side, available: frozenset[Element]) -> Element:
    """Call ``policy`` and check it returned a die the chooser actually has."""
    choice = as_element(policy(chooser, available))
    if choice not in available:
        raise ValueError(f"policy chose {choice.value}, not among {sorted(available)}")
    return choice


@dataclass(frozen=True)
class CombatResult:
    """Everything about one resolved combat, for display and storage.

    ``attack_faces``/``defense_faces`` are the faces after rerolls (indices
    are stable); ``attack_initial``/``defense_initial`` the first roll and
    ``attack_rerolls``/``defense_rerolls`` each reroll.  ``eliminated``
    lists the cancelled pairs, ``attack_remaining``/``defense_remaining``
    the indices of surviving dice.  ``chooser`` is the side that picked
    ``chosen_index`` (an index into its own faces) giving ``result``;
    all three are ``None`` when every die was eliminated.
    """

    attack_faces: tuple[Element, ...]
    defense_faces: tuple[Element, ...]
    eliminated: tuple[EliminatedPair, ...]
    attack_remaining: tuple[int, ...]
    defense_remaining: tuple[int, ...]
    chooser: Side | None
    chosen_index: int | None
    result: Element | None
    attack_initial: tuple[Element, ...] = ()
    defense_initial: tuple[Element, ...] = ()
    attack_rerolls: tuple[RerollEvent, ...] = ()
    defense_rerolls: tuple[RerollEvent, ...] = ()

    @property
    def attack_remaining_faces(self) -> tuple[Element, ...]:
        """Faces of the attacker's dice left after eliminations."""
        return tuple(self.attack_faces[i] for i in self.attack_remaining)

    @property
    def defense_remaining_faces(self) -> tuple[Element, ...]:
        """Faces of the defender's dice left after eliminations."""
        return tuple(self.defense_faces[i] for i in self.defense_remaining)

    @property
    def effect(self) -> CombatEffect:
        """The close-combat effect of :attr:`result` (see :func:`combat_effect`)."""
        return combat_effect(self.result)

    @property
    def all_eliminated(self) -> bool:
        """True when no die survived eliminations (no result)."""
        return self.chooser is None


def _as_pool(dice: DicePool | Sequence[Element | str]) -> DicePool:
    return dice if isinstance(dice, DicePool) else DicePool(faces=parse_faces(dice))


def resolve_combat(
    attack: DicePool | Sequence[Element | str],
    defense: DicePool | Sequence[Element | str],
    *,
    policy: ChoosingPolicy = DEFAULT_POLICY,
) -> CombatResult:
    """Resolve a combat from rolled (and possibly rerolled) dice ("Combat").

    Deterministic: eliminations (see :func:`eliminate`), then the side with
    more dice left (attacker on a tie) picks one of its own remaining dice
    using ``policy``; the first remaining die of that element is recorded as
    ``chosen_index``.  Accepts :class:`DicePool` (keeps reroll history) or
    plain face sequences (scripted dice).
    """
    a_pool, d_pool = _as_pool(attack), _as_pool(defense)
    pairs, a_left, d_left = eliminate(a_pool.faces, d_pool.faces)
    chooser = choosing_side(len(a_left), len(d_left))
    chosen_index: int | None = None
    result: Element | None = None
    if chooser is not None:
        faces, left = (a_pool.faces, a_left) if chooser is Side.ATTACKER else (d_pool.faces, d_left)
        result = _apply_policy(policy, chooser, frozenset(faces[i] for i in left))
        chosen_index = next(i for i in left if faces[i] is result)
    return CombatResult(
        attack_faces=a_pool.faces,
        defense_faces=d_pool.faces,
        eliminated=pairs,
        attack_remaining=a_left,
        defense_remaining=d_left,
        chooser=chooser,
        chosen_index=chosen_index,
        result=result,
        attack_initial=a_pool.initial,
        defense_initial=d_pool.initial,
        attack_rerolls=a_pool.history,
        defense_rerolls=d_pool.history,
    )


def roll_combat(attack: int, defense: int, *, rng: random.Random) -> tuple[DicePool, DicePool]:
    """Roll the attacker's ``attack`` dice, then the defender's ``defense``
    dice ("Combat"); apply rerolls to the pools before :func:`resolve_combat`."""
    if attack < 0 or defense < 0:
        raise ValueError("dice pools cannot be negative")
    return roll_pool(attack, rng=rng), roll_pool(defense, rng=rng)


def combat(
    attack: int,
    defense: int,
    *,
    rng: random.Random,
    policy: ChoosingPolicy = DEFAULT_POLICY,
) -> CombatResult:
    """Roll and resolve a combat with no rerolls (``attack``/``defense`` are
    pool sizes, e.g. from :func:`attack_pool_size`)."""
    a_pool, d_pool = roll_combat(attack, defense, rng=rng)
    return resolve_combat(a_pool, d_pool, policy=policy)
