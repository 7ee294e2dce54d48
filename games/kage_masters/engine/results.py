"""A Kage Masters table as a league records it: each seat's Kage Master and treasure, the
placements and league points they give, the statistics of a season of tables, and a strength
model that plays one (rulebook lines cited as KM l.N).

From the book: 2 to 5 players, one Kage Master each (5 Kage Master dice and cards, KM l.13-14;
"each player chooses a Kage Master, taking the die and character card", KM l.9, so no two players
at a table share one); 3 rounds, each player the Active Ninja once a round (KM l.20); "after 3
rounds, count up how much treasure you have, including the coin reward from any Location Cards you
defeated ... Whoever has the most treasure is the winner!" (KM l.46). The book names its five Kage
Masters only in its worked example (KM l.35-39).

The league's rulings (docs/rulings.md, "Kage Masters"): equal treasure shares a place (the book
has no tie-break); a table's league points are a house rule, by default one point for each
opponent beaten (a player with more treasure beats one with less), with total treasure as the
table's tie-break. Standard library only (no Django).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

__all__ = [
    "DropoutRule",
    "KAGE_MASTERS",
    "MAX_PLACE_POINTS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PointsScheme",
    "Seat",
    "SeasonStats",
    "league_points",
    "placements",
    "season_stats",
    "simulate_table",
    "table_points",
    "validate",
]

MIN_PLAYERS, MAX_PLAYERS = 2, 5
#: The Kage Masters the book names, in its worked example (KM l.35-39): one die and card each.
KAGE_MASTERS = ("Assassin", "Chain Specialist", "Firebrand", "Spy", "Trickster")
#: Coins a player starts with (KM l.11): a player who never beats the House and is never robbed
#: ends with them; treasure below zero is impossible (an Arrow steals a coin the target has).
STARTING_COINS = 3
#: Most league points a place scores under the fixed scheme (a house rule, "3,2,1,0,0" by
#: default): as bounded as the other games' league points (rules.engine.house_rules.MAX_POINTS).
MAX_PLACE_POINTS = 20


@dataclass(frozen=True)
class Seat:
    """One player at a table: ``coins`` at the end of the game and ``location_rewards`` the coin
    rewards of the Location Cards he beat (KM l.46); ``seat`` his place in the first round's turn
    order (1 first), when recorded."""

    player: Hashable
    kage_master: str
    coins: int
    location_rewards: int = 0
    seat: int | None = None

    @property
    def treasure(self) -> int:
        return self.coins + self.location_rewards


def validate(seats: Sequence[Seat], *, kage_masters: Sequence[str] = KAGE_MASTERS) -> list[str]:
    """What is wrong with a table's result, as messages for the player entering it."""
    errors: list[str] = []
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
        errors.append(f"A table has {MIN_PLAYERS} to {MAX_PLAYERS} players.")
    players = [s.player for s in seats]
    if len(set(players)) != len(players):
        errors.append("A player sits at a table once.")
    masters = [s.kage_master for s in seats]
    unknown = sorted({m for m in masters if m not in kage_masters})
    if unknown:
        errors.append(f"Unknown Kage Master: {', '.join(unknown)}.")
    if len(set(masters)) != len(masters):
        errors.append("Each player takes a different Kage Master (one die and card each).")
    if any(s.coins < 0 or s.location_rewards < 0 for s in seats):
        errors.append("Coins and Location rewards cannot be negative.")
    numbered = [s.seat for s in seats if s.seat is not None]
    if numbered and sorted(numbered) != list(range(1, len(seats) + 1)):
        errors.append(f"Seats are numbered 1 to {len(seats)}, each once (or none given).")
    return errors


def placements(seats: Sequence[Seat]) -> tuple[int, ...]:
    """Each seat's place by treasure (1 = most); equal treasure shares a place: (1, 2, 2, 4)."""
    treasures = [s.treasure for s in seats]
    return tuple(1 + sum(other > mine for other in treasures) for mine in treasures)


class PointsScheme(StrEnum):
    """How a table's placements become league points (a house rule: the book has no league)."""

    OPPONENTS_BEATEN = "opponents_beaten"  # one point for each player with less treasure
    WINNER_ONLY = "winner_only"  # one point for first place (shared on equal treasure)
    FIXED = "fixed"  # the league's points for 1st, 2nd, ... (``fixed``)


def league_points(
    seats: Sequence[Seat], scheme: PointsScheme = PointsScheme.OPPONENTS_BEATEN, fixed: Sequence[int] = (3, 2, 1, 0, 0)
) -> tuple[int, ...]:
    """Each seat's league points for the table. With ``FIXED``, a shared place scores the points
    of that place (two players sharing 2nd both score 2nd's points)."""
    places = placements(seats)
    if scheme is PointsScheme.OPPONENTS_BEATEN:
        return tuple(sum(other > mine for other in places) for mine in places)
    if scheme is PointsScheme.WINNER_ONLY:
        return tuple(int(p == 1) for p in places)
    if len(fixed) < len(seats):
        raise ValueError(f"the fixed scheme needs points for {len(seats)} places")
    return tuple(fixed[p - 1] for p in places)


class DropoutRule(StrEnum):
    """What a player who drops out of a table scores (a house rule: the book has no league).

    The table plays on with the players present either way (docs/rulings.md, "Kage Masters: a
    player who drops out")."""

    LAST_PLACE = "last_place"  # placed last at the table, below every player present
    FORFEIT_LOSS = "forfeit_loss"  # not placed: a forfeit loss; the others are placed among themselves


