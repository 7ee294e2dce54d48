"""What other apps do once a match is confirmed, without ``matches`` importing them.

Apps above ``matches`` (the league's playoff bracket) register a hook in their
``AppConfig.ready()``; :func:`matches.services.match_confirm` runs every hook after its transaction
commits. A hook that fails is logged and never undoes the confirmed result.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matches.models import Match

logger = logging.getLogger(__name__)

Hook = Callable[["Match"], object]

_confirmed: dict[str, Hook] = {}


def on_confirmed(name: str, hook: Hook) -> None:
    """Register ``hook`` to run after each confirmation; registering a name again replaces it."""
    _confirmed[name] = hook


def confirmed_hooks() -> dict[str, Hook]:
    return dict(_confirmed)


def run_confirmed(match: Match) -> None:
    """Run every hook on ``match``; one that fails is logged and the others still run."""
    for name, hook in confirmed_hooks().items():
        try:
            hook(match)
        except Exception:
            logger.exception("after-confirm hook %r failed for match %s", name, match.pk)
