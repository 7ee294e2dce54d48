"""The games a league can be for, by key (standard library only).

Two registries, both keyed by the game's key (stored in the database: ``League.game``,
``Team.game``; never rename one):

* :data:`GAMES`, each game's plain description (:class:`games.base.GameInfo`), known without
  Django: the three games of the site's own packages, listed in ``_PACKAGES``, and any game
  :func:`register` adds;
* the games' Django sides, each a :class:`games.protocol.Game`, registered at start-up by
  ``games.apps.GamesConfig.ready()`` from the ``MOONLIGHT_GAMES`` setting (a module a game, each
  with a ``GAME_SITE``); the core asks :func:`game_of` for them and never imports a game's Django
  side itself (tests/test_import_direction.py).

Adding a game: its package (docs/architecture.md, "A game is one package") and one line in
``MOONLIGHT_GAMES``; a test may :func:`register` one and :func:`unregister` it after.
"""

from __future__ import annotations

from typing import Any

from games import allstars, kage_masters, ninjutsu
from games.base import GameInfo
from games.protocol import Game

ALLSTARS = allstars.GAME.key
NINJUTSU = ninjutsu.GAME.key
KAGE_MASTERS = kage_masters.GAME.key
DEFAULT = ALLSTARS

_PACKAGES = (allstars, ninjutsu, kage_masters)

#: Every game, by key, in the order the founding form offers them.
GAMES: dict[str, GameInfo] = {p.GAME.key: p.GAME for p in _PACKAGES}

#: (key, name) pairs, the order of GAMES (a list kept in step with it by register/unregister).
CHOICES: list[tuple[str, str]] = [(g.key, g.name) for g in GAMES.values()]

#: Each game's Django side, by key (filled at start-up).
_SITES: dict[str, Game] = {}


def choices() -> list[tuple[str, str]]:
    """(key, name) of every game, as the model fields and forms offer them: a callable, so the
    migrations store its name, not the list, and a new game needs no migration (issue 28)."""
    return [(g.key, g.name) for g in GAMES.values()]


def get(key: str) -> GameInfo:
    """The game of ``key``; a ``KeyError`` naming the known keys for an unknown one."""
    try:
        return GAMES[key]
    except KeyError:
        raise KeyError(f"No game {key!r}; known: {', '.join(GAMES)}") from None


def _sync_choices() -> None:
    CHOICES[:] = [(g.key, g.name) for g in GAMES.values()]


def register(game: Game) -> Game:
    """Register a game's Django side (and its description, when it is a new game). Registering
    the same key again replaces it (a reloaded module); a different description under a known
    key is refused."""
    if not isinstance(game, Game):
        raise TypeError(f"A game registers a games.protocol.Game, not {type(game).__name__}.")
    known = GAMES.get(game.key)
    if known is not None and known != game.info:
        raise ValueError(f"{game.key}: another game already has this key.")
    GAMES[game.key] = game.info
    _SITES[game.key] = game
    _sync_choices()
    return game


def unregister(key: str) -> None:
    """Remove a game a test registered (the site's own three stay)."""
    if key in {p.GAME.key for p in _PACKAGES}:
        raise ValueError(f"{key} is one of the site's own games.")
    GAMES.pop(key, None)
    _SITES.pop(key, None)
    _sync_choices()


def sites() -> dict[str, Game]:
    """Every registered game's Django side, by key, in the order of GAMES."""
    return {key: _SITES[key] for key in GAMES if key in _SITES}


def team_scroll_games() -> list[str]:
    """The keys of the games whose entrants are team scrolls (``Game.team_scrolls``: All-Stars),
    for the queries of the teams app that read scrolls only."""
    return [key for key, game in sites().items() if game.team_scrolls]


def game_of(league: Any) -> Game:
    """The Django side of a league's game: ``league`` a League (or anything with ``game``: a
    Team), a match (its league's), or a game's key."""
    key = league if isinstance(league, str) else getattr(league, "game", None)
    if key is None and getattr(league, "league", None) is not None:
        key = league.league.game
    try:
        return _SITES[key]
    except KeyError:
        if key in GAMES:
            raise LookupError(f"{key}: its Django side is not registered (MOONLIGHT_GAMES).") from None
        raise KeyError(f"No game {key!r}; known: {', '.join(GAMES)}") from None
