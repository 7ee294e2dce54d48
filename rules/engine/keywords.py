"""Keyword abilities and special abilities that change a close combat
(rulebook: Appendix "Keyword Abilities", "Status Effects"; "Combat",
"Assists", "Back Strike", "Rerolls", "Ability And Card Timing").

:func:`fight` resolves one attack between two :class:`CombatantSnapshot`
models in a :class:`FightContext` (assists, back strike, movement before the
attack, tokens in hand):

1. pool sizes: Attack + assists (+2 per Combined Attack assistant) + back
   strike (+2 with Backstab; none against Yamazaru's Tail or Howl & Yip)
   + Stealth + Focus + Tora's Claws + Emptiness + Ijin's Horns + the named
   special abilities; Defense + assists (+2 per Guard assistant) + Tidal
   Wave + Immovable + ..., then Dauntless;
2. both pools are rolled, every face recorded;
3. rerolls, before eliminations, the attacker's effects first ("Ability And
   Card Timing"): first a whole-pool reroll (Lucky token, underdog reroll
   token, Curse token on the enemy) when the current dice would Injure the
   side's own model, then the keyword rerolls (Close Combat Master, the
   Mastery, Sensei), each die at most once ("Rerolls");
4. eliminations and the choice of result by :func:`.combat.resolve_combat`
   (Dirty Fighter moves the choice to the attacker unless the defender has
   two more dice left);
5. the effect: Injured / Stunned for attacker, defender and (Fire) the other
   models in the attacker's influence zone, after Moon Power, Resilient,
   Indomitable and Protect; Engulf (Poison), Kitsune's Bite (Curse),
   Poisoned Weapons.

Which dice to reroll is a decision: the :class:`FightPolicy` values every
combat result for the attacker (:meth:`FightPolicy.value`) and rerolls a die
when its expected value after the reroll (all six faces, exactly) is higher
than keeping it.  Everything is pure: the random source is passed in.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property, lru_cache

from .combat import (
    DEFAULT_POLICY,
    ChoosingPolicy,
    CombatEffect,
    CombatResult,
    PreferencePolicy,
    Side,
    attack_pool_size,
    combat_effect,
    defense_pool_size,
    resolve_combat,
)
from .dice import ELEMENTS, Element, as_element, reroll, roll_dice, roll_pool

__all__ = [
    "KW",
    "AB",
    "MASTERIES",
    "COMBAT_KEYWORDS",
    "Harm",
    "CombatantSnapshot",
    "FightContext",
    "FightPolicy",
    "DEFAULT_FIGHT_POLICY",
    "RerollUse",
    "ProtectionRoll",
    "Suffered",
    "FightOutcome",
    "attack_dice",
    "defense_dice",
    "suffer",
    "fight",
    "resilient_elements",
]


class KW:
    """Keyword names exactly as in the catalog (rules/data/catalog.json)."""

    CLOSE_COMBAT_MASTER = "Close Combat Master"
    FOCUS = "Focus"
    NIMBLE = "Nimble"
    RANGED_MASTER = "Ranged Master"
    SENSEI = "Sensei"
    SNEAKY = "Sneaky"
    SPRINT = "Sprint"
    ACCURATE = "Accurate"
    GALE_OF_BLOWS = "Gale of Blows"
    TANCHYOS_WINGS = "Tanchyo's Wings"
    WIND_IN_THE_FOREST = "Wind in the Forest"
    REDIRECTION = "Redirection"
    DAUNTLESS = "Dauntless"
    GUARD = "Guard"
    REGENERATION = "Regeneration"
    TOUGH = "Tough"
    YAMAZARUS_TAIL = "Yamazaru's Tail"
    COMBINED_ATTACK = "Combined Attack"
    ENGULF = "Engulf"
    FRENZY = "Frenzy"
    PRECISION_STRIKE = "Precision Strike"
    TORAS_CLAWS = "Tora's Claws"
    BLINK = "Blink"
    FORTUNE = "Fortune"
    HEALING = "Healing"
    KITSUNES_BITE = "Kitsune's Bite"
    SICKEN = "Sicken"
    IKAS_TENTACLES = "Ika's Tentacles"
    TIDAL_WAVE = "Tidal Wave"
    BACKSTAB = "Backstab"
    BLOOD_LUST = "Blood Lust"
    DIRTY_FIGHTER = "Dirty Fighter"
    EMPTINESS = "Emptiness"
    IJINS_HORNS = "Ijin's Horns"
    HERO = "Hero"
    RESILIENT = "Resilient"
    RONIN = "Ronin"


class AB:
    """Special ability names (profile and ronin entries) that :func:`fight`
    applies itself; the simulator applies others (see docs/simulation.md)."""

    IMMOVABLE = "Immovable"  # Benkei: +2 Defense if not activated this round
    MASTER_SWORDSMAN = "Master Swordsman"  # Howl & Yip: no assists/back strike against
    INDOMITABLE = "Indomitable"  # Musashi: first Injury in a round -> Stunned
    SPIRIT_HUNTER = "Spirit Hunter"  # Momotaro: +1 AT/DF v Spirit or Void affinity
    FROM_THE_DEEP = "From the Deep"  # Kappa: +2 Attack when attacking from Stealth
    POISONED_WEAPONS = "Poisoned Weapons"  # Kitsune chunin
    METAL_TO_DUST = "Metal to Dust"  # Tora madoushi (active flag on the snapshot)
    TIGER_STRIKE = "Tiger Strike"
    YAMA_FIST = "Yama Fist"
    SUPREME_MASTER = "Supreme Master of the Fist"
    UNCANNY_AWARENESS = "Uncanny Awareness"
    FLASHING_SPEAR = "Flashing Spear"


#: Mastery keyword -> its element ("Once per round, after a model with X
#: Mastery makes a roll, it may reroll any dice that did not result in X").
MASTERIES: dict[str, Element] = {
    "Spirit Mastery": Element.SPIRIT,
    "Void Mastery": Element.VOID,
    "Earth Mastery": Element.EARTH,
    "Air Mastery": Element.AIR,
    "Water Mastery": Element.WATER,
    "Fire Mastery": Element.FIRE,
}

#: Keywords :func:`fight` reads (the rest act outside a combat roll).
COMBAT_KEYWORDS: frozenset[str] = frozenset(
    {
        KW.CLOSE_COMBAT_MASTER,
        KW.FOCUS,
        KW.SENSEI,
        KW.DAUNTLESS,
        KW.GUARD,
        KW.YAMAZARUS_TAIL,
        KW.COMBINED_ATTACK,
        KW.ENGULF,
        KW.PRECISION_STRIKE,
        KW.TORAS_CLAWS,
        KW.KITSUNES_BITE,
        KW.TIDAL_WAVE,
        KW.BACKSTAB,
        KW.DIRTY_FIGHTER,
        KW.EMPTINESS,
        KW.IJINS_HORNS,
        KW.RESILIENT,
        KW.ACCURATE,
        KW.RANGED_MASTER,
        *MASTERIES,
    }
)


class Harm(str, Enum):
    """What happens to one model: nothing, a Stun token, or Injured."""

    NONE = "none"
    STUNNED = "stunned"
    INJURED = "injured"


def resilient_elements(model: CombatantSnapshot) -> frozenset[Element]:
    """Faces that make a Resilient roll succeed: the model's affinities.

    The Moon Princess has every affinity, but *Resilient checks only succeed
    when Spirit, Air, or Earth are rolled* (her entry's footnote).
    """
    if model.name == "Moon Princess":
        return frozenset({Element.SPIRIT, Element.AIR, Element.EARTH})
    return frozenset(model.affinities)


@dataclass(frozen=True)
class CombatantSnapshot:
    """One model as a fight sees it.

    ``keywords`` and ``abilities`` are names as in the catalog.  Status:
    ``stun_tokens`` (Tora's Claws, three make an Injury), ``in_stealth``
    (+1 Attack when attacking), ``moon_powered`` (cannot be Stunned or
    Injured), ``lucky_tokens``, ``curse_tokens``, ``protect_tokens``.
    Once-per-round resources: ``mastery_ready``, ``tidal_wave_ready``,
    ``indomitable_ready``.  ``has_activated`` (Immovable), ``no_defense_dice``
    (Tiger Strike), ``metal_to_dust`` (its test succeeded this round),
    ``attack_bonus``/``defense_bonus`` for effects the caller tracks (Yama
    Fist, Yopparai, Frenzy's halved Defense as a negative bonus ...).
    """

    name: str
    attack: int
    defense: int
    affinities: tuple[Element, ...]
    keywords: frozenset[str] = frozenset()
    abilities: frozenset[str] = frozenset()
    is_chunin: bool = False
    stun_tokens: int = 0
    in_stealth: bool = False
    moon_powered: bool = False
    lucky_tokens: int = 0
    curse_tokens: int = 0
    protect_tokens: int = 0
    mastery_ready: bool = True
    tidal_wave_ready: bool = True
    indomitable_ready: bool = True
    has_activated: bool = False
    no_defense_dice: bool = False
    metal_to_dust: bool = False
    attack_bonus: int = 0
    defense_bonus: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "affinities", tuple([as_element(a) for a in self.affinities]))
        object.__setattr__(self, "keywords", frozenset(self.keywords))
        object.__setattr__(self, "abilities", frozenset(self.abilities))
        # Keywords and abilities in one set: ``has`` is a fight's most frequent question.
        object.__setattr__(self, "traits", self.keywords | self.abilities)

    @property
    def stunned(self) -> bool:
        return self.stun_tokens > 0

    def has(self, name: str) -> bool:
        """True if the model has keyword or special ability ``name``."""
        return name in self.traits

    @property
    def mastery(self) -> Element | None:
        """The element of the model's Mastery keyword, if any (first found)."""
        return _mastery_of(self.keywords)


@lru_cache(maxsize=1024)
def _mastery_of(keywords: frozenset[str]) -> Element | None:
    """:attr:`CombatantSnapshot.mastery` for a set of keywords (a fight asks for it several times)."""
    for keyword, element in MASTERIES.items():
        if keyword in keywords:
            return element
    return None


@dataclass(frozen=True)
class FightContext:
    """What the board says about one attack.

    ``assists_attacker``/``assists_defender``: assisting models (each +1);
    ``combined_attack_assists``/``guard_assists``: how many of them have
    Combined Attack / Guard (+2 instead of +1).  ``back_strike``: the
    attacker is in the defender's back influence zone.  ``attacker_moved``:
    the attacker moved this turn (Focus needs it to give up moving);
    ``spaces_moved`` (Ijin's Horns: 3+).  ``ranged`` with ``ranged_bonus``
    (the profile's "Ranged N: +X Attack") and ``ranged_effects`` (results
    that do something: Earth and Void, Air for Tanchyo yajiri).  Tokens the
    sides may spend: underdog ``*_reroll_tokens``, ``*_sensei`` (the team's
    once-per-round Sensei die is still available).  ``attack_bonus`` /
    ``defense_bonus`` with ``bonus_notes`` for effects the caller computes
    (Tyrant, Resolute Melody, Skull Hex ...).  ``void_stuns`` (Whirlwind:
    Void Stuns instead of Injuring), ``spirit_poisons`` (Kitsune yajiri,
    Dark Kitsune: a Spirit rolled Poisons the target), ``earth_void_stun``
    (Mountain Flute).  ``rival`` (Yobuko attacks his rival: +1).  ``shuriken``: a
    thrown weapon ("Ranged Combat": one die, no bonuses, Stealthy).
    """

    assists_attacker: int = 0
    assists_defender: int = 0
    combined_attack_assists: int = 0
    guard_assists: int = 0
    back_strike: bool = False
    attacker_moved: bool = True
    spaces_moved: int = 0
    ranged: bool = False
    ranged_bonus: int = 0
    ranged_effects: frozenset[Element] = frozenset({Element.EARTH, Element.VOID})
    attacker_reroll_tokens: int = 0
    defender_reroll_tokens: int = 0
    attacker_sensei: bool = False
    defender_sensei: bool = False
    attack_bonus: int = 0
    defense_bonus: int = 0
    bonus_notes: tuple[str, ...] = ()
    void_stuns: bool = False
    spirit_poisons: bool = False
    earth_void_stun: bool = False
    rival: bool = False
    shuriken: bool = False


@dataclass(frozen=True)
class FightPolicy:
    """Decisions inside a fight.

    ``choosing``: which remaining die the chooser takes (default the
    preference orders of :data:`rules.engine.combat.DEFAULT_POLICY`; an
    attacker with Precision Strike moves Fire ahead of Earth, since its
    Fire no longer Stuns itself).  Rerolls: a die is rerolled when the exact
    expected :meth:`value` after rerolling it beats keeping it; a whole pool
    (Lucky, reroll token, Curse) is rerolled when the current dice would
    Injure the side's own model.  ``use_tokens=False`` never spends tokens.
    """

    choosing: ChoosingPolicy = DEFAULT_POLICY
    stun_value: float = 0.35
    use_tokens: bool = True

    def chooser_policy(self, attacker: CombatantSnapshot) -> ChoosingPolicy:
        if attacker.has(KW.PRECISION_STRIKE) and isinstance(self.choosing, PreferencePolicy):
            order = list(self.choosing.attacker_order)
            if order.index(Element.FIRE) > order.index(Element.EARTH):
                order.remove(Element.FIRE)
                order.insert(order.index(Element.EARTH), Element.FIRE)
                return PreferencePolicy(tuple(order), self.choosing.defender_order)
        return self.choosing


DEFAULT_FIGHT_POLICY = FightPolicy()


@dataclass(frozen=True)
class RerollUse:
    """One reroll: who used it (``side``), the ``source`` (keyword, "reroll
    token", "Lucky", "Curse", "Sensei"), which ``pool`` and dice indices."""

    side: Side
    source: str
    pool: Side
    indices: tuple[int, ...]


@dataclass(frozen=True)
class ProtectionRoll:
    """A Resilient roll (one die, and the die after a Mastery reroll)."""

    model: str
    faces: tuple[Element, ...]
    success: bool
    source: str = KW.RESILIENT


@dataclass(frozen=True)
class Suffered:
    """What a model suffered after protections: ``harm`` (final),
    ``incoming`` (before), ``rolls`` (Resilient dice) and what it spent."""

    model: str
    incoming: Harm
    harm: Harm
    rolls: tuple[ProtectionRoll, ...] = ()
    used: tuple[str, ...] = ()


@dataclass(frozen=True)
class FightOutcome:
    """Everything about one attack, every die face included.

    ``attack_dice``/``defense_dice`` are the pool sizes, ``modifiers`` the
    labelled bonuses that made them.  ``combat`` holds both pools (initial
    faces, rerolls, eliminations, chooser, result).  ``attacker``/``defender``
    are :class:`Suffered`; ``zone_stun_enemies`` / ``zone_stun_friends``:
    Fire also Stuns the other enemy / friendly models in the attacker's
    influence zone (the caller knows who they are and calls :func:`suffer`).
    ``defender_poisoned`` (Engulf, Poisoned Weapons, ranged Spirit),
    ``defender_cursed`` (Kitsune's Bite).  ``spent`` lists resources used, as
    ``(side, name)``: "reroll token", "Lucky", "Curse", "Mastery", "Sensei",
    "Tidal Wave", "Protect", "Indomitable".
    """

    attacker_name: str
    defender_name: str
    attack_dice: int
    defense_dice: int
    modifiers: tuple[str, ...]
    combat: CombatResult
    rerolls: tuple[RerollUse, ...]
    effect: CombatEffect
    attacker: Suffered
    defender: Suffered
    zone_stun_enemies: bool = False
    zone_stun_friends: bool = False
    defender_poisoned: bool = False
    defender_cursed: bool = False
    spent: tuple[tuple[Side, str], ...] = ()
    ranged: bool = False

    @property
    def result(self) -> Element | None:
        return self.combat.result

    def used(self, side: Side, name: str) -> int:
        """How many times ``side`` spent ``name``."""
        return sum(1 for s, n in self.spent if s is side and n == name)


# ---------------------------------------------------------------------------
# pool sizes
# ---------------------------------------------------------------------------


def _affinity_overlap(model: CombatantSnapshot, elements: Iterable[Element]) -> bool:
    return any(e in model.affinities for e in elements)


def attack_dice(
    attacker: CombatantSnapshot, defender: CombatantSnapshot, context: FightContext
) -> tuple[int, tuple[str, ...]]:
    """Attack dice for this attack and the labelled modifiers.

    Ranged attacks: Attack + the profile's ranged bonus (+1 Accurate), no
    assists, back strikes or Stealth bonus ("Ranged Combat", "Stealth
    Combat").  Otherwise Attack + assists + back strike + Stealth + keyword
    and ability bonuses; Metal to Dust then takes 2 off, to a minimum of 1.
    """
    notes: list[str] = []
    bonus = attacker.attack_bonus + context.attack_bonus
    if attacker.attack_bonus:
        notes.append(f"effects {attacker.attack_bonus:+d}")
    notes.extend(context.bonus_notes)
    if context.ranged and context.shuriken:
        return 1, ("shuriken: one die",)
    if context.ranged:
        bonus += context.ranged_bonus
        if context.ranged_bonus:
            notes.append(f"Ranged +{context.ranged_bonus}")
        if attacker.has(KW.ACCURATE):
            bonus += 1
            notes.append("Accurate +1")
        dice = attack_pool_size(attacker.attack, modifier=bonus)
    else:
        master_swordsman = defender.has(AB.MASTER_SWORDSMAN)
        assists = 0 if master_swordsman else context.assists_attacker
        combined = min(context.combined_attack_assists, assists)
        assist_bonus = assists + combined
        if assist_bonus:
            notes.append(f"assists +{assist_bonus}")
        back = context.back_strike and not master_swordsman and not defender.has(KW.YAMAZARUS_TAIL)
        back_bonus = 2 if back and attacker.has(KW.BACKSTAB) else 1
        if back:
            notes.append(f"back strike +{back_bonus}")
        if attacker.in_stealth:
            notes.append("Stealth +1")
            if attacker.has(AB.FROM_THE_DEEP):
                bonus += 2
                notes.append("From the Deep +2")
        if not context.attacker_moved and attacker.has(KW.FOCUS):
            bonus += 1
            notes.append("Focus +1")
        if defender.stunned and attacker.has(KW.TORAS_CLAWS):
            bonus += 1
            notes.append("Tora's Claws +1")
        defender_assisted = context.assists_defender > 0 and not defender.no_defense_dice
        if defender_assisted and assist_bonus == 0 and attacker.has(KW.EMPTINESS):
            bonus += 1
            notes.append("Emptiness +1")
        if context.attacker_moved and context.spaces_moved >= 3 and attacker.has(KW.IJINS_HORNS):
            bonus += 1
            notes.append("Ijin's Horns +1")
        if attacker.has(AB.SPIRIT_HUNTER) and _affinity_overlap(defender, (Element.SPIRIT, Element.VOID)):
            bonus += 1
            notes.append("Spirit Hunter +1")
        if context.rival and attacker.has(AB.SUPREME_MASTER):
            bonus += 1
            notes.append("rival +1")
        dice = attack_pool_size(
            attacker.attack,
            assist_bonus=assist_bonus,
            back_strike=back,
            back_strike_bonus=back_bonus,
            stealth=attacker.in_stealth,
            modifier=bonus,
        )
    if defender.metal_to_dust and dice > 0:
        dice = max(1, dice - 2)
        notes.append("Metal to Dust -2 (min 1)")
    return dice, tuple(notes)


def defense_dice(
    attacker: CombatantSnapshot,
    defender: CombatantSnapshot,
    context: FightContext,
    attack_pool: int,
) -> tuple[int, tuple[str, ...], bool]:
    """Defense dice and modifiers; the flag says Tidal Wave was spent.

    Tiger Strike: *the chunin does not roll any defense dice* (0, and no
    Dauntless).  Dauntless: *if its Defense is lower than the attacker's
    Attack after any bonuses, the defender rolls the same number of dice as
    the attacker* -- read as the two pools after every bonus.
    """
    if defender.no_defense_dice:
        return 0, ("no defense dice",), False
    notes: list[str] = []
    bonus = defender.defense_bonus + context.defense_bonus
    if defender.defense_bonus:
        notes.append(f"effects {defender.defense_bonus:+d}")
    tidal = False
    assist_bonus = 0
    if not context.ranged:
        assist_bonus = context.assists_defender + min(context.guard_assists, context.assists_defender)
        if assist_bonus:
            notes.append(f"assists +{assist_bonus}")
    if defender.tidal_wave_ready and defender.has(KW.TIDAL_WAVE):
        bonus += 1
        tidal = True
        notes.append("Tidal Wave +1")
    if not defender.has_activated and defender.has(AB.IMMOVABLE):
        bonus += 2
        notes.append("Immovable +2")
    if defender.has(AB.SPIRIT_HUNTER) and _affinity_overlap(attacker, (Element.SPIRIT, Element.VOID)):
        bonus += 1
        notes.append("Spirit Hunter +1")
    dice = defense_pool_size(defender.defense, assist_bonus=assist_bonus, modifier=bonus)
    if dice < attack_pool and defender.has(KW.DAUNTLESS):
        notes.append(f"Dauntless ({dice} -> {attack_pool})")
        dice = attack_pool
    return dice, tuple(notes), tidal


# ---------------------------------------------------------------------------
# resolving counts fast (for reroll decisions)
# ---------------------------------------------------------------------------

_INDEX = {e: i for i, e in enumerate(ELEMENTS)}
# ELEMENTS order is Spirit, Void, Earth, Air, Water, Fire: opposite of i is i ^ 1.


def _counts(faces: Sequence[Element]) -> tuple[int, ...]:
    c = [0] * 6
    for f in faces:
        c[_INDEX[f]] += 1
    return tuple(c)


def _margins(a: tuple[int, ...], d: tuple[int, ...]) -> tuple[int, ...]:
    """Each attack face's count minus its opposite's count in defense. The resolution reads the
    dice only through these six numbers (what is left of either side after the eliminations), so
    two pairs of pools with the same margins resolve alike, also after one die changes face."""
    return (a[0] - d[1], a[1] - d[0], a[2] - d[3], a[3] - d[2], a[4] - d[5], a[5] - d[4])


def _resolve_counts(
    a: tuple[int, ...], d: tuple[int, ...], dirty: bool, policy: ChoosingPolicy
) -> tuple[Side | None, Element | None]:
    return _resolve_margins(_margins(a, d), dirty, policy)


@lru_cache(maxsize=262_144)
def _resolve_margins(m: tuple[int, ...], dirty: bool, policy: ChoosingPolicy) -> tuple[Side | None, Element | None]:
    # each die cancels one opposite die (index i ^ 1): what is left of the attack's face i is its
    # margin when positive, of the defense's face i the negative margin of the attack's face i ^ 1
    a_left = [x if x > 0 else 0 for x in m]
    d_left = [-x if x < 0 else 0 for x in (m[1], m[0], m[3], m[2], m[5], m[4])]
    na, nd = sum(a_left), sum(d_left)
    if na == 0 and nd == 0:
        return None, None
    chooser = Side.ATTACKER if na >= nd else Side.DEFENDER
    if dirty and chooser is Side.DEFENDER and nd - na < 2:
        chooser = Side.ATTACKER
    left = a_left if chooser is Side.ATTACKER else d_left
    available = frozenset(ELEMENTS[i] for i in range(6) if left[i])
    if not available:
        return None, None
    return chooser, as_element(policy(chooser, available))


def _dirty_fighter(result: CombatResult, policy: ChoosingPolicy) -> CombatResult:
    """Dirty Fighter: *after eliminations, the defender must have at least
    two more dice than the attacker in order to choose the result*; else the
    attacker chooses (no result if it has no die left)."""
    if result.chooser is not Side.DEFENDER:
        return result
    if len(result.defense_remaining) - len(result.attack_remaining) >= 2:
        return result
    if not result.attack_remaining:
        return replace(result, chooser=None, chosen_index=None, result=None)
    available = frozenset(result.attack_faces[i] for i in result.attack_remaining)
    element = as_element(policy(Side.ATTACKER, available))
    index = next(i for i in result.attack_remaining if result.attack_faces[i] is element)
    return replace(result, chooser=Side.ATTACKER, chosen_index=index, result=element)


# ---------------------------------------------------------------------------
# valuing results (reroll decisions)
# ---------------------------------------------------------------------------


def _harm_chance(model: CombatantSnapshot) -> tuple[float, float]:
    """(P an incoming Injury stays an Injury, P an incoming Stun lands)."""
    if model.moon_powered:
        return 0.0, 0.0
    p_res = len(resilient_elements(model)) / 6 if model.has(KW.RESILIENT) else 0.0
    injury = 1.0 - p_res
    if model.has(AB.INDOMITABLE) and model.indomitable_ready:
        injury = 0.0
    if model.protect_tokens:
        injury = 0.0
    return injury, 1.0 - p_res


@dataclass(frozen=True)
class _Valuer:
    """Value of each combat outcome to the attacker (the defender's is the
    negative): +1 defender Injured, -1 attacker Injured, ``stun_value``
    (1 when it is the third Stun) per Stun, times the chance it lands."""

    table: dict[tuple[Side | None, Element | None], float]

    @cached_property
    def key(self) -> tuple[float, ...]:
        """The table's values in its fixed order: two valuers with the same key value every outcome alike."""
        return tuple(self.table.values())

    @classmethod
    def build(
        cls,
        attacker: CombatantSnapshot,
        defender: CombatantSnapshot,
        context: FightContext,
        stun_value: float,
    ) -> _Valuer:
        a_inj, a_stun = _harm_chance(attacker)
        d_inj, d_stun = _harm_chance(defender)
        a_sv = 1.0 if attacker.stun_tokens >= 2 else stun_value
        d_sv = 1.0 if defender.stun_tokens >= 2 else stun_value
        return _valuer(
            a_inj,
            a_stun,
            d_inj,
            d_stun,
            a_sv,
            d_sv,
            attacker.has(KW.PRECISION_STRIKE),
            context.ranged,
            context.ranged_effects if context.ranged else None,
            context.earth_void_stun,
            context.void_stuns,
        )

    def __call__(self, outcome: tuple[Side | None, Element | None]) -> float:
        return self.table[outcome]


@lru_cache(maxsize=4096)
def _valuer(
    a_inj: float,
    a_stun: float,
    d_inj: float,
    d_stun: float,
    a_sv: float,
    d_sv: float,
    precision: bool,
    ranged: bool,
    ranged_effects: frozenset[Element] | None,
    earth_void_stun: bool,
    void_stuns: bool,
) -> _Valuer:
    """:meth:`_Valuer.build` from the numbers and flags it reads (a valuer is only read: one is made
    for each distinct set of them)."""
    table: dict[tuple[Side | None, Element | None], float] = {(None, None): 0.0}
    for side in (Side.ATTACKER, Side.DEFENDER):
        for element in ELEMENTS:
            if ranged:
                value = 0.0
                if element in ranged_effects:
                    if element is Element.VOID:
                        value = (d_stun * d_sv) if (earth_void_stun or void_stuns) else d_inj
                    elif element is Element.EARTH:
                        value = d_stun * d_sv
            else:
                value = {
                    Element.SPIRIT: -a_inj,
                    Element.VOID: (d_stun * d_sv) if void_stuns else d_inj,
                    Element.EARTH: d_stun * d_sv,
                    Element.AIR: 0.05,
                    Element.WATER: 0.0,
                    Element.FIRE: d_stun * d_sv - (0.0 if precision else a_stun * a_sv),
                }[element]
            table[(side, element)] = value
    return _Valuer(table)


#: What reroll decisions already weighed, per (valuer's values, Dirty Fighter, choosing policy): the
#: value of the dice's :func:`_margins` (``"values"``) and the gain of rerolling one die, per (margins,
#: pool, face rerolled) (``"gains"``). Both are pure functions of these, so each is the same number in
#: every fight that weighs it. Emptied when they grow past :data:`_MEMO_MAX` entries (numbers only).
_MEMO: dict[tuple, tuple[dict[tuple, float], dict[tuple, float]]] = {}
_MEMO_MAX = 400_000
_memo_size = 0


class _Evaluator:
    """Expected values of combat states for reroll decisions."""

    def __init__(self, valuer: _Valuer, dirty: bool, policy: ChoosingPolicy) -> None:
        global _memo_size
        self.valuer = valuer
        self.dirty = dirty
        self.policy = policy
        # A gain depends on the dice only through their margins and the face rerolled: dice showing
        # the same face (and a decision weighed again on the same margins, in this fight or another
        # with the same values) are valued once.
        if _memo_size > _MEMO_MAX:
            _MEMO.clear()
            _memo_size = 0
        memo = _MEMO.get((valuer.key, dirty, policy))
        if memo is None:
            memo = _MEMO[(valuer.key, dirty, policy)] = ({}, {})
        self._values, self._gains = memo

    def value(self, a: Sequence[Element], d: Sequence[Element]) -> float:
        return self.valuer(_resolve_counts(_counts(a), _counts(d), self.dirty, self.policy))

    def reroll_gain(self, a: Sequence[Element], d: Sequence[Element], pool: Side, index: int) -> float:
        """Expected value (to the attacker) of rerolling one die minus keeping it."""
        return self.gain(_margins(_counts(a), _counts(d)), pool, _INDEX[(a if pool is Side.ATTACKER else d)[index]])

    def gain(self, margins: tuple[int, ...], pool: Side, face: int) -> float:
        """:meth:`reroll_gain` from the dice's :func:`_margins` and the rerolled face's index."""
        key = (margins, pool is Side.ATTACKER, face)  # atoms only: the collector soon stops tracking it
        gain = self._gains.get(key)
        if gain is None:
            global _memo_size
            gain = self._gains[key] = self._reroll_gain(margins, pool, face)
            _memo_size += 1
        return gain

    def _margins_value(self, margins: tuple[int, ...]) -> float:
        """The value of dice with these margins (see :data:`_MEMO`)."""
        value = self._values.get(margins)
        if value is None:
            global _memo_size
            value = self._values[margins] = self.valuer(_resolve_margins(margins, self.dirty, self.policy))
            _memo_size += 1
        return value

    def _reroll_gain(self, margins: tuple[int, ...], pool: Side, face: int) -> float:
        """The mean value over the six faces the die may show instead, minus the value now. A face of
        the attack's moves its own margin; a face of the defense's the margin of its opposite (i ^ 1)
        the other way."""
        values, value = self._values, self._margins_value
        base = value(margins)
        m = list(margins)
        step = 1 if pool is Side.ATTACKER else -1
        flip = 0 if pool is Side.ATTACKER else 1
        m[face ^ flip] -= step
        total = 0.0
        for i in range(6):
            m[i ^ flip] += step
            t = tuple(m)
            v = values.get(t)
            total += value(t) if v is None else v
            m[i ^ flip] -= step
        return total / 6 - base


# ---------------------------------------------------------------------------
# suffering an effect (Moon Power, Resilient, Indomitable, Protect)
# ---------------------------------------------------------------------------


def suffer(
    model: CombatantSnapshot,
    incoming: Harm,
    *,
    by_enemy: bool,
    rng: random.Random,
) -> Suffered:
    """Apply protections to ``incoming`` harm, in this order:

    * Moon Power: *cannot be Stunned and cannot be Injured* -> nothing;
    * Resilient (only for effects *caused by an enemy*): roll a die; any of
      the model's affinities downgrades Injured to Stunned, Stunned to
      nothing; a model whose Mastery is unused this round and whose Mastery
      element is one of its affinities rerolls a failed die (Mastery: "after
      a model ... makes a roll");
    * Indomitable: the first Injury in a round becomes a Stun;
    * Protect: *When a Protected model is Injured, it may remove one Protect
      token to be Stunned instead* (spent only against Injuries).

    The caller adds the Stun token (three make an Injury) or Injures.
    """
    if incoming is Harm.NONE:
        return Suffered(model.name, incoming, Harm.NONE)
    if model.moon_powered:
        return Suffered(model.name, incoming, Harm.NONE, used=("Moon Power",))
    harm = incoming
    rolls: list[ProtectionRoll] = []
    used: list[str] = []
    if by_enemy and model.has(KW.RESILIENT):
        good = resilient_elements(model)
        faces = list(roll_dice(1, rng=rng))
        mastery = model.mastery
        if faces[0] not in good and model.mastery_ready and mastery in good:
            faces.append(roll_dice(1, rng=rng)[0])
            used.append("Mastery")
        success = faces[-1] in good
        rolls.append(ProtectionRoll(model.name, tuple(faces), success))
        if success:
            harm = Harm.STUNNED if harm is Harm.INJURED else Harm.NONE
    if harm is Harm.INJURED and model.has(AB.INDOMITABLE) and model.indomitable_ready:
        harm = Harm.STUNNED
        used.append("Indomitable")
    if harm is Harm.INJURED and model.protect_tokens > 0:
        harm = Harm.STUNNED
        used.append("Protect")
    return Suffered(model.name, incoming, harm, tuple(rolls), tuple(used))


# ---------------------------------------------------------------------------
# the fight
# ---------------------------------------------------------------------------


def _injures(outcome: tuple[Side | None, Element | None], side: Side, context: FightContext) -> bool:
    """Would this outcome Injure ``side``'s own model?"""
    element = outcome[1]
    if element is None:
        return False
    if context.ranged:
        return (
            side is Side.DEFENDER
            and element is Element.VOID
            and not (context.earth_void_stun or context.void_stuns)
            and element in context.ranged_effects
        )
    if side is Side.ATTACKER:
        return element is Element.SPIRIT
    return element is Element.VOID and not context.void_stuns


def fight(
    attacker: CombatantSnapshot,
    defender: CombatantSnapshot,
    *,
    context: FightContext = FightContext(),
    rng: random.Random,
    policy: FightPolicy | ChoosingPolicy = DEFAULT_FIGHT_POLICY,
) -> FightOutcome:
    """Resolve one attack (see the module docstring for the order)."""
    if not isinstance(policy, FightPolicy):
        policy = FightPolicy(choosing=policy)
    choosing = policy.chooser_policy(attacker)
    dirty = attacker.has(KW.DIRTY_FIGHTER) and not context.ranged

    n_att, a_notes = attack_dice(attacker, defender, context)
    n_def, d_notes, tidal = defense_dice(attacker, defender, context, n_att)
    a_pool = roll_pool(n_att, rng=rng)
    d_pool = roll_pool(n_def, rng=rng)
    spent: list[tuple[Side, str]] = []
    if tidal:
        spent.append((Side.DEFENDER, "Tidal Wave"))
    rerolls: list[RerollUse] = []

    has_single = (
        attacker.has(KW.CLOSE_COMBAT_MASTER)
        or defender.has(KW.CLOSE_COMBAT_MASTER)
        or (attacker.mastery and attacker.mastery_ready)
        or (defender.mastery and defender.mastery_ready)
        or context.attacker_sensei
        or context.defender_sensei
        or (context.ranged and attacker.has(KW.RANGED_MASTER))
    )
    has_whole = policy.use_tokens and (
        context.attacker_reroll_tokens
        or context.defender_reroll_tokens
        or attacker.lucky_tokens
        or defender.lucky_tokens
        or attacker.curse_tokens
        or defender.curse_tokens
    )
    if has_single or has_whole:
        valuer = _Valuer.build(attacker, defender, context, policy.stun_value)
        evaluator = _Evaluator(valuer, dirty, choosing)
        pools = {Side.ATTACKER: a_pool, Side.DEFENDER: d_pool}
        for side, me, enemy in (
            (Side.ATTACKER, attacker, defender),
            (Side.DEFENDER, defender, attacker),
        ):
            sign = 1.0 if side is Side.ATTACKER else -1.0
            other = Side.DEFENDER if side is Side.ATTACKER else Side.ATTACKER

            def outcome() -> tuple[Side | None, Element | None]:
                return _resolve_counts(
                    _counts(pools[Side.ATTACKER].faces), _counts(pools[Side.DEFENDER].faces), dirty, choosing
                )

            def whole(pool_side: Side, source: str, side: Side = side) -> None:
                pool = pools[pool_side]
                pools[pool_side] = reroll(pool, range(len(pool)), rng=rng)
                rerolls.append(RerollUse(side, source, pool_side, tuple(range(len(pool)))))
                spent.append((side, source))

            # 1. whole-pool rerolls when the dice would Injure my own model (weighed only with a
            #    Lucky token, a Curse token on the enemy or an underdog reroll token to spend)
            tokens = context.attacker_reroll_tokens if side is Side.ATTACKER else context.defender_reroll_tokens
            current = outcome() if policy.use_tokens and (me.lucky_tokens or enemy.curse_tokens or tokens) else None
            if current is not None and _injures(current, side, context):
                target = current[0] or side
                fresh = {s: not pools[s].rerolled and len(pools[s]) > 0 for s in pools}
                if me.lucky_tokens and fresh[side] and (target is side or not fresh[other]):
                    whole(side, "Lucky")
                elif enemy.curse_tokens and fresh[other]:
                    whole(other, "Curse")
                elif tokens:
                    if fresh[target]:
                        whole(target, "reroll token")
                    elif fresh[side] or fresh[other]:
                        whole(side if fresh[side] else other, "reroll token")
            # 2. keyword rerolls of my own dice, one source at a time
            singles: list[tuple[str, int | None]] = []
            if me.has(KW.CLOSE_COMBAT_MASTER) and not context.ranged:
                singles.append((KW.CLOSE_COMBAT_MASTER, 1))
            if context.ranged and side is Side.ATTACKER and me.has(KW.RANGED_MASTER):
                singles.append((KW.RANGED_MASTER, 1))
            if me.mastery and me.mastery_ready:
                singles.append(("Mastery", None))
            if context.attacker_sensei if side is Side.ATTACKER else context.defender_sensei:
                singles.append(("Sensei", 1))
            for source, limit in singles:
                pool = pools[side]
                a_faces, d_faces = pools[Side.ATTACKER].faces, pools[Side.DEFENDER].faces
                eligible = [i for i in pool.rerollable if source != "Mastery" or pool.faces[i] is not me.mastery]
                margins = _margins(_counts(a_faces), _counts(d_faces))
                faces = a_faces if side is Side.ATTACKER else d_faces
                gains = sorted(
                    ((sign * evaluator.gain(margins, side, _INDEX[faces[i]]), i) for i in eligible),
                    reverse=True,
                )
                chosen = [i for g, i in gains if g > 1e-9]
                if limit is not None:
                    chosen = chosen[:limit]
                if chosen:
                    pools[side] = reroll(pool, chosen, rng=rng)
                    rerolls.append(RerollUse(side, source, side, tuple(sorted(chosen))))
                    if source != KW.CLOSE_COMBAT_MASTER and source != KW.RANGED_MASTER:
                        spent.append((side, source))
        a_pool, d_pool = pools[Side.ATTACKER], pools[Side.DEFENDER]

    result = resolve_combat(a_pool, d_pool, policy=choosing)
    if dirty:
        result = _dirty_fighter(result, choosing)
    effect = combat_effect(result.result, ranged=False)

    a_in = d_in = Harm.NONE
    a_by_enemy = True
    zone_enemies = zone_friends = False
    element = result.result
    if context.ranged:
        if element is not None and element in context.ranged_effects:
            if element is Element.VOID:
                d_in = Harm.STUNNED if (context.earth_void_stun or context.void_stuns) else Harm.INJURED
            elif element is Element.EARTH:
                d_in = Harm.STUNNED
        effect = combat_effect(element if element in context.ranged_effects else None, ranged=False)
        if element is Element.AIR and Element.AIR in context.ranged_effects:
            effect = CombatEffect.DEFENDER_MOVED
    elif element is Element.SPIRIT:
        a_in = Harm.INJURED
    elif element is Element.VOID:
        d_in = Harm.STUNNED if context.void_stuns else Harm.INJURED
    elif element is Element.EARTH:
        d_in = Harm.STUNNED
    elif element is Element.FIRE:
        d_in = Harm.STUNNED
        zone_enemies = True
        if not attacker.has(KW.PRECISION_STRIKE):
            a_in = Harm.STUNNED
            zone_friends = True
            # the attacker's own Fire stuns it; the defender's Fire is an enemy effect
            a_by_enemy = result.chooser is Side.DEFENDER

    # a Mastery spent on a reroll is gone for a Resilient roll (only harm coming in is rolled for)
    if a_in is not Harm.NONE and (Side.ATTACKER, "Mastery") in spent:
        attacker = replace(attacker, mastery_ready=False)
    if d_in is not Harm.NONE and (Side.DEFENDER, "Mastery") in spent:
        defender = replace(defender, mastery_ready=False)
    a_suffered = suffer(attacker, a_in, by_enemy=a_by_enemy, rng=rng)
    d_suffered = suffer(defender, d_in, by_enemy=True, rng=rng)
    for side, suffered in ((Side.ATTACKER, a_suffered), (Side.DEFENDER, d_suffered)):
        for name in suffered.used:
            spent.append((side, name))

    poisoned = cursed = False
    if not context.ranged:
        unchosen = [
            f
            for i, f in enumerate(result.attack_faces)
            if not (result.chooser is Side.ATTACKER and i == result.chosen_index)
        ]
        if attacker.has(KW.ENGULF) and Element.FIRE in unchosen:
            poisoned = True
        if attacker.has(KW.KITSUNES_BITE) and Element.SPIRIT in unchosen:
            cursed = True
        if attacker.has(AB.POISONED_WEAPONS) and d_suffered.harm is Harm.NONE and not defender.moon_powered:
            poisoned = True
    elif context.spirit_poisons and Element.SPIRIT in result.attack_faces:
        poisoned = True

    return FightOutcome(
        attacker_name=attacker.name,
        defender_name=defender.name,
        attack_dice=n_att,
        defense_dice=n_def,
        modifiers=a_notes + d_notes,
        combat=result,
        rerolls=tuple(rerolls),
        effect=effect,
        attacker=a_suffered,
        defender=d_suffered,
        zone_stun_enemies=zone_enemies,
        zone_stun_friends=zone_friends,
        defender_poisoned=poisoned,
        defender_cursed=cursed,
        spent=tuple(spent),
        ranged=context.ranged,
    )
