"""Kage Masters' simulated record (games.players.simulation runs it: its ``Game.strength_record``):
the players' Plackett-Luce strengths from their stored table ratings; the Kage Masters dealt at
random, all different (KM l.9), the first-round turn order shuffled, and
``games.kage_masters.engine.simulate_table`` draws the finishing order and the treasures."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError

from games.kage_masters import GAME
from games.kage_masters import engine as kage
from games.kage_masters import results as kage_results
from games.players.simulation import Ratings, table_rating
from matches.models import MatchTeam
from ratings import multiplayer


def kage_record(
    ratings: Sequence[multiplayer.TableRating], *, rng: random.Random, slots: Sequence[int] | None = None
) -> dict[str, Any]:
    """A simulated Kage Masters table's record (the contract of docs/leagues.md), one seat a side
    in slot order: Kage Masters dealt at random, all different; the first round's turn order
    shuffled; the places drawn by the players' Plackett-Luce strengths. ``slots``: the sides of the
    players present, when some dropped out (1..n by default)."""
    index = list(range(1, len(ratings) + 1))
    masters = rng.sample(kage.KAGE_MASTERS, len(index))
    turn_order = index[:]
    rng.shuffle(turn_order)  # turn_order[i]: the player that plays (i + 1)-th in the first round
    strengths = multiplayer.table_strengths(ratings)
    seats = kage.simulate_table(
        turn_order,
        [masters[i - 1] for i in turn_order],
        strengths=[strengths[i - 1] for i in turn_order],
        rng=rng,
    )
    by_slot = {seat.player: seat for seat in seats}
    slot_of = dict(zip(index, slots if slots is not None else index, strict=True))
    return {
        "game": GAME.key,
        "seats": [
            {
                "slot": slot_of[slot],
                "kage_master": by_slot[slot].kage_master,
                "coins": by_slot[slot].coins,
                "rewards": by_slot[slot].location_rewards,
                "seat": by_slot[slot].seat,
            }
            for slot in index
        ],
    }


def kage_problems(record: Mapping[str, Any]) -> list[str]:
    """The pure engine's check of a Kage Masters record (the site's own check, with its messages,
    is matches.game_results' once Kage results can be entered)."""
    return kage.validate(kage_results.kage_seats(record))


def strength_record(
    sides: Sequence[MatchTeam], ratings: Ratings, *, rng: random.Random, rules: Any = None
) -> dict[str, Any]:
    """The record of a simulated table of ``sides`` (in slot order); one who dropped out plays no more."""
    present = [s for s in sides if not s.dropped_out]
    record = kage_record(
        [table_rating(ratings.get(s.team_id)) for s in present], rng=rng, slots=[s.slot for s in present]
    )
    problems = kage_problems(record)
    if problems:  # pragma: no cover - the engine's simulator gives valid results
        raise ValidationError(problems)
    return record
