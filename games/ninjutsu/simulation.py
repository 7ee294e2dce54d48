"""Ninjutsu's simulated record (games.players.simulation runs it: its ``Game.strength_record``):
the first side's chance of winning is Glicko-2's expected score from the two players' stored
strength ratings; ``games.ninjutsu.engine.simulate_game`` draws the starter, the winner and how the
Soke died."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError

from games.ninjutsu import GAME
from games.ninjutsu import engine as ninjutsu
from games.ninjutsu import house_rules as own_rules
from games.ninjutsu import results as ninjutsu_results
from games.players.simulation import Ratings, glicko_rating
from matches.models import MatchTeam
from ratings import glicko2

#: The two colours a simulated Ninjutsu game is played with (the book names none, NJ l.22).
COLOURS = ("Red", "Blue")


def ninjutsu_record(first: glicko2.Rating, second: glicko2.Rating, *, rng: random.Random) -> dict[str, Any]:
    """A simulated Ninjutsu game's record (matches.game_results) between slot 1 and slot 2."""
    colours = COLOURS if rng.random() < 0.5 else COLOURS[::-1]
    first_wins, _ = glicko2.win_probabilities(first, second)
    result = ninjutsu.simulate_game((1, 2), colours, first_wins=first_wins, rng=rng)
    return {
        "game": GAME.key,
        "winner": result.winner,
        "starter": result.starter,
        "colours": list(result.colours),
        "ending": result.ending.value,
        "card": result.card.value,
        "ninjas_left": None,
        "shuriken": None,
        "cards": None,
    }


def strength_record(
    sides: Sequence[MatchTeam], ratings: Ratings, *, rng: random.Random, rules: Any = None
) -> dict[str, Any]:
    """The record of a simulated game between ``sides`` (in slot order), checked under the
    season's ``rules`` (its time limit)."""
    if len(sides) != 2:
        raise ValidationError("A Ninjutsu game is between two players.")
    record = ninjutsu_record(
        glicko_rating(ratings.get(sides[0].team_id)), glicko_rating(ratings.get(sides[1].team_id)), rng=rng
    )
    problems = ninjutsu_results.problems(record, time_limit=rules is not None and own_rules.time_limited(rules))
    if problems:  # pragma: no cover - the engine's simulator gives valid results
        raise ValidationError(problems)
    return record
