"""Ninjutsu: Battle of the Ninjas (../shared/seeds/ninjutsu-battle-of-the-ninjas-rulebook.txt)."""

from games.base import GameInfo

GAME = GameInfo(
    key="ninjutsu",
    name="Ninjutsu: Battle of the Ninjas",
    # "both players" (NJ l.28): one on one, nothing persists between games.
    min_players=2,
    max_players=2,
    has_team_scrolls=False,
    has_challenges=False,
    entrant="player",
    entrants="players",
    # A game has a winner and no score (NJ l.16, l.120): the table counts wins (games/ninjutsu/site.py),
    # and level players are parted by the strength of the opponents they beat, then by their own games.
    tie_breakers=("wins", "buchholz", "head_to_head"),
    summary="One-on-one games won by killing the opponent's Soke; the league keeps each winner and how the Soke died.",
    rules_pages=(("Rules", "rules:ninjutsu"), ("Battle odds", "rules:ninjutsu_odds")),
)
