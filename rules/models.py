"""The rules catalog: clans, profiles (clan models, heroes, ronin), keywords, challenges, tables.

Loaded from rules/data/catalog.json by a data migration (see rules/catalog.py); the ninja master
may correct rows in the admin. Game logic lives in rules/engine/ (pure Python), not here.
"""

from __future__ import annotations

from django.db import models

from rules.engine import dice as engine_dice
from rules.engine.recruitment import HERO_KINDS, RecruitProfile, allowance_text

#: The six elements of the dice (the engine's ``Element``) as model choices.
Element = models.TextChoices("Element", [(e.name, e.value) for e in engine_dice.Element])


class Clan(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=40, unique=True)
    element = models.CharField(max_length=10, choices=Element.choices)
    affinity_note = models.CharField(max_length=120, blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "name"]

    def __str__(self) -> str:
        return self.name


class Keyword(models.Model):
    class Category(models.TextChoices):
        GENERAL = "General"
        AIR = "Air"
        EARTH = "Earth"
        FIRE = "Fire"
        SPIRIT = "Spirit"
        WATER = "Water"
        VOID = "Void"
        UNIQUE = "Unique"

    name = models.CharField(max_length=60, unique=True)
    category = models.CharField(max_length=10, choices=Category.choices)
    text = models.TextField()
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "name"]

    def __str__(self) -> str:
        return self.name


class Profile(models.Model):
    """A recruitable model type: one of a clan's six ninja types, a clan hero, or a ronin."""

    class Kind(models.TextChoices):
        CHUNIN = "chunin", "Chunin"
        KAIKEN = "kaiken", "Kaiken"
        YAJIRI = "yajiri", "Yajiri"
        MADOUSHI = "madoushi", "Madoushi"
        KUNOICHI = "kunoichi", "Kunoichi"
        ONI = "oni", "Oni"
        HERO = "hero", "Hero"
        RONIN = "ronin", "Ronin"

    slug = models.SlugField(max_length=80, unique=True)
    clan = models.ForeignKey(Clan, null=True, blank=True, on_delete=models.PROTECT, related_name="profiles")
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    movement = models.PositiveSmallIntegerField()
    attack = models.PositiveSmallIntegerField()
    defense = models.PositiveSmallIntegerField()
    koban = models.PositiveSmallIntegerField(help_text="Recruit cost in koban")
    upkeep = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Ronin fee paid after each game")
    affinities = models.JSONField(default=list)
    allowance_min = models.PositiveSmallIntegerField(null=True, blank=True)
    allowance_max = models.PositiveSmallIntegerField(null=True, blank=True)
    keywords = models.ManyToManyField(Keyword, blank=True, related_name="profiles")
    ranged = models.PositiveSmallIntegerField(null=True, blank=True)
    ranged_attack_bonus = models.SmallIntegerField(null=True, blank=True)
    ranged_text = models.CharField(max_length=200, blank=True)
    choose_abilities = models.PositiveSmallIntegerField(
        default=0, help_text="How many special abilities must be chosen at recruitment (0: has them all)"
    )
    notes = models.TextField(blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["clan__order", "order", "name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(allowance_min__isnull=True)
                | models.Q(allowance_max__isnull=True)
                | models.Q(allowance_min__lte=models.F("allowance_max")),
                name="profile_allowance_min_lte_max",
            ),
        ]

    def __str__(self) -> str:
        if self.clan_id and self.kind != self.Kind.HERO:
            return f"{self.clan.name} {self.name}"
        return self.name

    @property
    def is_hero(self) -> bool:
        """A hero or a ronin (a ronin follows every rule for a Hero): unique on a team, no XP."""
        return self.kind in HERO_KINDS

    @property
    def is_ronin(self) -> bool:
        return self.kind == self.Kind.RONIN

    @property
    def allowance_display(self) -> str:
        return allowance_text(self.allowance_min, self.allowance_max)

    def recruit_profile(self) -> RecruitProfile:
        """The profile as the recruitment rules see it (rules.engine.recruitment)."""
        return RecruitProfile(
            key=self.pk,
            name=self.name,
            kind=self.kind,
            koban=self.koban,
            clan_key=self.clan_id,
            label=str(self),
            allowance_min=self.allowance_min,
            allowance_max=self.allowance_max,
            choose_abilities=self.choose_abilities,
        )

    @property
    def koban_display(self) -> str:
        return f"{self.koban}/{self.upkeep}" if self.upkeep is not None else str(self.koban)


