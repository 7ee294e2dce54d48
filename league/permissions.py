"""Who may do what in a league: the one place the league app decides it."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from matches.services import challenge_refusal
from teams.permissions import can_withdraw_application, is_league_master

__all__ = [
    "is_league_master",
    "can_withdraw_application",
    "require_master",
    "can_set_challenge",
    "challenge_refusal",
    "can_arrange_fixture",
    "can_manage_fixture",
]


def require_master(user, league) -> None:
    if not is_league_master(user, league):
        raise PermissionDenied("Only the league's ninja master may do this.")


def can_set_challenge(user, match) -> bool:
    """The master sets any fixture's challenge before kick-off; when the random challenge
    generator says "Player 1 (or 2) chooses", the owner of the team in that slot picks it
    (``challenge_refusal`` says why not, from the match as it is now).

    ``match`` should come with ``league`` and ``sides__team`` loaded.
    """
    return challenge_refusal(user, match) is None


def can_arrange_fixture(user, season, *sides) -> bool:
    """A player arranges games for their own team only (a table: one he sits at); the master for anyone."""
    if not user.is_authenticated:
        return False
    if is_league_master(user, season.league):
        return True
    return user.pk in {side.owner_id for side in sides}


def can_manage_fixture(user, match) -> bool:
    """Reschedule, re-pair, forfeit or replay a league fixture: the league's master.

    ``match`` should come with ``league`` loaded."""
    return match.season_id is not None and is_league_master(user, match.league)
