"""Invitations: the master shares a link that lets a signed-in player apply with one of his teams
(issue 14, part 5; docs/leagues.md, "Join by invitation"). Opening the link writes nothing; only
the player's POST applies, and the application waits for the master like any other."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from league.models import League, LeagueInvitation
from league.services.applications import player_apply, team_apply
from teams.models import Team

#: Bounds of what the master may ask of a link.
MAX_DAYS = 365
MAX_USES = 500


def invitation_create(
    *, league: League, actor, days: int | None = None, max_uses: int | None = None
) -> LeagueInvitation:
    """A new link for ``league``: valid ``days`` days (None: until revoked), for ``max_uses``
    applications (None: any number)."""
    errors = {}
    if days is not None and not 1 <= days <= MAX_DAYS:
        errors["days"] = f"Between 1 and {MAX_DAYS} days (or blank: until revoked)."
    if max_uses is not None and not 1 <= max_uses <= MAX_USES:
        errors["max_uses"] = f"Between 1 and {MAX_USES} uses (or blank: any number)."
    if errors:
        raise ValidationError(errors)
    return LeagueInvitation.objects.create(
        league=league,
        code=secrets.token_urlsafe(16),
        created_by=actor,
        expires_at=timezone.now() + timedelta(days=days) if days else None,
        max_uses=max_uses,
    )


def invitation_revoke(*, invitation: LeagueInvitation) -> LeagueInvitation:
    """Revoke a link; revoking twice changes nothing."""
    with transaction.atomic():
        locked = LeagueInvitation.objects.select_for_update().get(pk=invitation.pk)
        if locked.revoked_at is None:
            locked.revoked_at = timezone.now()
            locked.save(update_fields=["revoked_at"])
    invitation.revoked_at = locked.revoked_at
    return invitation


def invitation_apply(*, invitation: LeagueInvitation, team: Team | None = None, user, display_name: str = "") -> Team:
    """The player ``user`` applies with his ``team`` through a link that still works; one use is
    counted. Everything else is an ordinary application (``team_apply``). In a league of a game
    without team scrolls there is no team: the player applies as themselves (``player_apply``,
    under ``display_name``)."""
    if team is not None and team.owner_id != user.pk:
        raise ValidationError("Choose one of your own teams.")
    with transaction.atomic():
        locked = LeagueInvitation.objects.select_for_update().select_related("league").get(pk=invitation.pk)
        refusal = locked.refusal()
        if refusal:
            raise ValidationError(refusal)
        if team is None:
            team = player_apply(user=user, league=locked.league, display_name=display_name)
        else:
            team = team_apply(team=team, league=locked.league)
        LeagueInvitation.objects.filter(pk=locked.pk).update(uses=F("uses") + 1)
    return team
