"""Ninja Dice: Kage Masters (../shared/seeds/ninja-dice-kage-masters-rulebook.txt)."""

from games.base import GameInfo

GAME = GameInfo(
    key="kage_masters",
    name="Ninja Dice: Kage Masters",
    # A game for 2-5 players (KM); nothing persists between games.
    min_players=2,
    max_players=5,
    has_team_scrolls=False,
    has_challenges=False,
    entrant="player",
    entrants="players",
    # A season is played as tables of 3 to 5 (games.tables), not one-on-one pairings.
    plays_at_tables=True,
    # A league's table seats 3 to 5 (games.tables), though the book's game takes 2 (docs/rulings.md).
    table_sizes=(3, 5),
    # "The player with the most treasure wins" (KM l.46): a table's places score, treasure parts
    # the level (as founded before issue 28: league.models.default_tie_breakers reads them); the
    # league table's columns are places, treasure and place points (games/kage_masters/site.py).
    tie_breakers=("points_for", "head_to_head", "wins"),
    strength_system="plackett_luce",
    summary="Tables of three to five players after the most treasure; the league keeps each table's places "
    "and treasure.",
    rules_pages=(("Rules", "rules:kage_masters"),),
)
