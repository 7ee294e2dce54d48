"""Leagues and seasons, with the ninja master's house rules.

The rulebook gives the master total control of the league rules. The house rules live on the
League as the defaults for its next season, and are copied onto each Season when it is created:
a season's rules are frozen, so changing the league's settings never rewrites an old season.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils import timezone

from common.text import MultiLineField, NameField, NameKeyField, NameKeyMixin
from games import registry as games
from games.protocol import MAX_GAME_RULES, MAX_RULE_TEXT
from matches.models import REGULAR_STAGE, playoff_stage
from outbox.models import RecoverableJob
from rules.engine import house_rules as engine_house_rules
from rules.engine import league as rules_league
from rules.engine.standings import DEFAULT_TIE_BREAKERS as ENGINE_DEFAULT_TIE_BREAKERS
from rules.engine.standings import TieBreaker

#: The tie-breakers a master may choose ({value: label}), from the rules engine's TieBreaker.
TIE_BREAKER_CHOICES = {t.value: t.label for t in TieBreaker}
#: The tie-breakers that read an All-Stars team scroll (its team rating): no other game offers them.
SCROLL_TIE_BREAKERS = frozenset({TieBreaker.TEAM_RATING_LOW.value})


def tie_breaker_choices(game: str) -> dict[str, str]:
    """The tie-breakers a league of ``game`` may choose ({value: label}), in its own words: a
    players' game's are between players, and have none that reads a team scroll (issue 28, part 3)."""
    info = games.get(game)
    if games.game_of(game).team_scrolls:
        return TIE_BREAKER_CHOICES
    return {
        value: label.replace("teams", info.entrants).replace("team", info.entrant)
        for value, label in TIE_BREAKER_CHOICES.items()
        if value not in SCROLL_TIE_BREAKERS
    }


DEFAULT_TIE_BREAKERS = ",".join(t.value for t in ENGINE_DEFAULT_TIE_BREAKERS)


def default_tie_breakers(game: str) -> str:
    """The tie-breakers a league of ``game`` is founded with (its master may change them): its
    package's (``GameInfo.tie_breakers``), else the engine's defaults (All-Stars')."""
    own = games.get(game).tie_breakers if game in games.GAMES else ()
    return ",".join(TieBreaker(t).value for t in own) if own else DEFAULT_TIE_BREAKERS


#: The range (lowest, highest) of every house rule of the core's that is a number, from the rules
#: engine (rules/engine/house_rules.py); a game's own rules have theirs in its package
#: (games.protocol.HouseRule). Enforced by the fields' validators and the tables' check
#: constraints, shown on the form, and checked by the services.
HOUSE_RULE_BOUNDS: dict[str, tuple[int, int]] = dict(engine_house_rules.BOUNDS)


def bounds_validators(name: str) -> list:
    """The validators of a house-rule number's range (HOUSE_RULE_BOUNDS), one message for both ends."""
    low, high = HOUSE_RULE_BOUNDS[name]
    message = f"Between {low} and {high}."
    return [MinValueValidator(low, message=message), MaxValueValidator(high, message=message)]


def bounded(name: str, help_text: str = "") -> dict:
    """A house-rule number's validators and help text (its range ends it)."""
    low, high = HOUSE_RULE_BOUNDS[name]
    return {"validators": bounds_validators(name), "help_text": f"{help_text} From {low} to {high}.".strip()}


def house_rule_constraint(table: str) -> models.CheckConstraint:
    """The database's own check that every house-rule number is in its range (empty: in range).

    One constraint for them all: a model's validation runs a query for each check constraint, and
    each field's validators already name the field that is out of range."""
    condition = models.Q()
    for name, (low, high) in HOUSE_RULE_BOUNDS.items():
        condition &= models.Q(**{f"{name}__gte": low, f"{name}__lte": high}) | models.Q(**{f"{name}__isnull": True})
    return models.CheckConstraint(
        condition=condition,
        name=f"{table}_house_rules_in_range",
        violation_error_message="A house rule is out of its range.",
    )


def validate_game_rules(value) -> None:
    """A game's own house rules as stored (``HouseRules.game_rules``): a small mapping of short
    keys to nothing (None: a rule that may be empty), a yes/no, a whole number or a short text.
    Which keys and ranges: the game's (``Game.rule_problems``, checked by the services and by
    ``HouseRules.clean``)."""
    if not isinstance(value, dict):
        raise ValidationError("The game's house rules are a mapping of rule to value.")
    if len(value) > MAX_GAME_RULES:
        raise ValidationError(f"A game has at most {MAX_GAME_RULES} house rules of its own.")
    for key, rule in value.items():
        if not isinstance(key, str) or len(key) > MAX_RULE_TEXT:
            raise ValidationError("A house rule's name is a short text.")
        if rule is not None and (
            not isinstance(rule, bool | int | str) or (isinstance(rule, str) and len(rule) > MAX_RULE_TEXT)
        ):
            raise ValidationError(f"{key}: empty, a yes or no, a whole number or a short text.")
        if isinstance(rule, int) and not isinstance(rule, bool) and abs(rule) > 2**31:
            raise ValidationError(f"{key}: out of range.")


class HouseRules(models.Model):
    """League settings the master may change (abstract: on League as defaults, on Season frozen)."""

    class DiceMode(models.TextChoices):
        SERVER = "server", "Rolled by the server"
        ENTERED = "entered", "Entered by the player as rolled at the table"

    class SwissOrder(models.TextChoices):
        TABLE = "table", "The league table (points, then the tie-breakers)"
        STRENGTH = "strength", "Points, then the strength rating (Glicko-2)"

    starting_koban = models.PositiveSmallIntegerField(default=rules_league.STARTING_KOBAN, **bounded("starting_koban"))
    revenue_win = models.PositiveSmallIntegerField(default=rules_league.WIN_KOBAN, **bounded("revenue_win"))
    revenue_draw = models.PositiveSmallIntegerField(
        default=rules_league.DEFAULT_DRAW_KOBAN,
        **bounded("revenue_draw", "The rulebook gives no revenue for a draw: this is the league's own figure."),
    )
    revenue_loss = models.PositiveSmallIntegerField(default=rules_league.LOSS_KOBAN, **bounded("revenue_loss"))
    points_win = models.PositiveSmallIntegerField(default=3, **bounded("points_win"))
    points_draw = models.PositiveSmallIntegerField(default=1, **bounded("points_draw"))
    points_loss = models.PositiveSmallIntegerField(default=0, **bounded("points_loss"))
    tie_breakers = models.CharField(
        max_length=200,
        default=DEFAULT_TIE_BREAKERS,
        help_text="Comma-separated, in order: " + ", ".join(TIE_BREAKER_CHOICES),
    )
    results_need_confirmation = models.BooleanField(
        default=True, help_text="A result submitted by one side waits for an opponent or the master to confirm."
    )
    dice_mode = models.CharField(max_length=10, choices=DiceMode.choices, default=DiceMode.SERVER)
    underdog_bonuses = models.BooleanField(
        default=True, help_text="The lower-rated team gets reroll tokens, Moon Power, extra All-Stars and bonus koban."
    )
    max_bonus_koban = models.PositiveSmallIntegerField(
        default=rules_league.MAX_BONUS_KOBAN,
        **bounded(
            "max_bonus_koban",
            f"Most bonus koban an underdog earns after a game (the rulebook says {rules_league.MAX_BONUS_KOBAN}).",
        ),
    )
    points_bye = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        **bounded("points_bye", "League points for a bye in a swiss season. Empty: as many as a win."),
    )
    points_forfeit_win = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        **bounded("points_forfeit_win", "League points for winning by forfeit (a walkover). Empty: as many as a win."),
    )
    points_forfeit_loss = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        **bounded("points_forfeit_loss", "League points for the side that forfeits. Empty: as many as a loss."),
    )
    revenue_forfeit_win = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        **bounded(
            "revenue_forfeit_win",
            "Koban for winning by forfeit. Empty: the win revenue above (the rulebook's, unless "
            "changed). The forfeiting side earns nothing.",
        ),
    )

    swiss_order = models.CharField(
        max_length=10,
        choices=SwissOrder.choices,
        default=SwissOrder.TABLE,
        blank=True,
        help_text="Swiss seasons: how teams with the same points are ordered for pairing.",
    )

    several_teams_per_owner = models.BooleanField(
        default=False,
        help_text="A player may enter more than one team in the same season. Off: one team per player.",
    )

    class UpkeepDefault(models.TextChoices):
        PAY = "pay", "Paid (if the treasury covers it)"
        RELEASE = "release", "Released"

    # Ronin upkeep is decided by the ronin's own team ("a team must pay Ronin a fee after each game";
    # docs/rulings.md): a result waits for the owner; by the fixture's deadline, this decides.
    ronin_upkeep_default = models.CharField(
        max_length=10,
        choices=UpkeepDefault.choices,
        default=UpkeepDefault.PAY,
        blank=True,
        help_text="A ronin's upkeep when its owner has not decided by the fixture's deadline.",
    )

    # A game's own house rules (games.protocol.HouseRule, Game.house_rules): its package declares
    # them, the core keeps their values here, without a field for each (issue 28, part 1).
    game_rules = models.JSONField(
        default=dict,
        blank=True,
        validators=[validate_game_rules],
        help_text="The game's own house rules, by rule: the ones its package declares (docs/architecture.md).",
    )

    HOUSE_RULE_FIELDS = (
        "starting_koban",
        "revenue_win",
        "revenue_draw",
        "revenue_loss",
        "points_win",
        "points_draw",
        "points_loss",
        "tie_breakers",
        "results_need_confirmation",
        "dice_mode",
        "underdog_bonuses",
        "max_bonus_koban",
        "points_bye",
        "points_forfeit_win",
        "points_forfeit_loss",
        "revenue_forfeit_win",
        "swiss_order",
        "several_teams_per_owner",
        "ronin_upkeep_default",
        "game_rules",
    )

    #: House rules that mean something in Ninja All-Stars only (koban, the dice of the post-game
    #: sequence, underdogs): a league of another game neither shows nor asks for them.
    ALLSTARS_ONLY_FIELDS = (
        "starting_koban",
        "revenue_win",
        "revenue_draw",
        "revenue_loss",
        "dice_mode",
        "underdog_bonuses",
        "max_bonus_koban",
        "revenue_forfeit_win",
        "ronin_upkeep_default",
    )

    class Meta:
        abstract = True

    @classmethod
    def fields_not_for(cls, game: str) -> tuple[str, ...]:
        """The house rules a league of ``game`` neither shows nor asks for (the other games' own)."""
        own = {key: site.house_rule_fields for key, site in games.sites().items()}
        mine = set(own.get(game, ()))
        others = tuple(name for key, names in own.items() if key != game for name in names if name not in mine)
        # a game without house rules of its own has no game rules to show
        return others if game in games.sites() and games.game_of(game).house_rules else (*others, "game_rules")

    def _game_key(self) -> str | None:
        """The key of the game these rules are of (None: not known yet)."""
        raise NotImplementedError

    def _game_site(self) -> games.Game:
        return games.game_of(self._game_key())

    @property
    def own_rules(self) -> dict:
        """The game's own house rules' values ({key: value}; ``Game.rule_values``)."""
        return self._game_site().rule_values(self.game_rules)

    @property
    def own_rules_shown(self) -> dict[str, str]:
        """The game's own house rules as a page shows them ({key: text}; a choice's label)."""
        return self._game_site().rule_shown(self.game_rules)

    @property
    def game_rule_lines(self) -> list[tuple[str, str]]:
        """(label, line) of each of the game's own house rules, by their sentences; none for a game
        that lists them in its own template (``Game.league_rules_template``)."""
        site = self._game_site()
        return [] if site.league_rules_template else site.rule_lines(self.game_rules)

    def clean(self) -> None:
        """The game's own rules checked against its declaration (``Game.rule_problems``: what the
        admin and a backup's import run); an empty value (a form's blank) is no rules, the defaults."""
        super().clean()
        if self.game_rules is None:
            self.game_rules = {}
        game = self._game_key()
        problems = games.game_of(game).rule_problems(self.game_rules) if game in games.sites() else {}
        if problems:
            raise ValidationError({"game_rules": list(problems.values())})

    @property
    def bye_points(self) -> int:
        """League points a swiss bye scores (the house rule, else a win's)."""
        return self.points_win if self.points_bye is None else self.points_bye

    @property
    def forfeit_win_points(self) -> int:
        return self.points_win if self.points_forfeit_win is None else self.points_forfeit_win

    @property
    def forfeit_loss_points(self) -> int:
        return self.points_loss if self.points_forfeit_loss is None else self.points_forfeit_loss

    @property
    def forfeit_win_revenue(self) -> int:
        return self.revenue_win if self.revenue_forfeit_win is None else self.revenue_forfeit_win

    def house_rules(self) -> dict:
        """The stored values, by field (what a new season copies)."""
        return {name: getattr(self, name) for name in self.HOUSE_RULE_FIELDS}

    def rule_set(self) -> engine_house_rules.HouseRules:
        """The rules as the services and the engine take them (a frozen value)."""
        return engine_house_rules.HouseRules.from_mapping(self.house_rules())

    @property
    def tie_breaker_list(self) -> list[str]:
        return [t.strip() for t in self.tie_breakers.split(",") if t.strip()]


