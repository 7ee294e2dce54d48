"""The common base of a match's parts (referee, targeting policy, actions, a challenge's rules)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .match import Match


class Part:
    """A part of a :class:`~.match.Match`, with the match and its board and journal at hand. The
    parts call each other through the match (``self.match.actions`` ...); the ones a part uses
    often are kept as attributes."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.board = match.board
        self.journal = match.journal
