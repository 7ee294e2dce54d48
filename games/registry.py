"""The games a league can be for, by key (standard library only).

Adding a game: its package under ``games/`` with a ``GAME`` (:class:`games.base.GameInfo`), one
line in ``_PACKAGES`` below, and its Django hooks in ``league/games.py`` (docs/leagues.md, "Games").
The keys are stored in the database (``League.game``, ``Team.game``): never rename one.
"""

from __future__ import annotations

from games import allstars, kage_masters, ninjutsu
from games.base import GameInfo

ALLSTARS = allstars.GAME.key
NINJUTSU = ninjutsu.GAME.key
KAGE_MASTERS = kage_masters.GAME.key
DEFAULT = ALLSTARS

_PACKAGES = (allstars, ninjutsu, kage_masters)

#: Every game, by key, in the order the founding form offers them.
GAMES: dict[str, GameInfo] = {p.GAME.key: p.GAME for p in _PACKAGES}

#: (key, name) pairs: the model fields' choices.
CHOICES: list[tuple[str, str]] = [(g.key, g.name) for g in GAMES.values()]


def get(key: str) -> GameInfo:
    """The game of ``key``; a ``KeyError`` naming the known keys for an unknown one."""
    try:
        return GAMES[key]
    except KeyError:
        raise KeyError(f"No game {key!r}; known: {', '.join(GAMES)}") from None
