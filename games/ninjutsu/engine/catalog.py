"""What the Ninjutsu rulebook lists, transcribed for the rules page (NJ l.N): the components and the
action cards. The ranks and their battle dice are :class:`~games.ninjutsu.engine.battle.Rank`."""

from __future__ import annotations

__all__ = ["ACTION_CARD_TEXT", "COMPONENTS", "MISSING"]

#: (component, how many, where the book says it).
COMPONENTS: tuple[tuple[str, str, str], ...] = (
    ("Board, with passage-ways placed into it", "1", "NJ l.20"),
    ("Dojo (the dice tray battles are rolled in)", "1", "NJ l.20"),
    ("Playing pieces (1 star, 2 stars, Soke), set up on your first 3 rows", "a set per colour", "NJ l.22"),
    ("Action cards", "5 per player", "NJ l.24"),
    ("Weapon cards, shuffled as a draw deck", "45 per colour", "NJ l.24"),
    ("Shuriken tokens", "3 per player, the rest next to the Dojo", "NJ l.26"),
    ("Dice: 6-, 8- and 12-sided", "3 per colour", "NJ l.28"),
)

#: The five action cards, each used once and then removed from the game (NJ l.100-116).
ACTION_CARD_TEXT: tuple[tuple[str, str], ...] = (
    (
        "Jump",
        "Move one of your ninjas through/over an opponent's ninja. The jump uses no movement points if "
        "it is taken against an opposing ninja on the field straight in front of the ninja making the jump.",
    ),
    ("Smoke", "You may move one of your ninjas through one of the passage-ways this turn."),
    (
        "Kidnap",
        "Kidnap one of the opponent's ninjas from his front row only: remove it from play, no battle "
        "happens. You cannot kidnap the Soke; if you pick up the Soke, put him back, but now you know his position.",
    ),
    ("New weapon", "Turn over 3 new weapon cards in phase 1. You can play this card on an opponent's turn as well."),
    (
        "Joker",
        "Perform any of the 4 other action-card effects, you choose; or trade the card in for a shuriken "
        "if any are available.",
    ),
)

#: What a player would need and the book does not give (so no full game can be simulated).
MISSING: tuple[str, ...] = (
    "the board's size and where the passage-ways go",
    "how many pieces of each rank a side has",
    "the weapon cards' values",
    "the colours' names",
)
