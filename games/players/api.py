"""The API's result documents of the players' games (moved from api/serializers.py): each game's
``Game.api_result_input``, the same record as the site's form gives, checked by the same rules."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers import StrictInput
from games.kage_masters.engine import KAGE_MASTERS, MAX_PLAYERS
from games.ninjutsu.engine import MAX_SHURIKEN, Card, Ending
from games.ninjutsu.engine.results import ACTION_CARDS
from games.players import results as game_results
from matches.models import MAX_SIDES


def _pair(most: int | None, help_text: str) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=most if most is not None else 99),
        min_length=2,
        max_length=2,
        allow_null=True,
        required=False,
        default=None,
        help_text=help_text,
    )


class NinjutsuResultInput(StrictInput):
    """A Ninjutsu game's result (players are the sides' slots, 1 and 2): the same record as the
    site's form gives, checked by the same rules (games.players.results)."""

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


class KageSeatInput(StrictInput):
    slot = serializers.IntegerField(min_value=1, max_value=MAX_SIDES, help_text="The player's side of the match")
    kage_master = serializers.ChoiceField(choices=list(KAGE_MASTERS))
    coins = serializers.IntegerField(min_value=0, max_value=game_results.MAX_KAGE_COINS)
    rewards = serializers.IntegerField(
        min_value=0, max_value=game_results.MAX_KAGE_COINS, default=0, help_text="Location Cards' coin rewards"
    )
    seat = serializers.IntegerField(
        min_value=1, max_value=MAX_PLAYERS, allow_null=True, default=None, help_text="First-round turn order"
    )


class KageResultInput(StrictInput):
    """A Kage Masters table's result: one seat a side of the match, in slot order; the same record as
    the site's form gives, checked by the same rules (games.players.results)."""

    game = serializers.ChoiceField(choices=[game_results.KAGE_MASTERS], help_text="The game of the match's league")

    seats = KageSeatInput(many=True, min_length=1, max_length=MAX_SIDES)
