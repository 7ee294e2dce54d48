"""DRF permission classes that ask the same functions the web views ask (one source of truth):
``teams.permissions``, ``league.permissions``, ``matches.services``, ``newsletters.permissions``.

Each class answers for one object; the services behind the writes check again (they raise
PermissionDenied, answered 403), so a view that forgot its class would still be refused.
"""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from league import permissions as league_permissions
from matches import services as match_services
from newsletters import permissions as newsletter_permissions


class CanEnterResult(BasePermission):
    message = "Only a player in this match or the league's master may enter its result."

    def has_object_permission(self, request, view, obj) -> bool:
        return match_services.can_enter_result(request.user, obj)


class CanConfirmResult(BasePermission):
    message = "Only an opposing player or the league's master may confirm or reject this result."

    def has_object_permission(self, request, view, obj) -> bool:
        return match_services.can_confirm(request.user, obj)


class CanSettleResult(BasePermission):
    message = "Only the league's ninja master may settle a disputed result."

    def has_object_permission(self, request, view, obj) -> bool:
        return match_services.is_master_of(request.user, obj)


class CanManageFixture(BasePermission):
    """A league fixture's changes (a table's drop-out): its league's master, as the fixture pages
    (``league.views._managed_fixture``)."""

    message = "Only the league's ninja master may change a fixture."

    def has_object_permission(self, request, view, obj) -> bool:
        return league_permissions.can_manage_fixture(request.user, obj)


class IsSeasonMaster(BasePermission):
    message = "Only the league's ninja master may do this."

    def has_object_permission(self, request, view, obj) -> bool:
        return league_permissions.is_league_master(request.user, obj.league)


class CanReadNewsletter(BasePermission):
    """A published newsletter is anyone's; a draft its master's (the schema marks the reads public)."""

    anonymous_reads = True

    def has_object_permission(self, request, view, obj) -> bool:
        return newsletter_permissions.can_read(request.user, obj)
