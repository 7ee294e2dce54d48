"""Results of the games whose entrants are players, not team scrolls (issue 17): the record a
game's result form gives, stored as the match's submitted record, its check, what it shows, and
what it writes on the sides when it is confirmed (outcome, points and the league points the game
gives itself; there is no post-game sequence). The rules are the games' pure engines
(games.ninjutsu.engine, games.kage_masters.engine); the house rules come as the engine's frozen
``rules.engine.house_rules.HouseRules`` (``matches.services.house_rules_for``).

A Ninjutsu record (JSON): ``{"game": "ninjutsu", "winner": 1 | 2 | null, "starter": 1 | 2,
"colours": [str, str], "ending": Ending, "card": Card, "ninjas_left": [int, int] | null,
"shuriken": [int, int] | null, "cards": [int, int] | null}``; players are the sides' slots.

A Kage Masters record (JSON): ``{"game": "kage_masters", "seats": [{"slot": 1, "kage_master":
"Spy", "coins": 7, "rewards": 3, "seat": 2 | null}, ...]}``, one entry a side of the match in slot
order; ``rewards`` the coin rewards of the Location Cards beaten, ``seat`` the first round's turn
order (all or none). Treasure = coins + rewards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError

from games import registry
from games.kage_masters import engine as kage
from games.ninjutsu.engine import Card, Ending, NinjutsuResult, validate
from rules.engine.house_rules import HouseRules

NINJUTSU = registry.NINJUTSU
KAGE_MASTERS = registry.KAGE_MASTERS
#: The players' games whose results the site (and the API) takes.
ENTERABLE = frozenset({NINJUTSU, KAGE_MASTERS})

#: The record's keys (a record with others is refused: a result is what the form gives).
KEYS = {"game", "winner", "starter", "colours", "ending", "card", "ninjas_left", "shuriken", "cards"}
KAGE_KEYS = {"game", "seats"}
KAGE_SEAT_KEYS = {"slot", "kage_master", "coins", "rewards", "seat"}
#: The most coins (or Location rewards) a record takes for a player: far above any game's (a player
#: starts with 3 coins, KM l.11, and a game has 3 rounds), low enough to catch a typing slip.
MAX_KAGE_COINS = 200

#: What a side's result is once confirmed: outcome, points (the table's "for" and "against") and the
#: league points its game gave it (None: the points of its outcome under the house rules).
SideResult = tuple[str, int | None, int | None]


# --- Ninjutsu --------------------------------------------------------------------------------------


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
            win, loss = rules.points_time_win, rules.points_time_loss
            league = (
                (rules.points_win if win is None else win)
                if outcome == "win"
                else (rules.points_loss if loss is None else loss)
            )
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


# --- Kage Masters ----------------------------------------------------------------------------------


def kage_seats(record: Mapping[str, Any]) -> tuple[kage.Seat, ...]:
    """The table of a stored Kage Masters record as the engine's seats (player = the side's slot),
    in the record's order; ValueError when the record is not one (wrong keys or types)."""
    if not isinstance(record, Mapping) or set(record) - KAGE_KEYS or record.get("game") != KAGE_MASTERS:
        raise ValueError("not a Kage Masters record")
    seats = record.get("seats")
    if not isinstance(seats, list | tuple):
        raise ValueError("no seats")
    out = []
    for seat in seats:
        if not isinstance(seat, Mapping) or set(seat) - KAGE_SEAT_KEYS:
            raise ValueError("a seat has slot, kage_master, coins, rewards and seat")
        slot, master, coins = seat.get("slot"), seat.get("kage_master"), seat.get("coins")
        rewards, turn = seat.get("rewards", 0), seat.get("seat")
        if type(slot) is not int or not isinstance(master, str) or type(coins) is not int or type(rewards) is not int:
            raise ValueError("a seat's slot, coins and rewards are whole numbers, its Kage Master a name")
        if turn is not None and type(turn) is not int:
            raise ValueError("a seat's place in the turn order is a whole number")
        out.append(kage.Seat(player=slot, kage_master=master, coins=coins, location_rewards=rewards, seat=turn))
    return tuple(out)


def _kage_problems(record: Mapping[str, Any], *, slots: Sequence[int] | None) -> list[str]:
    try:
        seats = kage_seats(record)
    except (ValueError, TypeError):
        return ["This is not a Kage Masters result."]
    found = kage.validate(seats)
    if any(s.coins > MAX_KAGE_COINS or s.location_rewards > MAX_KAGE_COINS for s in seats):
        found.append(f"Coins and Location rewards: at most {MAX_KAGE_COINS} for a player.")
    if slots is not None and [s.player for s in seats] != sorted(slots):
        found.append("Give one line for each player of this table, in the table's order.")
    return found


def kage_league_points(seats: Sequence[kage.Seat], rules: HouseRules) -> tuple[int, ...]:
    """Each seat's league points under the house rules (``kage_points``, and the fixed scheme's
    ``kage_fixed_points``)."""
    fixed = tuple(int(p) for p in rules.kage_fixed_points.split(","))
    return kage.league_points(seats, kage.PointsScheme(rules.kage_points), fixed)


