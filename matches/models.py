"""Matches: participants with what they saw at kick-off, per-model feats, and every die rolled.

A Match is snapshotted at kick-off (ratings, underdog bonuses, rosters), so later roster changes
never alter it. The post-game sequence writes its effects as rows (treasury entries, XP events,
downtime results, upkeep decisions, advancement rolls), each pointing back at the match.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models.functions import Coalesce, Length
from django.urls import reverse

from outbox.models import RecoverableJob

#: Match.stage of the regular season (and of friendlies).
REGULAR_STAGE = ""
PLAYOFF_PREFIX = "playoff-"


def playoff_stage(round_number: int) -> str:
    """Match.stage of a playoff round ("playoff-1" is the first round)."""
    return f"{PLAYOFF_PREFIX}{round_number}"


def playoff_round(stage: str | None) -> int | None:
    """The playoff round of a stage (``playoff_stage``'s inverse); None for any other stage."""
    if not stage or not stage.startswith(PLAYOFF_PREFIX):
        return None
    number = stage.removeprefix(PLAYOFF_PREFIX)
    return int(number) if number.isdigit() else None


def counted_q(season, prefix: str = "") -> models.Q:
    """Matches that count in the league table: the season's decided regular-season games (confirmed,
    or decided by a forfeit), no friendlies. ``prefix`` is the lookup path to the Match from another
    model (``"match__"``)."""
    return models.Q(
        **{
            f"{prefix}season": season,
            f"{prefix}status__in": Match.DECIDED_STATUSES,
            f"{prefix}friendly": False,
            f"{prefix}stage": REGULAR_STAGE,
        }
    )


#: The most sides a match can have: a Kage Masters table seats up to 5 (issue 17); a match of a
#: game has the number of sides its game allows (``games.base.GameInfo``), 2 for the one-on-one games.
MAX_SIDES = 5


class MatchQuerySet(models.QuerySet):
    """The filters the apps share, named once (Gyrinx's custom QuerySets)."""

    def regular(self) -> MatchQuerySet:
        """The regular season's games that stand (not voided)."""
        return self.filter(stage=REGULAR_STAGE).exclude(status=Match.Status.VOIDED)

    def playoffs(self) -> MatchQuerySet:
        return self.filter(stage__startswith=PLAYOFF_PREFIX)

    def counted(self, season) -> MatchQuerySet:
        """What the league table counts (see :func:`counted_q`)."""
        return self.filter(counted_q(season))

    def scheduled(self) -> MatchQuerySet:
        """Still to be played, in play order: stage, round, creation."""
        return self.filter(status=Match.Status.SCHEDULED).order_by("stage", "round_number", "id")

    def open(self) -> MatchQuerySet:
        """Still to be played, waiting for confirmation, or disputed (waiting for the master)."""
        return self.filter(status__in=(Match.Status.SCHEDULED, Match.Status.SUBMITTED, Match.Status.DISPUTED))


class Match(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        SUBMITTED = "submitted", "Submitted, awaiting confirmation"
        DISPUTED = "disputed", "Disputed: two different results"
        CONFIRMED = "confirmed", "Confirmed"
        FORFEITED = "forfeited", "Forfeited"
        VOIDED = "voided", "Voided"

    #: Decided for the table: played and confirmed, or decided by a forfeit.
    DECIDED_STATUSES = (Status.CONFIRMED, Status.FORFEITED)

    class Settlement(models.TextChoices):
        NONE = "", "—"
        FIRST = "first", "The first record"
        SECOND = "second", "The second record"
        EDITED = "edited", "A record the master edited"

    class ChallengeChooser(models.TextChoices):
        NONE = "", "—"
        PLAYER1 = "player1", "Player 1 chooses"
        PLAYER2 = "player2", "Player 2 chooses"

    league = models.ForeignKey("league.League", null=True, blank=True, on_delete=models.PROTECT, related_name="matches")
    season = models.ForeignKey("league.Season", null=True, blank=True, on_delete=models.PROTECT, related_name="matches")
    round_number = models.PositiveSmallIntegerField(null=True, blank=True)
    stage = models.CharField(max_length=20, blank=True, help_text="e.g. 'playoff-1' for playoff rounds")
    pairing_reason = models.CharField(max_length=200, blank=True)
    challenge = models.ForeignKey(
        "rules.Challenge", null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    challenge_chooser = models.CharField(max_length=10, choices=ChallengeChooser.choices, blank=True, default="")
    challenge_roll = models.JSONField(null=True, blank=True, help_text="Faces of the random challenge generator")
    date = models.DateField(null=True, blank=True, help_text="The day it is played; empty: the round's start")
    deadline = models.DateField(null=True, blank=True, help_text="Its own deadline; empty: the round's")
    place = models.CharField(max_length=100, blank=True, help_text="Where it is played (self-arranged leagues)")
    rescheduled_at = models.DateTimeField(null=True, blank=True, help_text="Last moved by the master")
    replay_of = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="replay", help_text="The voided fixture"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    friendly = models.BooleanField(default=False, help_text="Earns XP and koban but never counts in league tables")
    simulated = models.BooleanField(default=False)
    seed = models.BigIntegerField(null=True, blank=True, help_text="Seed of the server's dice for this match")
    kicked_off_at = models.DateTimeField(null=True, blank=True)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    submitted_at = models.DateTimeField(null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    sequence_applied_at = models.DateTimeField(null=True, blank=True)
    result_draft = models.JSONField(null=True, blank=True, help_text="Result form saved mid-game")
    submitted_record = models.JSONField(
        null=True, blank=True, help_text="The submitted result awaiting confirmation (match record and choices)"
    )
    counter_record = models.JSONField(
        null=True,
        blank=True,
        help_text="A disputed match: the other side's different result (submitted_record is the first)",
    )
    upkeep_choices = models.JSONField(
        default=dict,
        blank=True,
        help_text="Each ronin's upkeep ({ninja id: pay or release}) as its own team (or the master) decided it",
    )
    upkeep_waits = models.BooleanField(
        default=False,
        help_text="The result is accepted and waits only for a ronin owner's upkeep decision",
    )
    counter_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    counter_at = models.DateTimeField(null=True, blank=True)
    settlement = models.CharField(
        max_length=10,
        choices=Settlement.choices,
        blank=True,
        help_text="How the master settled a dispute (the record applied)",
    )
    voided_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.CharField(max_length=200, blank=True)
    forfeit_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name_plural = "matches"
        indexes = [
            models.Index(fields=["season", "round_number"]),
            # The pages' filters: a season's fixtures by status (next fixtures, the table's
            # counted games, finishing a season), and a team's played games by status.
            models.Index(fields=["season", "status"], name="match_season_status_idx"),
            models.Index(fields=["status", "sequence_applied_at"], name="match_status_applied_idx"),
            # A season's scheduled fixtures in their order (league.selectors.next_fixtures reads a
            # prefix of it: the league table's next-fixture column, issue 29 part 2).
            models.Index(
                models.F("season"),
                models.F("status"),
                Length("stage"),
                models.F("stage"),
                Coalesce("round_number", models.Value(0)),
                models.F("date"),
                models.F("id"),
                name="match_fixture_order_idx",
            ),
            # A season's fixtures counted by round, status and deadline, with how many kicked off
            # (league.dashboard.round_progress: the master's desk and the front page's progress,
            # issue 29 part 2): the groups are this index's prefix, read in its order alone.
            models.Index(
                fields=["season", "stage", "round_number", "status", "deadline", "kicked_off_at"],
                name="match_round_progress_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"Match #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("matches:detail", kwargs={"pk": self.pk})

    @property
    def is_played(self) -> bool:
        return self.status == self.Status.CONFIRMED

    @property
    def playoff_round(self) -> int | None:
        """The playoff round this game belongs to; None in the regular season."""
        return playoff_round(self.stage)

    @property
    def is_decided(self) -> bool:
        """Counts in the table: played and confirmed, or decided by a forfeit."""
        return self.status in self.DECIDED_STATUSES

    @property
    def awaits_decision(self) -> bool:
        """A result is in but not applied: submitted (waiting for confirmation) or disputed."""
        return self.status in AWAITING_STATUSES

    #: The side (its slot) each "chooses" of the random challenge generator names.
    CHOOSER_SLOTS = {ChallengeChooser.PLAYER1: 1, ChallengeChooser.PLAYER2: 2}

    def chooser_side(self) -> MatchTeam | None:
        """The side whose player the random challenge generator named to choose the challenge
        (None: it named nobody), from the sides as loaded (prefetch them, with their teams, for no
        query)."""
        slot = self.CHOOSER_SLOTS.get(self.challenge_chooser)
        if slot is None:
            return None
        return next((side for side in self.sides.all() if side.slot == slot), None)


#: A result is in and waits for someone: an opponent's confirmation, or the master's settlement.
AWAITING_STATUSES = (Match.Status.SUBMITTED, Match.Status.DISPUTED)


class MatchTeam(models.Model):
    """A team in a match, with what the match saw at kick-off and the result it got."""

    class Outcome(models.TextChoices):
        WIN = "win", "Won"
        DRAW = "draw", "Drew"
        LOSS = "loss", "Lost"

    #: What kick-off writes: the team's name, rating, underdog bonuses and the roster the match saw.
    KICK_OFF_FIELDS = [
        "team_name",
        "rating",
        "reroll_tokens",
        "moon_power_tokens",
        "extra_all_stars",
        "bonus_koban",
        "roster_snapshot",
    ]

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="sides")
    team = models.ForeignKey("teams.Team", on_delete=models.PROTECT, related_name="match_sides")
    slot = models.PositiveSmallIntegerField(help_text="1 = home / player 1")
    rating = models.PositiveIntegerField(null=True, blank=True, help_text="Team rating at kick-off")
    reroll_tokens = models.PositiveSmallIntegerField(default=0)
    moon_power_tokens = models.PositiveSmallIntegerField(default=0)
    extra_all_stars = models.PositiveSmallIntegerField(default=0)
    bonus_koban = models.PositiveSmallIntegerField(default=0)
    roster_snapshot = models.JSONField(null=True, blank=True)
    #: The team's name at kick-off: a renamed team's history keeps the name each match saw.
    team_name = models.CharField(max_length=80, blank=True)
    points = models.PositiveSmallIntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=4, choices=Outcome.choices, blank=True)
    #: League points the game itself gave this side (a Kage Masters table's places, a Ninjutsu game
    #: won or lost on time), under the season's house rules when confirmed; null: the points of its
    #: outcome (win, draw, loss, forfeit) under the season's house rules, as the table counts them.
    league_points = models.PositiveSmallIntegerField(null=True, blank=True)

    class Dropout(models.TextChoices):
        NO = "", "Played"
        BEFORE = "before", "Dropped out before the game"
        DURING = "during", "Dropped out during the game"

    #: A player who dropped out of a table (a game played at tables: Kage Masters): the table plays
    #: on without him, and the season's house rule ``kage_dropout`` says what he scores
    #: (league.services.tables.table_dropout).
    dropped_out = models.CharField(max_length=6, choices=Dropout.choices, default=Dropout.NO, blank=True)
    koban_earned = models.IntegerField(default=0)

    class Meta:
        ordering = ["match", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["match", "team"], name="match_team_unique"),
            models.UniqueConstraint(fields=["match", "slot"], name="match_slot_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.team} in {self.match}"

    @property
    def name_at_match(self) -> str:
        """The name the team had when the match kicked off (its current name before then)."""
        return self.team_name or self.team.name


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
    forced_release = models.BooleanField(
        default=False, help_text="Released because the treasury could not cover the fee"
    )

    class Meta:
        ordering = ["match", "id"]


class SimulationJob(RecoverableJob):
    """A request by the league's master to simulate one fixture, one round or the rest of a season.

    The progress record of the Celery task (like league.ScheduleRun): ``done`` of ``total`` matches.
    At most one unfinished job per fixture and per season, so a double click finds the running job.
    A job is safe to run again: each round (the matches in which no team plays twice) is simulated
    in one transaction and a match already played is skipped, so a retried task carries on where
    it stopped.
    """

    class Scope(models.TextChoices):
        MATCH = "match", "This fixture"
        ROUND = "round", "This round"
        SEASON = "season", "The rest of the season"
        REGULAR = "regular", "The rest of the regular season"

    class Policy(models.TextChoices):
        AUTO = "auto", "Make the post-game choices by the stated policy"
        PENDING = "pending", "Leave the advancement choices to the players"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    league = models.ForeignKey("league.League", on_delete=models.CASCADE, related_name="simulation_jobs")
    season = models.ForeignKey(
        "league.Season", null=True, blank=True, on_delete=models.CASCADE, related_name="simulation_jobs"
    )
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.CASCADE, related_name="simulation_jobs")
    scope = models.CharField(max_length=10, choices=Scope.choices)
    stage = models.CharField(max_length=20, blank=True, help_text="The round's stage ('' regular, 'playoff-N')")
    round_number = models.PositiveSmallIntegerField(null=True, blank=True)
    max_rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Random weekly seasons: the season's last round to play"
    )
    policy = models.CharField(max_length=10, choices=Policy.choices, default=Policy.AUTO)
    seed = models.BigIntegerField(help_text="Base seed: each match's seed is derived from it and the match id")
    task_id = models.CharField(max_length=64, unique=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=300, blank=True)
    note = models.CharField(max_length=300, blank=True, help_text="Why a season simulation stopped where it did")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["match"],
                condition=models.Q(status__in=["pending", "running"], scope="match"),
                name="one_open_simulation_per_match",
            ),
            models.UniqueConstraint(
                fields=["season"],
                condition=models.Q(status__in=["pending", "running"], scope__in=["round", "season", "regular"]),
                name="one_open_simulation_per_season",
            ),
        ]

    def __str__(self) -> str:
        return f"Simulation #{self.pk}: {self.get_scope_display().lower()}"

    def get_absolute_url(self) -> str:
        return reverse("simulation:simulation_job", kwargs={"pk": self.pk})

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)


