"""The ratings service's bookkeeping (the ratings themselves are teams.StrengthRating)."""

from __future__ import annotations

from django.db import models


class RatingsState(models.Model):
    """One row (pk 1): locked while the ratings are recomputed, so runs happen one at a time and
    each reads the history after the previous one committed; ``fingerprint`` says which history
    the stored ratings come from (a rerun on the same history writes nothing)."""

    fingerprint = models.CharField(max_length=64, blank=True)
    matches = models.PositiveIntegerField(default=0)
    periods = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Ratings from {self.matches} matches"
