"""Ninjutsu's API result document (moved from games/players/api.py, before that
api/serializers.py): its ``Game.api_result_input``, the same record as the site's form gives,
checked by the same rules."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers import StrictInput
from games.ninjutsu import results as game_results
from games.ninjutsu.engine import MAX_SHURIKEN, Card, Ending
from games.ninjutsu.engine.results import ACTION_CARDS
from games.players.api import pair as _pair


class NinjutsuResultInput(StrictInput):
    """A Ninjutsu game's result (players are the sides' slots, 1 and 2): the same record as the
    site's form gives, checked by the same rules (games.ninjutsu.results)."""

    game = serializers.ChoiceField(choices=[game_results.NINJUTSU], help_text="The game of the match's league")

    winner = serializers.IntegerField(
        min_value=1, max_value=2, allow_null=True, help_text="Null: a draw on time (leagues with a time limit)"
    )
    starter = serializers.IntegerField(min_value=1, max_value=2, help_text="Who won the d6 toss")
    colours = serializers.ListField(child=serializers.CharField(max_length=20), min_length=2, max_length=2)
    ending = serializers.ChoiceField(choices=[e.value for e in Ending])
    card = serializers.ChoiceField(choices=[c.value for c in Card], default=Card.NONE.value)
    ninjas_left = _pair(None, "Each player's ninjas left, or null")
    shuriken = _pair(MAX_SHURIKEN, "Each player's shuriken used, or null")
    cards = _pair(ACTION_CARDS, "Each player's action cards used, or null")
