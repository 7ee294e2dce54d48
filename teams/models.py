"""Teams, their ninja (roster members), the treasury ledger and ninja progression.

State is derived from recorded events: the treasury balance is the last ledger row's balance
(kept in step on Team.treasury inside the same transaction, never negative by constraint), XP is
the sum of XpEvent rows (kept in step on Ninja.xp), attributes are base profile plus Advancement
rows. The team rating is computed by rules.engine.league.team_rating, never stored by hand.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.urls import reverse

from common.text import NameField, NameKeyField, NameKeyMixin, SingleLineField
from games import registry as games
from rules.models import Keyword, Profile, SpecialAbility

#: A team colour: "#" and six hex digits (what an ``<input type="color">`` sends).
HEX_COLOUR = RegexValidator(r"^#[0-9a-fA-F]{6}\Z", "Give the colour as # and six hex digits, like #1f3a5c.")
MOTTO_MAX_LENGTH = 120


class Team(NameKeyMixin, models.Model):
    """An entrant of a league: an All-Stars team scroll (a clan, a roster, a treasury), or, in a
    league of a game without team scrolls (``game``), a player's entry, named by the display name
    the player chose for that league, with no clan and nothing else of a scroll (docs/leagues.md,
    "Games"). Either way the seasons, fixtures, byes, tables and playoffs key on this row."""

    class Status(models.TextChoices):
        BUILDING = "building", "Building"
        READY = "ready", "Ready"
        RETIRED = "retired", "Retired"

    class EntryStatus(models.TextChoices):
        NONE = "none", "Not in a league"
        PENDING = "pending", "Applied"
        ACCEPTED = "accepted", "Accepted"
        REFUSED = "refused", "Refused"

    name = NameField(max_length=80)
    name_key = NameKeyField(source="name", help_text="What uniqueness in a league compares (common/text.py)")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="teams")
    game = models.CharField(
        max_length=20,
        choices=games.choices,
        default=games.DEFAULT,
        help_text="The game it plays: All-Stars teams have a clan; the other games' entries none",
    )
    clan = models.ForeignKey("rules.Clan", null=True, blank=True, on_delete=models.PROTECT, related_name="teams")
    league = models.ForeignKey("league.League", null=True, blank=True, on_delete=models.PROTECT, related_name="teams")
    entry_status = models.CharField(max_length=10, choices=EntryStatus.choices, default=EntryStatus.NONE)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.BUILDING)
    treasury = models.IntegerField(default=0, help_text="Kept in step with the ledger; never edit by hand")
    rating = models.PositiveIntegerField(
        default=0,
        help_text="Team rating, kept in step with the roster by every service that changes it "
        "(teams.services.team_ratings_refresh); rebuilt by `manage.py rebuild_read_model`",
    )
    colour_primary = models.CharField(max_length=7, blank=True, validators=[HEX_COLOUR])
    colour_secondary = models.CharField(max_length=7, blank=True, validators=[HEX_COLOUR])
    motto = SingleLineField(max_length=MOTTO_MAX_LENGTH, blank=True, help_text="Plain text, one line")
    retired_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=models.Q(treasury__gte=0), name="team_treasury_not_negative"),
            models.UniqueConstraint(
                fields=["league", "name_key"],
                # a retired team keeps its league and name (history) but frees the name
                condition=~models.Q(status="retired"),
                name="team_name_key_unique_in_league",
                violation_error_message="A team with this name (or one that looks the same) is already in this league.",
            ),
            models.CheckConstraint(condition=~models.Q(name_key=""), name="team_name_not_blank"),
            models.CheckConstraint(
                condition=(models.Q(game=games.ALLSTARS) & models.Q(clan__isnull=False))
                | (~models.Q(game=games.ALLSTARS) & models.Q(clan__isnull=True)),
                name="team_clan_for_all_stars_only",
                violation_error_message="An All-Stars team has a clan; a player's entry in another game has none.",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("teams:detail", kwargs={"pk": self.pk})

    @property
    def has_scroll(self) -> bool:
        """An All-Stars team scroll (clan, roster, treasury, XP); else a player's entry."""
        return games.game_of(self.game).team_scrolls

    @property
    def game_info(self) -> games.GameInfo:
        return games.get(self.game)

    @property
    def is_retired(self) -> bool:
        return self.status == self.Status.RETIRED

    @property
    def colours(self) -> tuple[str, ...]:
        return tuple(c for c in (self.colour_primary, self.colour_secondary) if c)