class League(NameKeyMixin, HouseRules):
    name = NameField(max_length=100, unique=True)
    name_key = NameKeyField(source="name", help_text="What uniqueness compares (common/text.py: name_key)")
    slug = models.SlugField(max_length=100, unique=True)
    game = models.CharField(
        max_length=20,
        choices=games.choices,
        default=games.DEFAULT,
        help_text="The game the league plays, chosen when it is founded and fixed after.",
    )
    description = MultiLineField(blank=True, max_length=5000)
    master = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="mastered_leagues")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["name_key"],
                name="league_name_key_unique",
                violation_error_message="A league with this name (or one that looks the same) already exists.",
            ),
            models.CheckConstraint(condition=~models.Q(name_key=""), name="league_name_not_blank"),
            house_rule_constraint("league"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("league:detail", kwargs={"slug": self.slug})

    @property
    def game_info(self) -> games.GameInfo:
        """The game's plain description (its name, players per match, whether it has team scrolls)."""
        return games.get(self.game)

    @property
    def game_site(self) -> games.Game:
        """The game's Django side (games.protocol.Game): what the core asks of the league's game."""
        return games.game_of(self.game)

    def _game_key(self) -> str | None:
        return self.game

    @property
    def has_team_scrolls(self) -> bool:
        """Entrants are All-Stars team scrolls (clan, roster, treasury); else players (the
        protocol's ``Game.team_scrolls``, under the name the tests know)."""
        return self.game_site.team_scrolls


class Season(HouseRules):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "Single round robin"
        DOUBLE_ROUND_ROBIN = "double_round_robin", "Double round robin"
        RANDOM_WEEKLY = "random_weekly", "Random weekly matchups"
        SWISS = "swiss", "Swiss"
        SELF_ARRANGED = "self_arranged", "Self-arranged"
        TABLES = "tables", "Tables of 3 to 5, fewest repeat meetings"
        SWISS_TABLES = "swiss_tables", "Swiss tables: tables by standing"

    class Status(models.TextChoices):
        OPEN = "open", "Open for entries"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveSmallIntegerField()
    name = NameField(max_length=100)
    format = models.CharField(max_length=20, choices=Format.choices, default=Format.ROUND_ROBIN)
    swiss_rounds = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="The number of rounds of a swiss or table season (tables, swiss tables); empty for the others.",
    )
    playoff_teams = models.PositiveSmallIntegerField(default=0, help_text="0: no playoffs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    final_table = models.JSONField(null=True, blank=True, help_text="Archived league table when finished")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["league", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="season_number_unique"),
            # One current (open or running) season per league; finished seasons are history.
            models.UniqueConstraint(
                fields=["league"], condition=~models.Q(status="finished"), name="one_current_season_per_league"
            ),
            house_rule_constraint("season"),
        ]

    def __str__(self) -> str:
        return f"{self.league} — {self.name}"

    def get_absolute_url(self) -> str:
        return reverse("league:season_detail", kwargs={"slug": self.league.slug, "number": self.number})

    def _game_key(self) -> str | None:
        return self.league.game if self.league_id else None

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def is_round_robin(self) -> bool:
        return self.format in (self.Format.ROUND_ROBIN, self.Format.DOUBLE_ROUND_ROBIN)

    #: Formats that pair two sides a fixture (every game played one-on-one: All-Stars, Ninjutsu).
    PAIRWISE_FORMATS = (
        Format.ROUND_ROBIN,
        Format.DOUBLE_ROUND_ROBIN,
        Format.RANDOM_WEEKLY,
        Format.SWISS,
        Format.SELF_ARRANGED,
    )
    #: Formats that seat players at tables of 3 to 5 (a game played at tables: Kage Masters).
    TABLE_FORMATS = (Format.TABLES, Format.SWISS_TABLES, Format.SELF_ARRANGED)
    #: Formats generated round by round up to a number of rounds (``swiss_rounds``).
    COUNTED_FORMATS = (Format.SWISS, Format.TABLES, Format.SWISS_TABLES)

    @classmethod
    def formats_for(cls, game: str) -> tuple[str, ...]:
        """The formats a league of ``game`` offers (docs/leagues.md, "Season formats by game")."""
        return cls.TABLE_FORMATS if games.game_of(game).tables else cls.PAIRWISE_FORMATS

    @property
    def is_tables(self) -> bool:
        """Scheduled as tables of 3 to 5 (tables, swiss tables)."""
        return self.format in (self.Format.TABLES, self.Format.SWISS_TABLES)