class SpecialAbility(models.Model):
    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="abilities")
    name = models.CharField(max_length=80)
    text = models.TextField()
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "id"]
        verbose_name_plural = "special abilities"
        constraints = [models.UniqueConstraint(fields=["profile", "name"], name="ability_unique_per_profile")]

    def __str__(self) -> str:
        return self.name


class Challenge(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=60, unique=True)
    summary = models.TextField(blank=True)
    ninjas_allowed = models.PositiveSmallIntegerField()
    rounds = models.PositiveSmallIntegerField(help_text="Challenge length in rounds")
    setup = models.TextField(blank=True)
    special_rules = models.TextField(blank=True)
    notes = models.TextField(blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "name"]

    def __str__(self) -> str:
        return self.name


class ChallengeXpAward(models.Model):
    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="xp_awards")
    key = models.SlugField(max_length=40)
    feat = models.CharField(max_length=120)
    xp = models.PositiveSmallIntegerField()
    text = models.TextField(blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "id"]
        constraints = [models.UniqueConstraint(fields=["challenge", "key"], name="xp_award_unique_key")]

    def __str__(self) -> str:
        return f"{self.challenge}: {self.feat} ({self.xp} XP)"


class StatusEffect(models.Model):
    name = models.CharField(max_length=40, unique=True)
    text = models.TextField()
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "name"]
        verbose_name_plural = "status effects"

    def __str__(self) -> str:
        return self.name


class SentryProfile(models.Model):
    name = models.CharField(max_length=40, unique=True)
    movement = models.PositiveSmallIntegerField()
    attack = models.PositiveSmallIntegerField()
    defense = models.PositiveSmallIntegerField()
    affinity_note = models.TextField(blank=True)
    rules = models.TextField(blank=True)

    def __str__(self) -> str:
        return self.name


class XpLevel(models.Model):
    level = models.PositiveSmallIntegerField(unique=True)
    name = models.CharField(max_length=40)
    min_xp = models.PositiveIntegerField()
    max_xp = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["level"]
        verbose_name = "XP level"

    def __str__(self) -> str:
        return self.name

    @property
    def range_display(self) -> str:
        return f"{self.min_xp}+" if self.max_xp is None else f"{self.min_xp}-{self.max_xp}"


class AdvancementRow(models.Model):
    face = models.CharField(max_length=10, choices=Element.choices, unique=True)
    result = models.CharField(max_length=60)
    doubles = models.CharField(max_length=60)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order"]
        verbose_name = "advancement table row"

    def __str__(self) -> str:
        return self.face


class DowntimeRow(models.Model):
    face = models.CharField(max_length=10, choices=Element.choices, unique=True)
    effect = models.TextField()
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order"]
        verbose_name = "downtime table row"

    def __str__(self) -> str:
        return self.face


class RevenueRow(models.Model):
    result = models.CharField(max_length=10, unique=True)
    label = models.CharField(max_length=60)
    koban = models.PositiveSmallIntegerField()
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order"]
        verbose_name = "revenue table row"

    def __str__(self) -> str:
        return self.label


class RandomChallengeRow(models.Model):
    """One row of the random challenge generator: the second die's face and the two columns."""

    face = models.CharField(max_length=10, choices=Element.choices, unique=True)
    column_1 = models.CharField(max_length=60)
    column_2 = models.CharField(max_length=60)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order"]
        verbose_name = "random challenge table row"

    def __str__(self) -> str:
        return self.face


class RandomChallengeColumn(models.Model):
    """The first die: which column a face selects."""

    face = models.CharField(max_length=10, choices=Element.choices, unique=True)
    column = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["column", "face"]

    def __str__(self) -> str:
        return f"{self.face} → column {self.column}"
