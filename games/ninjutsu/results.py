"""Ninjutsu's result records (issue 17; moved from games/players/results.py): the record its result
form gives, stored as the match's submitted record, its check, what it shows, and what it writes on
the sides when it is confirmed. The rules are the pure engine's (games.ninjutsu.engine); the house
rules come as the engine's frozen ``rules.engine.house_rules.HouseRules``
(``matches.services.house_rules_for``).

A Ninjutsu record (JSON): ``{"game": "ninjutsu", "winner": 1 | 2 | null, "starter": 1 | 2,
"colours": [str, str], "ending": Ending, "card": Card, "ninjas_left": [int, int] | null,
"shuriken": [int, int] | null, "cards": [int, int] | null}``; players are the sides' slots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games import registry
from games.ninjutsu import house_rules as own_rules
from games.ninjutsu.engine import Card, Ending, NinjutsuResult, validate
from games.players import results as game_results
from games.players.results import SideResult
from games.protocol import STRENGTH, Column
from rules.engine.house_rules import HouseRules

NINJUTSU = registry.NINJUTSU

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


def _ninjutsu_problems(record: Mapping[str, Any], *, time_limit: bool, slots: Sequence[int] | None) -> list[str]:
    try:
        result = ninjutsu_result(record)
    except (ValueError, TypeError):
        return ["This is not a Ninjutsu result."]
    found = validate(result, time_limit=time_limit)
    if slots is not None and sorted(slots) != [1, 2]:
        found.append("A Ninjutsu game is between the two sides of its match.")
    return found


def _ninjutsu_sides(record: Mapping[str, Any], rules: HouseRules) -> dict[int, SideResult]:
    """Won, lost or drawn (a time-limited game only); the points are the ninjas left when recorded
    (the table's "for" and "against", a margin), else 0. A game decided on time scores the house
    rule's points for a win or a loss on time; a draw on time scores a draw's (league points None)."""
    result = ninjutsu_result(record)
    left = result.ninjas_left or (0, 0)
    on_time = result.ending is Ending.TIME_LIMIT and result.winner is not None
    out = {}
    for index, slot in enumerate((1, 2)):
        outcome = "draw" if result.winner is None else ("win" if result.winner == slot else "loss")
        league = None
        if on_time:
            win, loss = own_rules.time_points(rules)
            league = win if outcome == "win" else loss
        out[slot] = (outcome, left[index], league)
    return out


def _ninjutsu_summary(record: Mapping[str, Any], names: Sequence[str]) -> list[tuple[str, str]]:
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


def ninjutsu_line(record: Mapping[str, Any], names: Sequence[str]) -> str:
    """A game's result as a list of results reads it: "Ink Shadow won: Soke killed in battle" (a
    draw on time: "Drawn on time"); ``names`` in slot order. Only the winner and the ending are read,
    so the fixture list can give them from two annotations (league.selectors.season_matches)."""
    ending = Ending(record.get("ending"))
    winner = record.get("winner")
    if winner in (None, ""):  # only a game the time limit stopped has no winner
        return "Drawn on time"
    winner = int(winner)
    name = names[winner - 1] if 0 < winner <= len(names) else f"Player {winner}"
    return f"{name} won on time" if ending is Ending.TIME_LIMIT else f"{name} won: {ending.short}"


def problems(
    record: Mapping[str, Any],
    *,
    time_limit: bool = False,
    slots: Sequence[int] | None = None,
    game: str | None = None,
) -> list[str]:
    """What is wrong with a record, as messages (empty: nothing). ``time_limit``: the season has a
    time limit; ``slots``: the match's sides, which the record must be of; ``game``: the match's."""
    if not game_results.is_record(record):
        return [game_results.NOT_A_RESULT]
    return _ninjutsu_problems(record, time_limit=time_limit, slots=slots)


#: Raise a ValidationError with every problem of a record (the per-game interface's check).
check = game_results.check_with(problems, own_rules.time_limited)


def side_results(
    record: Mapping[str, Any], rules: HouseRules | None = None, *, dropped: Sequence[int] = ()
) -> dict[int, SideResult]:
    """(outcome, points, league points) of each slot under the house rules (the season's)."""
    return _ninjutsu_sides(record, rules or HouseRules())


def result_line(record: Mapping[str, Any] | None, names: Sequence[str]) -> str:
    """A game's result in one line for the lists ("" when the record has none to give: none, or
    another game's record)."""
    if not isinstance(record, Mapping) or record.get("game") != NINJUTSU:
        return ""
    try:
        return ninjutsu_line(record, names)
    except (ValueError, TypeError):
        return ""


def summary(record: Mapping[str, Any], names: Sequence[str], rules: HouseRules | None = None) -> list[tuple[str, str]]:
    """The record as (label, value) lines for the match page; ``names`` in slot order."""
    return _ninjutsu_summary(record, names)


# --- the league table and a career (issue 28, part 3) ---------------------------------------------


def table_columns(season) -> tuple[Column, ...]:
    """A game with a winner and no score: played, won, lost (drawn only where the season's time
    limit allows a draw), the strength rating, the league points."""
    drawn = (Column("drawn", "D", "Drawn on time"),) if own_rules.time_limited(season) else ()
    return (
        Column("played", "P", "Played"),
        Column("won", "W", "Won"),
        *drawn,
        Column("lost", "L", "Lost"),
        STRENGTH,
        Column("points", "Pts", "League points", strong=True),
    )


def career_record(won: int, drawn: int, lost: int) -> str:
    """ "5 won, 2 lost": a draw only where there was one (a time limit's)."""
    return ", ".join([f"{won} won", *([f"{drawn} drawn"] if drawn else []), f"{lost} lost"])
