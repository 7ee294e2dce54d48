"""What the API's result documents of any game of players share (moved from api/serializers.py):
each game's ``Game.api_result_input`` (``games/<key>/api.py``) is the same record as the site's form
gives, checked by the same rules."""

from __future__ import annotations

from rest_framework import serializers


def pair(most: int | None, help_text: str) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=most if most is not None else 99),
        min_length=2,
        max_length=2,
        allow_null=True,
        required=False,
        default=None,
        help_text=help_text,
    )
