"""Who may do what to a team: the one place the teams app decides it.

Rights come from the current state, never from a leftover field: a team's ``league`` and
``entry_status`` say what was asked (an application, a refusal), not who may change the team.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

#: The season statuses in which a league's master looks after the teams entered in the season.
#: A season runs from its opening (status "open": its teams are entered and games may already be
#: arranged) until it is finished; a finished season is history and gives nobody any rights.
#: (teams may not import league: the values are checked against league.models.Season.Status by
#: tests/teams/test_team_rights.py.)
RUNNING_SEASON_STATUSES = ("open", "running")


def is_league_master(user, league) -> bool:
    return bool(league is not None and user.is_authenticated and league.master_id == user.pk)


def is_master_of_team(user, team) -> bool:
    """The user is the master of a running season the team is entered in (one query)."""
    if not user.is_authenticated or team.pk is None:
        return False
    return team.season_entries.filter(
        season__league__master_id=user.pk, season__status__in=RUNNING_SEASON_STATUSES
    ).exists()


def can_manage_team(user, team) -> bool:
    """The team's owner, or the ninja master of a running season the team is entered in.

    An application (pending, refused or withdrawn) gives the league's master no rights over the
    team, and neither does a season that has finished.
    """
    if not user.is_authenticated:
        return False
    return team.owner_id == user.pk or is_master_of_team(user, team)


def is_team_owner(user, team) -> bool:
    """A team's name, colours, motto and retirement are its player's alone (not the master's)."""
    return bool(user.is_authenticated and team.owner_id == user.pk)


def require_team_owner(user, team) -> None:
    if not is_team_owner(user, team):
        raise PermissionDenied("Only the team's player may rename, dress or retire it.")


def can_withdraw_application(user, team) -> bool:
    """Only the team's player takes back its pending application (the master refuses instead)."""
    return bool(
        user.is_authenticated and team.owner_id == user.pk and team.league_id and team.entry_status == "pending"
    )


def require_manage_team(user, team) -> None:
    if not can_manage_team(user, team):
        raise PermissionDenied("Only the team's player or the master of a season it plays in may change this team.")
