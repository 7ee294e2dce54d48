"""What the result records of any game of players share (issue 17): the record a game's result
form gives is stored as the match's submitted record, checked, shown and, once confirmed, written
on the sides (outcome, points and the league points the game gives itself; there is no post-game
sequence). Each game's own record, its check, lines and sides are in its package
(``games/<key>/results.py``); this module is what they have in common.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError

#: What a side's result is once confirmed: outcome, points (the table's "for" and "against") and the
#: league points its game gave it (None: the points of its outcome under the house rules).
SideResult = tuple[str, int | None, int | None]

#: The message of a record that is not even a mapping.
NOT_A_RESULT = "This is not a result."


def is_record(record: Any) -> bool:
    """Whether a submitted record is a mapping at all (any game's check starts there)."""
    return isinstance(record, Mapping)


def raise_problems(found: list[str]) -> None:
    """Raise a ValidationError with every problem of a record (a game's check), if any."""
    if found:
        raise ValidationError(found)


def check_with(
    problems: Callable[..., list[str]], time_limited: Callable[[Any], bool] | None = None
) -> Callable[..., None]:
    """A game's ``Game.validate_result`` from its ``problems(record, *, time_limit, slots, game)``:
    raises a ValidationError with every problem of a record. ``time_limited(rules)``: whether the
    season's own rules give its games a time limit (Ninjutsu's house rule); None: never."""

    def check(
        record: Mapping[str, Any],
        *,
        slots: Sequence[int] | None = None,
        game: str | None = None,
        rules: Any = None,
    ) -> None:
        time_limit = time_limited is not None and rules is not None and time_limited(rules)
        raise_problems(problems(record, time_limit=time_limit, slots=slots, game=game))

    return check