def table_points(
    present: Sequence[Seat],
    absent: Sequence[Hashable] = (),
    *,
    scheme: PointsScheme = PointsScheme.OPPONENTS_BEATEN,
    fixed: Sequence[int] = (3, 2, 1, 0, 0),
    rule: DropoutRule = DropoutRule.LAST_PLACE,
) -> dict[Hashable, tuple[int | None, int | None]]:
    """Each player's (place, league points) at a table some of whose players dropped out.

    ``present``: the seats of the players who played it out (their treasure places them);
    ``absent``: the players who dropped out (before or during the game). Under ``LAST_PLACE`` the
    absent share the last place of the whole table (a table of 4 with one absent: he is 4th) and
    score that place under ``scheme``, and every player present has beaten them; under
    ``FORFEIT_LOSS`` the absent are not placed (``(None, None)``: the caller gives the forfeit's
    points) and the players present are placed and scored as a table of their own."""
    absent = list(absent)
    if len(set(absent)) != len(absent) or set(absent) & {s.player for s in present}:
        raise ValueError("a player is present or absent, once")
    if rule is DropoutRule.FORFEIT_LOSS or not absent:
        out: dict[Hashable, tuple[int | None, int | None]] = {
            seat.player: (place, points)
            for seat, place, points in zip(
                present, placements(present), league_points(present, scheme, fixed), strict=True
            )
        }
        out.update(dict.fromkeys(absent, (None, None)))
        return out
    places = list(placements(present)) + [len(present) + 1] * len(absent)
    players = [s.player for s in present] + absent
    if scheme is PointsScheme.OPPONENTS_BEATEN:
        points = [sum(other > mine for other in places) for mine in places]
    elif scheme is PointsScheme.WINNER_ONLY:
        points = [int(p == 1) for p in places]
    else:
        if len(fixed) < len(places):
            raise ValueError(f"the fixed scheme needs points for {len(places)} places")
        points = [fixed[p - 1] for p in places]
    return {player: (place, point) for player, place, point in zip(players, places, points, strict=True)}


@dataclass(frozen=True)
class SeasonStats:
    """What a season of tables says: each Kage Master's tables and wins (first place, shared or
    not), and the treasure by first-round seat for each table size."""

    master_tables: dict[str, int]
    master_wins: dict[str, int]
    treasure_by_seat: dict[tuple[int, int], Fraction]  # (table size, seat) -> mean treasure
    tables_by_seat: dict[tuple[int, int], int]

    def win_rate(self, master: str) -> Fraction | None:
        tables = self.master_tables.get(master, 0)
        return Fraction(self.master_wins.get(master, 0), tables) if tables else None


def season_stats(tables: Iterable[Sequence[Seat]]) -> SeasonStats:
    master_tables: dict[str, int] = defaultdict(int)
    master_wins: dict[str, int] = defaultdict(int)
    treasure: dict[tuple[int, int], int] = defaultdict(int)
    count: dict[tuple[int, int], int] = defaultdict(int)
    for seats in tables:
        for seat, place in zip(seats, placements(seats), strict=True):
            master_tables[seat.kage_master] += 1
            master_wins[seat.kage_master] += place == 1
            if seat.seat is not None:
                key = (len(seats), seat.seat)
                treasure[key] += seat.treasure
                count[key] += 1
    return SeasonStats(
        dict(master_tables),
        dict(master_wins),
        {key: Fraction(treasure[key], count[key]) for key in count},
        dict(count),
    )


def simulate_table(
    players: Sequence[Hashable], masters: Sequence[str], *, strengths: Sequence[float], rng: random.Random
) -> tuple[Seat, ...]:
    """A table decided by the strength model, not played. ``strengths`` are the players' positive
    Plackett-Luce strengths (from the league's table ratings): the finishing order is drawn place
    by place, each remaining player taking the next place with a chance proportional to his
    strength. Treasures are flavour: the starting 3 coins, then in each of the 3 rounds an even
    chance of beating the House as in the game without Location Cards (4, 5 and 6 House dice, a
    coin each, KM l.31, and a bonus of 1, 2 and 3 coins, counted here as the Location reward,
    KM l.42-44) and a few coins stolen or stolen back; the hauls are sorted so that the drawn
    order holds, and equal hauls share a place. Seats follow the order of ``players``."""
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise ValueError(f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if not len(players) == len(masters) == len(strengths):
        raise ValueError("one Kage Master and one strength a player")
    if any(not s > 0 for s in strengths):
        raise ValueError("strengths are positive")
    remaining = list(range(len(players)))
    order: list[int] = []
    while remaining:
        pick = rng.choices(remaining, weights=[strengths[i] for i in remaining])[0]
        order.append(pick)
        remaining.remove(pick)
    hauls = sorted((_haul(rng) for _ in players), key=lambda h: -(h[0] + h[1]))
    by_player = {i: hauls[place] for place, i in enumerate(order)}
    return tuple(
        Seat(player=p, kage_master=m, coins=by_player[i][0], location_rewards=by_player[i][1], seat=i + 1)
        for i, (p, m) in enumerate(zip(players, masters, strict=True))
    )


def _haul(rng: random.Random) -> tuple[int, int]:
    coins, rewards = STARTING_COINS, 0
    for house_dice, bonus in ((4, 1), (5, 2), (6, 3)):
        if rng.random() < 0.5:  # the House beaten this round
            coins += house_dice
            rewards += bonus
        coins = max(0, coins + rng.randint(-2, 2))  # Arrows: coins stolen and stolen back
    return coins, rewards
