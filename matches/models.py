"""Matches: participants with what they saw at kick-off, per-model feats, and every die rolled.

A Match is snapshotted at kick-off (ratings, underdog bonuses, rosters), so later roster changes
never alter it. The post-game sequence writes its effects as rows (treasury entries, XP events,
downtime results, upkeep decisions, advancement rolls), each pointing back at the match.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse


class Match(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        SUBMITTED = "submitted", "Submitted, awaiting confirmation"
        CONFIRMED = "confirmed", "Confirmed"
        VOIDED = "voided", "Voided"

    class ChallengeChooser(models.TextChoices):
        NONE = "", "—"
        PLAYER1 = "player1", "Player 1 chooses"
        PLAYER2 = "player2", "Player 2 chooses"

    league = models.ForeignKey("league.League", null=True, blank=True, on_delete=models.PROTECT, related_name="matches")
    season = models.ForeignKey("league.Season", null=True, blank=True, on_delete=models.PROTECT, related_name="matches")
    round_number = models.PositiveSmallIntegerField(null=True, blank=True)
    stage = models.CharField(max_length=20, blank=True, help_text="e.g. 'playoff-1' for playoff rounds")
    pairing_reason = models.CharField(max_length=200, blank=True)
    challenge = models.ForeignKey("rules.Challenge", null=True, blank=True, on_delete=models.PROTECT, related_name="matches")
    challenge_chooser = models.CharField(max_length=10, choices=ChallengeChooser.choices, blank=True, default="")
    challenge_roll = models.JSONField(null=True, blank=True, help_text="Faces of the random challenge generator")
    date = models.DateField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    friendly = models.BooleanField(default=False, help_text="Earns XP and koban but never counts in league tables")
    simulated = models.BooleanField(default=False)
    seed = models.BigIntegerField(null=True, blank=True, help_text="Seed of the server's dice for this match")
    kicked_off_at = models.DateTimeField(null=True, blank=True)
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    submitted_at = models.DateTimeField(null=True, blank=True)
    confirmed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    confirmed_at = models.DateTimeField(null=True, blank=True)
    sequence_applied_at = models.DateTimeField(null=True, blank=True)
    result_draft = models.JSONField(null=True, blank=True, help_text="Result form saved mid-game")
    submitted_record = models.JSONField(
        null=True, blank=True, help_text="The submitted result awaiting confirmation (match record and choices)"
    )
    voided_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["season", "round_number"])]

    def __str__(self) -> str:
        return f"Match #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("matches:detail", kwargs={"pk": self.pk})

    @property
    def is_played(self) -> bool:
        return self.status == self.Status.CONFIRMED


class MatchTeam(models.Model):
    """A team in a match, with what the match saw at kick-off and the result it got."""

    class Outcome(models.TextChoices):
        WIN = "win", "Won"
        DRAW = "draw", "Drew"
        LOSS = "loss", "Lost"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="sides")
    team = models.ForeignKey("teams.Team", on_delete=models.PROTECT, related_name="match_sides")
    slot = models.PositiveSmallIntegerField(help_text="1 = home / player 1")
    rating = models.PositiveIntegerField(null=True, blank=True, help_text="Team rating at kick-off")
    reroll_tokens = models.PositiveSmallIntegerField(default=0)
    moon_power_tokens = models.PositiveSmallIntegerField(default=0)
    extra_all_stars = models.PositiveSmallIntegerField(default=0)
    bonus_koban = models.PositiveSmallIntegerField(default=0)
    roster_snapshot = models.JSONField(null=True, blank=True)
    points = models.PositiveSmallIntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=4, choices=Outcome.choices, blank=True)
    koban_earned = models.IntegerField(default=0)

    class Meta:
        ordering = ["match", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["match", "team"], name="match_team_unique"),
            models.UniqueConstraint(fields=["match", "slot"], name="match_slot_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.team} in {self.match}"


class MatchNinja(models.Model):
    """One model's feats in a match (what a player enters, or the simulator produces)."""

    side = models.ForeignKey(MatchTeam, on_delete=models.CASCADE, related_name="ninjas")
    ninja = models.ForeignKey("teams.Ninja", on_delete=models.PROTECT, related_name="match_records")
    name = models.CharField(max_length=60, help_text="Name at the time of the match")
    played = models.BooleanField(default=True, help_text="Was on the board at some point")
    injuries = models.PositiveSmallIntegerField(default=0)
    chunin_stuns = models.PositiveSmallIntegerField(default=0)
    reveals = models.PositiveSmallIntegerField(default=0)
    challenge_feats = models.JSONField(default=dict, blank=True, help_text="{xp award key: count}")
    in_healing_house = models.BooleanField(default=False)
    all_star_awards = models.PositiveSmallIntegerField(default=0)
    xp_gained = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["side", "id"]
        constraints = [models.UniqueConstraint(fields=["side", "ninja"], name="match_ninja_unique")]

    def __str__(self) -> str:
        return self.name


class DiceRoll(models.Model):
    """Every die the server rolled (or a player entered) for a match, in order."""

    class Purpose(models.TextChoices):
        DOWNTIME = "downtime", "Downtime"
        ADVANCEMENT = "advancement", "Advancement"
        CHALLENGE = "challenge", "Random challenge"
        SIMULATION = "simulation", "Simulation"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="dice_rolls")
    ninja = models.ForeignKey("teams.Ninja", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    purpose = models.CharField(max_length=12, choices=Purpose.choices)
    faces = models.JSONField()
    entered_by_player = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match", "id"]


class DowntimeResult(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="downtime_results")
    ninja = models.ForeignKey("teams.Ninja", on_delete=models.PROTECT, related_name="downtime_results")
    face = models.CharField(max_length=10, blank=True, help_text="Empty when spared by another model's Spirit")
    spared_by = models.ForeignKey("teams.Ninja", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    misses_games = models.PositiveSmallIntegerField(default=0)
    starts_in_healing_house = models.BooleanField(default=False)
    xp_bonus = models.PositiveSmallIntegerField(default=0)
    effect = models.CharField(max_length=200)

    class Meta:
        ordering = ["match", "id"]


class UpkeepDecision(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="upkeep_decisions")
    ninja = models.ForeignKey("teams.Ninja", on_delete=models.PROTECT, related_name="upkeep_decisions")
    fee = models.PositiveSmallIntegerField()
    paid = models.BooleanField()
    forced_release = models.BooleanField(default=False, help_text="Released because the treasury could not cover the fee")

    class Meta:
        ordering = ["match", "id"]
