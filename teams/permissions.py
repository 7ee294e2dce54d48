"""Who may do what to a team: the one place the teams app decides it."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied


def is_league_master(user, league) -> bool:
    return bool(league is not None and user.is_authenticated and league.master_id == user.pk)


def can_manage_team(user, team) -> bool:
    """The team's owner, or the ninja master of the team's league."""
    if not user.is_authenticated:
        return False
    return team.owner_id == user.pk or is_league_master(user, team.league)


def require_manage_team(user, team) -> None:
    if not can_manage_team(user, team):
        raise PermissionDenied("Only the team's player or the league's ninja master may change this team.")