class SeasonEntry(models.Model):
    """A team taking part in a season."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="entries")
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="season_entries")
    seed = models.PositiveSmallIntegerField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    # The team's line of the league table (the read model): counted games only (confirmed,
    # regular season, not friendly), written by league.standings.standings_refresh in the same
    # transaction as the post-game sequence and voiding; rebuilt by `manage.py rebuild_read_model`.
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    drawn = models.PositiveIntegerField(default=0)
    lost = models.PositiveIntegerField(default=0)
    points_for = models.PositiveIntegerField(default=0)
    points_against = models.PositiveIntegerField(default=0)
    points = models.IntegerField(default=0, help_text="League points under the season's frozen rules")
    byes = models.PositiveIntegerField(default=0, help_text="Byes that scored league points (swiss seasons)")

    STANDING_FIELDS = ("played", "won", "drawn", "lost", "points_for", "points_against", "points", "byes")

    class Meta:
        ordering = ["season", "seed", "id"]
        constraints = [models.UniqueConstraint(fields=["season", "team"], name="season_entry_unique")]

    def __str__(self) -> str:
        return f"{self.team} in {self.season}"


class ScheduleRun(RecoverableJob):
    """One request to generate fixtures: the idempotency key and the progress record of a task.

    Unique per (season, kind, round): asking twice for the same round finds the same run, and a
    run that is done is never executed again. ``round_number`` 0 stands for "every round" (a
    round robin is generated in one go).
    """

    class Kind(models.TextChoices):
        ROUND_ROBIN = "round_robin", "Round robin (every round)"
        RANDOM_WEEKLY = "random_weekly", "Random weekly round"
        SWISS = "swiss", "Swiss round"
        PLAYOFF = "playoff", "Playoff round"
        TABLES = "tables", "Round of tables"
        SWISS_TABLES = "swiss_tables", "Swiss round of tables"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="schedule_runs")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    round_number = models.PositiveSmallIntegerField(default=0, help_text="0: every round (round robin)")
    task_id = models.CharField(max_length=64, unique=True)
    seed = models.BigIntegerField(help_text="Seed of the random draws (pairings, challenges): replayable")
    challenge = models.ForeignKey(
        "rules.Challenge",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Set by the master for every fixture of this run; empty: the random challenge generator",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=300, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    starts_on = models.DateField(null=True, blank=True, help_text="The (first) round's start; empty: no date")
    deadline = models.DateField(null=True, blank=True, help_text="The (first) round's deadline; empty: none")
    interval_days = models.PositiveSmallIntegerField(
        default=7, help_text="Round robin: each later round's dates come this many days after the previous one's"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["season", "id"]
        constraints = [
            models.UniqueConstraint(fields=["season", "kind", "round_number"], name="one_schedule_run_per_round"),
        ]

    def __str__(self) -> str:
        what = "all rounds" if self.round_number == 0 else f"round {self.round_number}"
        return f"{self.season}: {self.get_kind_display()} ({what})"

    def get_absolute_url(self) -> str:
        return reverse("league:schedule_run", kwargs={"pk": self.pk})

    @property
    def stage(self) -> str:
        return playoff_stage(self.round_number) if self.kind == self.Kind.PLAYOFF else REGULAR_STAGE


class Round(models.Model):
    """A round's optional dates: when it starts and the deadline for playing its fixtures.

    Set from the schedule run's dates when the round is generated, or later by the master. A
    fixture inherits them unless it has a date or deadline of its own (``Match.date``,
    ``Match.deadline``). A round with no row has no dates.
    """

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="rounds")
    stage = models.CharField(max_length=20, blank=True)
    round_number = models.PositiveSmallIntegerField()
    starts_on = models.DateField(null=True, blank=True)
    deadline = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["season", "stage", "round_number"]
        constraints = [
            models.UniqueConstraint(fields=["season", "stage", "round_number"], name="round_unique"),
            models.CheckConstraint(
                condition=models.Q(starts_on__isnull=True)
                | models.Q(deadline__isnull=True)
                | models.Q(deadline__gte=models.F("starts_on")),
                name="round_deadline_after_start",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.season}: round {self.round_number}"


class Bye(models.Model):
    """A team sitting out a round (odd number of teams), with why it was this team."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="byes")
    stage = models.CharField(max_length=20, blank=True)
    round_number = models.PositiveSmallIntegerField()
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="byes")
    reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["season", "stage", "round_number", "id"]
        constraints = [
            models.UniqueConstraint(fields=["season", "stage", "round_number", "team"], name="bye_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.team} sits out round {self.round_number}"


class BracketSlot(models.Model):
    """A line of the playoff bracket: the winners of slots 2k and 2k+1 meet in slot k next round.

    ``away`` is empty for a first-round bye (``home`` advances). ``winner`` is filled when the
    slot is decided (the bye's team, or the winner of the confirmed match).
    """

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="bracket_slots")
    round_number = models.PositiveSmallIntegerField()
    slot = models.PositiveSmallIntegerField()
    home = models.ForeignKey("teams.Team", on_delete=models.PROTECT, related_name="+")
    away = models.ForeignKey("teams.Team", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    home_seed = models.PositiveSmallIntegerField()
    away_seed = models.PositiveSmallIntegerField(null=True, blank=True)
    match = models.OneToOneField(
        "matches.Match", null=True, blank=True, on_delete=models.PROTECT, related_name="bracket_slot"
    )
    winner = models.ForeignKey("teams.Team", null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["season", "round_number", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["season", "round_number", "slot"], name="bracket_slot_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.season}: playoff round {self.round_number}, slot {self.slot}"

    @property
    def is_bye(self) -> bool:
        return self.away_id is None


class LeagueInvitation(models.Model):
    """A link (its code) the master shares so a signed-in player can apply with one of his teams
    (issue 14, part 5). It gives no other right: the application waits for the master like any
    other. It stops working when revoked, when it expires or once it was used ``max_uses`` times."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="invitations")
    code = models.CharField(max_length=32, unique=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    max_uses = models.PositiveIntegerField(null=True, blank=True)
    uses = models.PositiveIntegerField(default=0)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(max_uses__isnull=True) | models.Q(uses__lte=models.F("max_uses")),
                name="invitation_uses_within_max",
            ),
        ]

    def __str__(self) -> str:
        return f"Invitation to {self.league}"

    def get_absolute_url(self) -> str:
        return reverse("league:join", kwargs={"code": self.code})

    def refusal(self, now=None) -> str:
        """Why the link no longer works (empty while it does)."""
        now = now or timezone.now()
        if self.revoked_at is not None:
            return "This invitation was revoked by the league's ninja master."
        if self.expires_at is not None and self.expires_at <= now:
            return "This invitation has expired."
        if self.max_uses is not None and self.uses >= self.max_uses:
            return "This invitation has been used as many times as it allowed."
        return ""

    @property
    def is_usable(self) -> bool:
        return not self.refusal()
