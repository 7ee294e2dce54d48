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
    #: which season entries the periods' idle subjects come from (a change rates everything again)
    entries_fingerprint = models.CharField(max_length=64, blank=True)

    def __str__(self) -> str:
        return f"Ratings from {self.matches} matches"


class RatingPeriod(models.Model):
    """One rating period of the history as the ratings last rated it, in order (``ordinal``): its
    key and its confirmed matches in confirmation order. A run compares them with the history and
    rates again only from the first period that differs (a result confirmed or voided in it)."""

    ordinal = models.PositiveIntegerField(unique=True)
    key = models.CharField(max_length=200)
    match_ids = models.JSONField(default=list)

    class Meta:
        ordering = ["ordinal"]

    def __str__(self) -> str:
        return f"Rating period {self.ordinal}: {self.key}"


class RatingStep(models.Model):
    """A subject's ratings and counts right after a period that changed them (a team's, or a coach's
    in one game): the ratings before period p are each subject's last step before p."""

    class Kind(models.TextChoices):
        TEAM = "team", "Team"
        COACH = "coach", "Coach"

    ordinal = models.PositiveIntegerField()
    kind = models.CharField(max_length=5, choices=Kind.choices)
    #: a coach's steps are of one game (a coach has a rating a game); a team's: blank (a team is of one game)
    game = models.CharField(max_length=20, blank=True, default="")
    subject = models.PositiveBigIntegerField()
    glicko_rating = models.FloatField(null=True)
    glicko_rd = models.FloatField(null=True)
    glicko_volatility = models.FloatField(null=True)
    table_mu = models.FloatField(null=True)
    table_sigma = models.FloatField(null=True)
    games = models.PositiveIntegerField(default=0)
    table_games = models.PositiveIntegerField(default=0)
    last_match = models.PositiveBigIntegerField(null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "game", "subject", "ordinal"], name="rating_step_once")]
        indexes = [models.Index(fields=["ordinal"], name="rating_step_ordinal")]

    def __str__(self) -> str:
        return f"{self.kind} {self.subject} after period {self.ordinal}"
