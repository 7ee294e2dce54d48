"""Who may do what with newsletters: the one place the newsletters app decides it.

Anyone reads a published newsletter and the feed; drafts, builds, edits and publishing belong to
the league's ninja master.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from teams.permissions import is_league_master


def can_manage(user, league) -> bool:
    return is_league_master(user, league)


def require_master(user, league) -> None:
    if not can_manage(user, league):
        raise PermissionDenied("Only the league's ninja master may do this.")


def can_read(user, newsletter) -> bool:
    return newsletter.is_published or can_manage(user, newsletter.league)
