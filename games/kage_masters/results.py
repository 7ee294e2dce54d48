"""Kage Masters' result records (issue 17; moved from games/players/results.py): the record its
result form gives, stored as the match's submitted record, its check, what it shows, and what it
writes on the sides when it is confirmed. The rules are the pure engine's
(games.kage_masters.engine); the house rules come as the engine's frozen
``rules.engine.house_rules.HouseRules`` (``matches.services.house_rules_for``).

A Kage Masters record (JSON): ``{"game": "kage_masters", "seats": [{"slot": 1, "kage_master":
"Spy", "coins": 7, "rewards": 3, "seat": 2 | null}, ...]}``, one entry a side of the match in slot
order; ``rewards`` the coin rewards of the Location Cards beaten, ``seat`` the first round's turn
order (all or none). Treasure = coins + rewards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games import registry
from games.kage_masters import engine as kage
from games.kage_masters import house_rules as own_rules
from games.players import results as game_results
from games.players.results import SideResult
from games.protocol import STRENGTH, Column
from rules.engine.house_rules import HouseRules

KAGE_MASTERS = registry.KAGE_MASTERS

KAGE_KEYS = {"game", "seats"}
KAGE_SEAT_KEYS = {"slot", "kage_master", "coins", "rewards", "seat"}
#: The most coins (or Location rewards) a record takes for a player: far above any game's (a player
#: starts with 3 coins, KM l.11, and a game has 3 rounds), low enough to catch a typing slip.
MAX_KAGE_COINS = 200


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
    ``kage_fixed_points``: games.kage_masters.house_rules)."""
    return kage.league_points(seats, own_rules.scheme(rules), own_rules.fixed_points(rules))


def _kage_sides(record: Mapping[str, Any], rules: HouseRules, dropped: Sequence[int] = ()) -> dict[int, SideResult]:
    """First place (shared too) wins, every other place loses; the points are the treasure; the
    league points are the table's under the house rules (docs/leagues.md, "Kage Masters tables").
    ``dropped``: the slots of the players who dropped out (not in the record): each loses with no
    treasure and scores last place or a forfeit loss, by the house rule ``kage_dropout``
    (games.kage_masters.engine.table_points)."""
    seats = kage_seats(record)
    scored = kage.table_points(
        seats,
        list(dropped),
        scheme=own_rules.scheme(rules),
        fixed=own_rules.fixed_points(rules),
        rule=kage.DropoutRule(own_rules.DROPOUT.of(rules)),
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


def problems(
    record: Mapping[str, Any],
    *,
    time_limit: bool = False,
    slots: Sequence[int] | None = None,
    game: str | None = None,
) -> list[str]:
    """What is wrong with a record, as messages (empty: nothing). ``slots``: the match's sides,
    which the record must be of; ``time_limit`` and ``game`` are the interface's (unused)."""
    if not game_results.is_record(record):
        return [game_results.NOT_A_RESULT]
    return _kage_problems(record, slots=slots)


#: Raise a ValidationError with every problem of a record (the per-game interface's check).
check = game_results.check_with(problems)


def side_results(
    record: Mapping[str, Any], rules: HouseRules | None = None, *, dropped: Sequence[int] = ()
) -> dict[int, SideResult]:
    """(outcome, points, league points) of each slot under the house rules (the season's);
    ``dropped``: the table's slots whose players dropped out."""
    return _kage_sides(record, rules or HouseRules(), dropped)


def summary(record: Mapping[str, Any], names: Sequence[str], rules: HouseRules | None = None) -> list[tuple[str, str]]:
    """The record as (label, value) lines for the match page: its players by place
    (:func:`kage_table` gives them as a table); ``names`` in slot order."""
    return _kage_summary(record, names, rules)


# --- the league table and a career (issue 28, part 3) ---------------------------------------------


def table_columns(_season) -> tuple[Column, ...]:
    """A table game's: the tables played, the places taken, the total treasure, the strength
    rating and the place points."""
    return (
        Column("played", "P", "Tables played"),
        Column("places_text", "Places", "Places taken at the tables", cell="text"),
        Column("points_for", "Treasure", "Total treasure"),
        STRENGTH,
        Column("points", "Pts", "Place points", strong=True),
    )


def career_record(won: int, drawn: int, lost: int) -> str:
    """ "3 won (first place), 5 not": a table has one winner and no draw."""
    return f"{won} won (first place), {drawn + lost} not"
