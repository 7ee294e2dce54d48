"""The strength ratings as listed: the ratings pages (stats.views) and the API (api.views.RatingList)
read them here, so both list the same rows in the same order."""

from __future__ import annotations

from django.db.models import QuerySet

from league.models import League
from teams.models import StrengthRating, Team


def strength_ratings(*, coaches: bool, system: str, league: League | None = None) -> QuerySet[StrengthRating]:
    """The teams' (or coaches') ratings of one system, best first (the rating itself, then id).

    ``league``: its teams (a team's current league), or the coaches with a team in it."""
    rows = StrengthRating.objects.filter(system=system)
    if coaches:
        rows = rows.filter(coach__isnull=False).select_related("coach")
        if league is not None:
            rows = rows.filter(coach__in=Team.objects.filter(league=league).values("owner"))
    else:
        rows = rows.filter(team__isnull=False).select_related("team", "team__owner", "team__clan")
        if league is not None:
            rows = rows.filter(team__league=league)
    return rows.order_by("-rating", "id")