class Ninja(NameKeyMixin, models.Model):
    """A model on a team's roster (called a ninja even when it is a hero or a ronin)."""

    class Status(models.TextChoices):
        ACTIVE = "active", "On the roster"
        RELEASED = "released", "Released"

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="ninjas")
    profile = models.ForeignKey(Profile, on_delete=models.PROTECT, related_name="ninjas")
    name = NameField(max_length=60)
    name_key = NameKeyField(source="name", help_text="What uniqueness on the roster compares (common/text.py)")
    chosen_abilities = models.ManyToManyField(SpecialAbility, blank=True, related_name="chosen_by")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    xp = models.PositiveIntegerField(default=0, help_text="Sum of XP events, kept in step")
    misses_games = models.PositiveSmallIntegerField(default=0, help_text="Games still to miss (downtime)")
    starts_in_healing_house = models.BooleanField(default=False)
    hired_at = models.DateTimeField(auto_now_add=True)
    released_at = models.DateTimeField(null=True, blank=True)
    release_reason = SingleLineField(max_length=200, blank=True)

    class Meta:
        ordering = ["team", "profile__order", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "name_key"],
                condition=models.Q(status="active"),
                name="ninja_name_key_unique_active",
                violation_error_message="A ninja with this name (or one that looks the same) is already on the team.",
            ),
            models.CheckConstraint(condition=~models.Q(name_key=""), name="ninja_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE


class Advancement(models.Model):
    """One advancement a ninja has taken (each counts +1 to team rating)."""

    class Kind(models.TextChoices):
        KEYWORD = "keyword", "New keyword"
        ATTACK = "attack", "+1 Attack"
        DEFENSE = "defense", "+1 Defense"
        MOVEMENT = "movement", "+1 Movement"
        AFFINITY = "affinity", "Additional affinity"

    ninja = models.ForeignKey(Ninja, on_delete=models.CASCADE, related_name="advancements")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    keyword = models.ForeignKey(Keyword, null=True, blank=True, on_delete=models.PROTECT)
    affinity = models.CharField(max_length=10, blank=True)
    roll = models.OneToOneField(
        "teams.AdvancementRoll", null=True, blank=True, on_delete=models.PROTECT, related_name="advancement"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ninja", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["ninja", "keyword"], condition=models.Q(keyword__isnull=False), name="no_keyword_twice"
            ),
        ]

    def __str__(self) -> str:
        if self.kind == self.Kind.KEYWORD and self.keyword_id:
            return f"Keyword: {self.keyword}"
        if self.kind == self.Kind.AFFINITY:
            return f"Affinity: {self.affinity}"
        return self.get_kind_display()


class AdvancementRoll(models.Model):
    """An advancement roll earned by reaching a new experience level; pending until chosen."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        CHOSEN = "chosen", "Chosen"
        VOIDED = "voided", "Voided"

    ninja = models.ForeignKey(Ninja, on_delete=models.CASCADE, related_name="advancement_rolls")
    match = models.ForeignKey(
        "matches.Match", null=True, blank=True, on_delete=models.PROTECT, related_name="advancement_rolls"
    )
    level = models.PositiveSmallIntegerField(help_text="Experience level reached")
    faces = models.JSONField(help_text="The two dice faces rolled")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ninja", "id"]

    @property
    def is_doubles(self) -> bool:
        return len(self.faces) == 2 and self.faces[0] == self.faces[1]

    @property
    def level_name(self) -> str:
        """The experience level's name in the rulebook's chart ("Experienced" for level 1)."""
        return level_name(self.level)


def level_name(level: int) -> str:
    """The rulebook's name of an experience level (its rank in the chart: 1 is "Experienced")."""
    from rules.engine.league import XP_LEVELS

    return XP_LEVELS[level].name if 0 <= level < len(XP_LEVELS) else f"level {level}"


class XpEvent(models.Model):
    """An XP gain (or a negative compensating row when a result is voided)."""

    ninja = models.ForeignKey(Ninja, on_delete=models.CASCADE, related_name="xp_events")
    match = models.ForeignKey(
        "matches.Match", null=True, blank=True, on_delete=models.PROTECT, related_name="xp_events"
    )
    amount = models.IntegerField()
    reason = models.CharField(max_length=80)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]


