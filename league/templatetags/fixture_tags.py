"""Fixtures on the pages: of more than two sides (tables of a game such as Kage Masters), and a
players' game's result in one line ("Ink Shadow won: Soke killed in battle", issue 28, part 3)."""

from __future__ import annotations

from collections.abc import Iterable

from django import template

from games import registry

register = template.Library()


@register.filter
def others_of(sides: Iterable, team_id: int) -> list:
    """The sides of a fixture (MatchTeam rows, prefetched) other than ``team_id``'s: no query."""
    return [side for side in sides if side.team_id != team_id]


def _line_record(match) -> dict | None:
    """The record a fixture's line reads: the one applied (the second, a dispute settled so), else
    the submitted one, whole when loaded or as its annotated keys (league.selectors.record_line_fields)."""
    if match.settlement == "second" and isinstance(match.counter_record, dict):
        return match.counter_record
    if "submitted_record" not in match.get_deferred_fields():
        return match.submitted_record if isinstance(match.submitted_record, dict) else None
    if getattr(match, "record_game", None) is None:
        return None
    # every registered game's keys were annotated: a key this record does not have reads None
    return {
        key.removeprefix("record_"): value
        for key, value in vars(match).items()
        if key.startswith("record_") and value is not None
    }


@register.filter
def result_line(match) -> str:
    """A two-player game's result as one line ("" for a game whose score or places tell it): sides
    prefetched in slot order, no query."""
    if match.status not in ("confirmed", "submitted"):
        return ""
    record = _line_record(match)
    game = registry.sites().get(record.get("game")) if isinstance(record, dict) else None
    if game is None:
        return ""
    return game.result_line(record, [side.team.name for side in match.sides.all()])


_ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


@register.filter
def places_of(sides) -> list[tuple]:
    """A table's sides with their places by points (the treasure of a Kage Masters table): (side,
    "1st" or "=2nd"), in seat order; a side without points yet has no place (""), nor one who
    dropped out (his line says what he scored: :func:`dropout_lines`). No query."""
    sides = list(sides)
    points = [s.points for s in sides if s.points is not None and not s.dropped_out]
    out = []
    for side in sides:
        if side.points is None or side.dropped_out:
            out.append((side, ""))
            continue
        place = 1 + sum(other > side.points for other in points)
        shared = sum(other == side.points for other in points) > 1
        out.append((side, ("=" if shared else "") + _ORDINALS.get(place, f"{place}th")))
    return out


@register.filter
def dropout_lines(match, season) -> list[str]:
    """A table's players who dropped out, as its line reads them ("Botan dropped out: last place"),
    under the season's rules (``Game.dropout_line``): sides prefetched, no query."""
    return _dropout_lines(match.sides.all(), season.league.game, season, lambda side: side.team.name)


@register.filter
def side_dropout_lines(sides, match) -> list[str]:
    """The lines of a match page's ``sides`` who dropped out, by their names at the match (the
    match's league and season loaded with it: no query)."""
    if match.season_id is None:
        return []
    return _dropout_lines(sides, match.league.game, match.season, lambda side: side.name_at_match)


def _dropout_lines(sides, game: str, season, name) -> list[str]:
    line = registry.game_of(game).dropout_line
    if line is None:
        return []
    return [line(name(side), side.dropped_out, season) for side in sides if side.dropped_out]


@register.filter
def any_dropped_out(sides) -> bool:
    """Someone dropped out of this table (its sides given: no query)."""
    return any(side.dropped_out for side in sides)
