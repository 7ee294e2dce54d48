"""What every game's league needs to know about it, as a plain value (standard library only).

Each game's package (``games/allstars``, ``games/ninjutsu``, ``games/kage_masters``) holds one
:class:`GameInfo`; ``games.registry`` lists them. The Django side (its result form, points,
statistics and simulator) is bound to the same key in ``league/games.py``: this package stays
beneath every app and imports none of them (tests/test_import_direction.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameInfo:
    """One game a league can be for.

    ``min_players``/``max_players``: how many sides a match of the game has (a table of 2-5 for
    Kage Masters). ``has_team_scrolls``: entrants are team scrolls with a clan, a roster, a treasury
    and progression (All-Stars); otherwise an entrant is a player, named in the league by an
    optional display name. ``has_challenges``: each fixture is played under a challenge (the NAS
    random challenge generator, rolled when it is scheduled). ``entrant``/``entrants``: what a league of the game calls them.
    ``plays_at_tables``: a game is a table of several players (Kage Masters), so a season is
    scheduled as tables (``games.tables``), not as pairings.
    """

    key: str
    name: str
    min_players: int
    max_players: int
    has_team_scrolls: bool
    has_challenges: bool
    entrant: str
    entrants: str
    plays_at_tables: bool = False

    def __post_init__(self) -> None:
        if not 2 <= self.min_players <= self.max_players:
            raise ValueError(f"{self.key}: a match needs at least two sides, and min <= max.")

    @property
    def is_one_on_one(self) -> bool:
        return self.min_players == self.max_players == 2