class TreasuryEntry(models.Model):
    """The koban ledger: every change of a team's treasury is one row; history is never edited."""

    class Reason(models.TextChoices):
        STARTING = "starting", "Starting koban"
        RECRUIT = "recruit", "Recruitment"
        REVENUE = "revenue", "Revenue"
        UNDERDOG = "underdog", "Underdog bonus koban"
        SHOJO = "shojo", "Shrewd Negotiator (Shojo)"
        UPKEEP = "upkeep", "Ronin upkeep"
        CORRECTION = "correction", "Correction by the master"
        VOID = "void", "Voided result"

    # indexed with the entry's id (``Meta.indexes``): a team's lines in order, its latest first
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="ledger", db_index=False)
    amount = models.IntegerField()
    reason = models.CharField(max_length=12, choices=Reason.choices)
    note = SingleLineField(max_length=200, blank=True)
    match = models.ForeignKey(
        "matches.Match", null=True, blank=True, on_delete=models.PROTECT, related_name="treasury_entries"
    )
    balance_after = models.IntegerField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team", "id"]
        verbose_name_plural = "treasury entries"
        # A team's lines by id: the scroll's latest eight and the ledger's pages read a few index
        # entries. With the team's index alone PostgreSQL walked the primary key backwards past
        # every other team's newer lines (44,000 in the bench database: 6 ms for eight rows).
        indexes = [models.Index(fields=["team", "id"], name="ledger_team_id_idx")]
        constraints = [
            models.CheckConstraint(condition=models.Q(balance_after__gte=0), name="ledger_balance_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.team}: {self.amount:+d} ({self.get_reason_display()})"


class StrengthRating(models.Model):
    """A team's or a coach's strength rating, recomputed from the match history (docs/ratings.md).

    Written only by the ratings service (``stats.ratings.ratings_recompute``); kept here, at the
    bottom of the import direction, so the scroll, the league table, the pre-match sheet and
    Swiss pairing can read it. Glicko-2 (two-sided games): ``rating`` r, ``deviation`` RD,
    ``volatility`` sigma. Plackett-Luce (tables: All-Stars' 3- and 4-team matches, every Kage
    Masters table): ``rating`` mu, ``deviation`` sigma.

    Every rating is of one game (``game``): a team's is its game's; a coach (a player) has one
    rating a game and system, never one across games (issue 28, part 5; docs/ratings.md).
    """

    class System(models.TextChoices):
        GLICKO2 = "glicko2", "Glicko-2 (one on one)"
        PLACKETT_LUCE = "plackett_luce", "Plackett–Luce (tables)"

    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.CASCADE, related_name="strength_ratings")
    coach = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="strength_ratings"
    )
    game = models.CharField(
        max_length=20, choices=games.CHOICES, default=games.DEFAULT, help_text="The game the rating is of"
    )
    system = models.CharField(max_length=20, choices=System.choices)
    rating = models.FloatField()
    deviation = models.FloatField()
    volatility = models.FloatField(null=True, blank=True)
    games = models.PositiveIntegerField(default=0)
    last_match = models.ForeignKey("matches.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["system", "-rating", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(team__isnull=False, coach__isnull=True)
                | models.Q(team__isnull=True, coach__isnull=False),
                name="strength_rating_one_subject",
            ),
            models.UniqueConstraint(
                fields=["team", "system"], condition=models.Q(team__isnull=False), name="strength_rating_team_unique"
            ),
            models.UniqueConstraint(
                fields=["coach", "game", "system"],
                condition=models.Q(coach__isnull=False),
                name="strength_rating_coach_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.team or self.coach}: {self.rating:.0f} ({self.get_system_display()})"

    @property
    def is_glicko(self) -> bool:
        return self.system == self.System.GLICKO2

    @property
    def spread(self) -> float:
        """The uncertainty shown beside the rating: 2 RD (about a 95% interval) for Glicko-2, 3 sigma
        for Plackett-Luce."""
        return (2 if self.is_glicko else 3) * self.deviation

    @property
    def conservative(self) -> float:
        """What to list by: r - 2 RD for Glicko-2 (a 95% lower bound), mu - 3 sigma for Plackett-Luce."""
        return self.rating - self.spread