class SimulationRun(models.Model):
    """How a simulated match was played: the seed, the policy, the simulator's log and every die.

    ``random.Random(f"{seed}:simulation")`` replays the match (rules.engine.simulator); the
    post-game dice (downtime, advancement) come from the same seed as for any match.
    """

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="simulation")
    job = models.ForeignKey(SimulationJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs")
    seed = models.BigIntegerField()
    policy = models.CharField(max_length=10, choices=SimulationJob.Policy.choices)
    rounds_played = models.PositiveSmallIntegerField(default=0)
    ended_early = models.BooleanField(default=False)
    log = models.JSONField(default=list, help_text="One line per event")
    dice = models.JSONField(default=list, help_text="Every die rolled in the game: [round, what for, model, faces]")
    dice_summary = models.JSONField(default=dict, help_text="{what for: {rolls, dice, faces: {element: count}}}")
    decisions = models.JSONField(default=dict, help_text="Post-game choices the policy made (upkeep, advancements)")
    elapsed_ms = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"Simulation of {self.match}"


class BalanceStudy(models.Model):
    """One run of the balance study (rules.engine.balance) asked for by a league's master: how often
    the stronger team wins by rating gap, with and without each underdog bonus part, per challenge.
    ``cells`` holds the results (``Cell.as_dict``), ``summary`` the findings in sentences."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="balance_studies"
    )
    games = models.PositiveIntegerField(help_text="Games a cell (challenge, gap, bonus variant, level)")
    challenges = models.JSONField(default=list)
    gaps = models.JSONField(default=list)
    levels = models.JSONField(default=list)
    seed = models.BigIntegerField(default=1)
    task_id = models.CharField(max_length=64, unique=True, default=uuid.uuid4)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    cells = models.JSONField(default=list, blank=True)
    summary = models.TextField(blank=True)
    error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"balance study {self.pk} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("simulation:balance_study")
