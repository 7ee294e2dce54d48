"""Leagues and seasons, with the ninja master's house rules.

The rulebook gives the master total control of the league rules. The house rules live on the
League as the defaults for its next season, and are copied onto each Season when it is created:
a season's rules are frozen, so changing the league's settings never rewrites an old season.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

TIE_BREAKER_CHOICES = {
    "points_difference": "Difference between points scored and conceded",
    "points_for": "Points scored",
    "head_to_head": "Head-to-head points between the tied teams",
    "wins": "Games won",
    "team_rating_low": "Lower team rating",
}
DEFAULT_TIE_BREAKERS = "points_difference,points_for,head_to_head"


class HouseRules(models.Model):
    """League settings the master may change (abstract: on League as defaults, on Season frozen)."""

    class DiceMode(models.TextChoices):
        SERVER = "server", "Rolled by the server"
        ENTERED = "entered", "Entered by the player as rolled at the table"

    starting_koban = models.PositiveSmallIntegerField(default=100)
    revenue_win = models.PositiveSmallIntegerField(default=10)
    revenue_draw = models.PositiveSmallIntegerField(
        default=8, help_text="The rulebook gives no draw revenue; the default is our ruling (docs/rulings.md)."
    )
    revenue_loss = models.PositiveSmallIntegerField(default=6)
    points_win = models.PositiveSmallIntegerField(default=3)
    points_draw = models.PositiveSmallIntegerField(default=1)
    points_loss = models.PositiveSmallIntegerField(default=0)
    tie_breakers = models.CharField(
        max_length=200,
        default=DEFAULT_TIE_BREAKERS,
        help_text="Comma-separated, in order: " + ", ".join(TIE_BREAKER_CHOICES),
    )
    results_need_confirmation = models.BooleanField(
        default=True, help_text="A result submitted by one side waits for an opponent or the master to confirm."
    )
    dice_mode = models.CharField(max_length=10, choices=DiceMode.choices, default=DiceMode.SERVER)

    HOUSE_RULE_FIELDS = (
        "starting_koban", "revenue_win", "revenue_draw", "revenue_loss", "points_win", "points_draw",
        "points_loss", "tie_breakers", "results_need_confirmation", "dice_mode",
    )

    class Meta:
        abstract = True

    def house_rules(self) -> dict:
        return {name: getattr(self, name) for name in self.HOUSE_RULE_FIELDS}

    @property
    def tie_breaker_list(self) -> list[str]:
        return [t.strip() for t in self.tie_breakers.split(",") if t.strip()]


class League(HouseRules):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    master = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="mastered_leagues")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("league:detail", kwargs={"slug": self.slug})


class Season(HouseRules):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "Single round robin"
        DOUBLE_ROUND_ROBIN = "double_round_robin", "Double round robin"
        RANDOM_WEEKLY = "random_weekly", "Random weekly matchups"
        SWISS = "swiss", "Swiss"
        SELF_ARRANGED = "self_arranged", "Self-arranged"

    class Status(models.TextChoices):
        OPEN = "open", "Open for entries"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=100)
    format = models.CharField(max_length=20, choices=Format.choices, default=Format.ROUND_ROBIN)
    swiss_rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    playoff_teams = models.PositiveSmallIntegerField(default=0, help_text="0: no playoffs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    final_table = models.JSONField(null=True, blank=True, help_text="Archived league table when finished")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["league", "-number"]
        constraints = [models.UniqueConstraint(fields=["league", "number"], name="season_number_unique")]

    def __str__(self) -> str:
        return f"{self.league} — {self.name}"


class SeasonEntry(models.Model):
    """A team taking part in a season."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="entries")
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="season_entries")
    seed = models.PositiveSmallIntegerField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["season", "seed", "id"]
        constraints = [models.UniqueConstraint(fields=["season", "team"], name="season_entry_unique")]

    def __str__(self) -> str:
        return f"{self.team} in {self.season}"