def _kage_sides(record: Mapping[str, Any], rules: HouseRules, dropped: Sequence[int] = ()) -> dict[int, SideResult]:
    """First place (shared too) wins, every other place loses; the points are the treasure; the
    league points are the table's under the house rules (docs/leagues.md, "Kage Masters tables").
    ``dropped``: the slots of the players who dropped out (not in the record): each loses with no
    treasure and scores last place or a forfeit loss, by the house rule ``kage_dropout``
    (games.kage_masters.engine.table_points)."""
    seats = kage_seats(record)
    fixed = tuple(int(p) for p in rules.kage_fixed_points.split(","))
    scored = kage.table_points(
        seats,
        list(dropped),
        scheme=kage.PointsScheme(rules.kage_points),
        fixed=fixed,
        rule=kage.DropoutRule(rules.kage_dropout),
    )
    treasure = {seat.player: seat.treasure for seat in seats}
    out: dict[int, SideResult] = {}
    for slot, (place, league) in scored.items():
        if slot in treasure:
            out[slot] = ("win" if place == 1 else "loss", treasure[slot], league)
        else:  # dropped out: a loss; a forfeit loss scores the season's forfeit points
            forfeit = rules.points_loss if rules.points_forfeit_loss is None else rules.points_forfeit_loss
            out[slot] = ("loss", None, forfeit if league is None else league)
    return out


def dropout_line(name: str, when: str, rule: str) -> str:
    """How a list reads a player who dropped out of a table: "Botan dropped out: last place"."""
    what = "a forfeit loss" if rule == kage.DropoutRule.FORFEIT_LOSS else "last place"
    return f"{name} dropped out{' during the game' if when == 'during' else ''}: {what}"


@dataclass(frozen=True)
class KageRow:
    """One player's line of a table's result, as the match page shows it (by place)."""

    place: str
    name: str
    kage_master: str
    coins: int
    rewards: int
    treasure: int
    league_points: int | None
    seat: int | None


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def kage_table(record: Mapping[str, Any], names: Sequence[str], rules: HouseRules | None = None) -> list[KageRow]:
    """The table's lines by place (a shared place marked "=2nd"); league points under ``rules``
    when given. ``names`` in slot order."""
    seats = kage_seats(record)
    places = kage.placements(seats)
    points = kage_league_points(seats, rules) if rules is not None else (None,) * len(seats)
    rows = []
    for seat, place, league in sorted(zip(seats, places, points, strict=True), key=lambda t: (t[1], t[0].player)):
        shared = places.count(place) > 1
        rows.append(
            KageRow(
                place=("=" if shared else "") + _ordinal(place),
                name=names[seat.player - 1] if 0 < seat.player <= len(names) else f"Player {seat.player}",
                kage_master=seat.kage_master,
                coins=seat.coins,
                rewards=seat.location_rewards,
                treasure=seat.treasure,
                league_points=league,
                seat=seat.seat,
            )
        )
    return rows


def _kage_summary(record: Mapping[str, Any], names: Sequence[str], rules: HouseRules | None) -> list[tuple[str, str]]:
    lines = []
    for row in kage_table(record, names, rules):
        value = f"{row.kage_master}: {row.coins} coins + {row.rewards} rewards = {row.treasure} treasure"
        if row.league_points is not None:
            value += f", {row.league_points} league point{'s' if row.league_points != 1 else ''}"
        if row.seat is not None:
            value += f" (seat {row.seat})"
        lines.append((f"{row.place} {row.name}", value))
    return lines


# --- by the record's game --------------------------------------------------------------------------


def problems(
    record: Mapping[str, Any],
    *,
    time_limit: bool = False,
    slots: Sequence[int] | None = None,
    game: str | None = None,
) -> list[str]:
    """What is wrong with a record, as messages (empty: nothing). ``game``: the match's game (the
    record must be of it; else the record's own); ``time_limit``: the season has a time limit
    (Ninjutsu); ``slots``: the match's sides, which the record must be of."""
    if not isinstance(record, Mapping):
        return ["This is not a result."]
    if (game or record.get("game")) == KAGE_MASTERS:
        return _kage_problems(record, slots=slots)
    return _ninjutsu_problems(record, time_limit=time_limit, slots=slots)


def check(
    record: Mapping[str, Any],
    *,
    time_limit: bool = False,
    slots: Sequence[int] | None = None,
    game: str | None = None,
) -> None:
    """Raise a ValidationError with every problem of a record (the per-game interface's check)."""
    found = problems(record, time_limit=time_limit, slots=slots, game=game)
    if found:
        raise ValidationError(found)


def side_results(
    record: Mapping[str, Any], rules: HouseRules | None = None, *, dropped: Sequence[int] = ()
) -> dict[int, SideResult]:
    """(outcome, points, league points) of each slot under the house rules (the season's);
    ``dropped``: a table's slots whose players dropped out (Kage Masters)."""
    rules = rules or HouseRules()
    if record.get("game") == KAGE_MASTERS:
        return _kage_sides(record, rules, dropped)
    return _ninjutsu_sides(record, rules)


def result_line(record: Mapping[str, Any] | None, names: Sequence[str]) -> str:
    """A two-player game's result in one line for the lists ("" when the record has none to give:
    none, an All-Stars record, or a table, whose places each side's line shows)."""
    if not isinstance(record, Mapping) or record.get("game") != NINJUTSU:
        return ""
    try:
        return ninjutsu_line(record, names)
    except (ValueError, TypeError):
        return ""


def summary(record: Mapping[str, Any], names: Sequence[str], rules: HouseRules | None = None) -> list[tuple[str, str]]:
    """The record as (label, value) lines for the match page; ``names`` in slot order. A Kage
    Masters table's lines are its players by place (:func:`kage_table` gives them as a table)."""
    if record.get("game") == KAGE_MASTERS:
        return _kage_summary(record, names, rules)
    return _ninjutsu_summary(record, names)
