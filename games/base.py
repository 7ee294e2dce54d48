"""What every game's league needs to know about it, as a plain value (standard library only).

Each game's package (``games/allstars``, ``games/ninjutsu``, ``games/kage_masters``) holds one
:class:`GameInfo`; ``games.registry`` lists them. The Django side (its result form, points,
statistics and simulator, its league table's columns) is its ``site`` module's
:class:`games.protocol.Game`: this package stays
beneath every app and imports none of them (tests/test_import_direction.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TEAM_WORD = re.compile(r"\b([Tt])eam(s?)\b")


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

    How the league table reads (issue 28, part 3): its columns are the game's Django side's
    (``games.protocol.Game.table_columns``). ``tie_breakers``: the tie-breakers a league of the game is founded with, by their names in
    ``rules.engine.standings.TieBreaker`` (empty: the engine's defaults, All-Stars'); its master may
    change them. ``strength_system``: the rating system that rates the game, one of the site's
    (``ratings``: ``"glicko2"``, Glicko-2, for one-on-one games, ``"plackett_luce"``,
    Plackett-Luce, for tables); its strength ratings, leaderboards and careers are the game's own.

    ``table_sizes``: for a game that plays at tables, the players a league's table seats, as
    (fewest, most): a scheduled table, a self-arranged one, a seating move and a table that players
    drop out of keep to it (Kage Masters: 3 to 5, docs/rulings.md, "Kage Masters: a league's table").

    How the site presents it beside the others (issue 28, part 6): ``summary``, one sentence of
    what a league of it keeps (the home page's card), and ``rules_pages``, its rules pages as
    (label, URL name) pairs, the first its main one (the ``/rules/`` index links them all).
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
    tie_breakers: tuple[str, ...] = ()
    strength_system: str = "glicko2"
    summary: str = ""
    rules_pages: tuple[tuple[str, str], ...] = ()
    table_sizes: tuple[int, int] = ()

    def __post_init__(self) -> None:
        if not 2 <= self.min_players <= self.max_players:
            raise ValueError(f"{self.key}: a match needs at least two sides, and min <= max.")
        if self.table_sizes and not self.min_players <= self.table_sizes[0] <= self.table_sizes[1] <= self.max_players:
            raise ValueError(f"{self.key}: a league's table seats between the game's fewest and most players.")

    def in_own_words(self, text: str) -> str:
        """``text`` (written for All-Stars teams) in this game's word for its entrants: "teams" become
        "players" in a players' game, capitals kept; a team scroll's game's text is unchanged."""
        if self.entrant == "team":
            return text

        def swap(match: re.Match) -> str:
            word = self.entrants if match.group(2) else self.entrant
            return word.capitalize() if match.group(1) == "T" else word

        return _TEAM_WORD.sub(swap, text)

    @property
    def is_one_on_one(self) -> bool:
        return self.min_players == self.max_players == 2
