"""The shape of what a match stores at kick-off (``MatchTeam.roster_snapshot``), typed.

A row is written once, by :func:`matches.services.roster_snapshot`, and read by the post-game
sequence (:func:`matches.services.roster_entry`), the simulator (:func:`matches.simulation.sim_ninja`)
and the match pages. Rows stored before a key was added lack it; readers take the key's default.
"""

from __future__ import annotations

from typing import TypedDict


class RosterRow(TypedDict):
    """One model on a team's roster as the match saw it at kick-off."""

    id: int
    name: str
    profile: str
    profile_slug: str
    kind: str  # "chunin", "genin", "hero", "ronin"
    koban: int
    upkeep: int
    is_chunin: bool
    is_hero: bool  # heroes and ronin
    is_ronin: bool
    movement: int
    attack: int
    defense: int
    affinities: list[str]
    keywords: list[str]
    ranged: str  # the ranged attack as the rulebook writes it ("Ranged 5: +2 Attack."), or ""; older snapshots lack it
    abilities: list[str]
    xp: int
    level: str
    advancements: int
    misses_games: int
    starts_in_healing_house: bool
    available: bool
