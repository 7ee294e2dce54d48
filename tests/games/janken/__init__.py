"""Janken, a fourth game that lives only here (issue 28, part 2): rock, paper, scissors, as Ninja
All-Stars settles initiative ("1. Play Janken (Rock, Paper, Scissors)", NAS l.65). A match is a
best of three throws between two players; nothing persists between games.

The package is what docs/architecture.md, "A game is one package", says a game holds: its plain
description (``GAME``, here), its pure rules (``engine.py``, standard library only) and its Django
side (``site.py``, a ``games.protocol.Game``). Its test registers it (``games.registry.register``),
so no file outside this folder knows of it."""

from games.base import GameInfo

GAME = GameInfo(
    key="janken",
    name="Janken",
    min_players=2,
    max_players=2,
    has_team_scrolls=False,
    has_challenges=False,
    entrant="player",
    entrants="players",
    # A best of three always has a winner: the table counts wins (tests/games/janken/site.py).
    tie_breakers=("wins", "head_to_head"),
    summary="Best-of-three rock, paper, scissors; the league keeps every throw.",
)
