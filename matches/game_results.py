"""Results of the games whose entrants are players, not team scrolls (issue 17): the record a
game's result form gives, stored as the match's submitted record, its check, what it shows, and
what it writes on the sides when it is confirmed (outcome and points; there is no post-game
sequence). Ninjutsu for now: its rules are games.ninjutsu.engine (pure).

A Ninjutsu record (JSON): ``{"game": "ninjutsu", "winner": 1 | 2 | null, "starter": 1 | 2,
"colours": [str, str], "ending": Ending, "card": Card, "ninjas_left": [int, int] | null,
"shuriken": [int, int] | null, "cards": [int, int] | null}``; players are the sides' slots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError

from games import registry
from games.ninjutsu.engine import Card, Ending, NinjutsuResult, validate

NINJUTSU = registry.NINJUTSU
#: The players' games whose results the site takes (Kage Masters' tables come later).
ENTERABLE = frozenset({NINJUTSU})

#: The record's keys (a record with others is refused: a result is what the form gives).
KEYS = {"game", "winner", "starter", "colours", "ending", "card", "ninjas_left", "shuriken", "cards"}


def _pair(value) -> tuple[int, int] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(type(v) is int for v in value):
        raise ValueError("a pair of whole numbers")
    return (value[0], value[1])


def ninjutsu_result(record: Mapping[str, Any]) -> NinjutsuResult:
    """The pure result of a stored record (players are the slots 1 and 2); ValueError when the
    record is not one."""
    if set(record) - KEYS or record.get("game") != NINJUTSU:
        raise ValueError("not a Ninjutsu record")
    colours = record.get("colours")
    if not isinstance(colours, list | tuple) or len(colours) != 2 or not all(isinstance(c, str) for c in colours):
        raise ValueError("two colours")
    return NinjutsuResult(
        players=(1, 2),
        colours=(colours[0], colours[1]),
        starter=record.get("starter"),
        winner=record.get("winner"),
        ending=Ending(record.get("ending")),
        card=Card(record.get("card", Card.NONE.value)),
        ninjas_left=_pair(record.get("ninjas_left")),
        shuriken_used=_pair(record.get("shuriken")),
        cards_used=_pair(record.get("cards")),
    )


def problems(record: Mapping[str, Any], *, time_limit: bool = False) -> list[str]:
    """What is wrong with a record, as messages (empty: nothing)."""
    try:
        result = ninjutsu_result(record)
    except (ValueError, TypeError):
        return ["This is not a Ninjutsu result."]
    return validate(result, time_limit=time_limit)


def check(record: Mapping[str, Any], *, time_limit: bool = False) -> None:
    """Raise a ValidationError with every problem of a record (the per-game interface's check)."""
    found = problems(record, time_limit=time_limit)
    if found:
        raise ValidationError(found)


def side_results(record: Mapping[str, Any]) -> dict[int, tuple[str, int]]:
    """(outcome, points) of each slot: won, lost or drawn (a time-limited game only); the points
    are the ninjas left when recorded (the table's "for" and "against", a margin), else 0."""
    result = ninjutsu_result(record)
    left = result.ninjas_left or (0, 0)
    out = {}
    for index, slot in enumerate((1, 2)):
        outcome = "draw" if result.winner is None else ("win" if result.winner == slot else "loss")
        out[slot] = (outcome, left[index])
    return out


def summary(record: Mapping[str, Any], names: Sequence[str]) -> list[tuple[str, str]]:
    """The record as (label, value) lines for the match page; ``names`` in slot order."""
    result = ninjutsu_result(record)
    name = {1: names[0], 2: names[1]}
    lines = [
        ("Winner", name[result.winner] if result.winner is not None else "Nobody: a draw on time"),
        ("How it ended", result.ending.label),
    ]
    if result.card is not Card.NONE:
        lines.append(("The card that opened the way", result.card.value.capitalize()))
    lines.append(("Started", name[result.starter]))
    lines.append(("Colours", f"{names[0]} {result.colours[0]}, {names[1]} {result.colours[1]}"))
    for label, pair in (
        ("Ninjas left", result.ninjas_left),
        ("Shuriken used", result.shuriken_used),
        ("Action cards used", result.cards_used),
    ):
        if pair is not None:
            lines.append((label, f"{names[0]} {pair[0]}, {names[1]} {pair[1]}"))
    return lines
