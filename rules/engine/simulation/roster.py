"""The simulator's inputs: the models of a roster as they stand before the match, and the teams."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..dice import Element, as_element
from ..keywords import KW


@dataclass(frozen=True)
class SimNinja:
    """One roster entry as it stands before the match.

    ``kind`` is the profile kind (chunin, kaiken, yajiri, madoushi,
    kunoichi, oni, hero) or ``"ronin"``; ``abilities`` the special abilities
    it has (the chosen one for chunin and madoushi, all of a hero's or
    ronin's); ``ranged``/``ranged_attack_bonus``/``ranged_text`` from the
    profile.  ``available=False``: misses the game (downtime);
    ``starts_in_healing_house``: downtime "Air" result.
    """

    ninja_id: int
    name: str
    kind: str
    movement: int
    attack: int
    defense: int
    affinities: tuple[Element, ...]
    keywords: frozenset[str] = frozenset()
    abilities: frozenset[str] = frozenset()
    ranged: int | None = None
    ranged_attack_bonus: int = 0
    ranged_text: str = ""
    available: bool = True
    starts_in_healing_house: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "affinities", tuple([as_element(a) for a in self.affinities]))
        object.__setattr__(self, "keywords", frozenset(self.keywords))
        object.__setattr__(self, "abilities", frozenset(self.abilities))
        # Keywords and abilities in one set: ``has`` is the simulator's most frequent question.
        object.__setattr__(self, "traits", self.keywords | self.abilities)
        # Asked for every target the policy weighs (Brawl's points) and every Stun credited.
        object.__setattr__(self, "is_chunin", self.kind == "chunin")

    @property
    def is_hero(self) -> bool:
        """Heroes and Ronin (no XP; the app decides, this only informs)."""
        return self.kind in ("hero", "ronin") or KW.HERO in self.keywords or KW.RONIN in self.keywords

    def has(self, name: str) -> bool:
        return name in self.traits

    @classmethod
    def from_profile(
        cls,
        entry: Mapping,
        *,
        ninja_id: int,
        name: str | None = None,
        abilities: Iterable[str] | None = None,
        extra_keywords: Iterable[str] = (),
        extra_affinities: Iterable[Element | str] = (),
        attack: int = 0,
        defense: int = 0,
        movement: int = 0,
        available: bool = True,
        starts_in_healing_house: bool = False,
    ) -> SimNinja:
        """Build from a catalog profile or ronin entry (rules/data/catalog.json
        shape) plus advancements: ``attack``/``defense``/``movement`` are
        increases, ``extra_keywords``/``extra_affinities`` gained ones.
        ``abilities``: the chosen special abilities; by default the first
        ``choose_abilities`` of them, or all when nothing is to be chosen."""
        listed = [a["name"] for a in entry.get("abilities", ())]
        if abilities is None:
            choose = entry.get("choose_abilities") or 0
            abilities = listed[:choose] if choose else listed
        kind = entry.get("kind") or ("ronin" if "upkeep" in entry else "hero")
        return cls(
            ninja_id=ninja_id,
            name=name or entry["name"],
            kind=kind,
            movement=entry["movement"] + movement,
            attack=entry["attack"] + attack,
            defense=entry["defense"] + defense,
            affinities=tuple(entry["affinities"])
            + tuple(a for a in extra_affinities if Element(a).value not in entry["affinities"]),
            keywords=frozenset(entry["keywords"]) | frozenset(extra_keywords),
            abilities=frozenset(abilities),
            ranged=entry.get("ranged"),
            ranged_attack_bonus=entry.get("ranged_attack_bonus") or 0,
            ranged_text=entry.get("ranged_text", ""),
            available=available,
            starts_in_healing_house=starts_in_healing_house,
        )


@dataclass(frozen=True)
class SimTeam:
    team_id: int
    roster: tuple[SimNinja, ...]
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "roster", tuple(self.roster))
