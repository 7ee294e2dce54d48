"""Kage Masters' API result document (moved from games/players/api.py, before that
api/serializers.py): its ``Game.api_result_input``, the same record as the site's form gives,
checked by the same rules."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers import StrictInput
from games.kage_masters import results as game_results
from games.kage_masters.engine import KAGE_MASTERS, MAX_PLAYERS
from matches.models import MAX_SIDES


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
    the site's form gives, checked by the same rules (games.kage_masters.results)."""

    game = serializers.ChoiceField(choices=[game_results.KAGE_MASTERS], help_text="The game of the match's league")

    seats = KageSeatInput(many=True, min_length=1, max_length=MAX_SIDES)
