"""Fixtures of more than two sides (tables of a game such as Kage Masters) on the pages."""

from __future__ import annotations

from collections.abc import Iterable

from django import template

register = template.Library()


@register.filter
def others_of(sides: Iterable, team_id: int) -> list:
    """The sides of a fixture (MatchTeam rows, prefetched) other than ``team_id``'s: no query."""
    return [side for side in sides if side.team_id != team_id]
