"""League newsletters: one per league and period, drafted by a Celery task, published by the master.

A newsletter stores what it shows. The build task writes the generated sections twice, as facts
(``sections``, JSON) and as rendered content (``content_html`` for the site and the email,
``content_text`` for the plain-text email), and the master's editorial is rendered (Markdown,
then sanitized) whenever it is saved. Pages, the feed and the email show only the stored content,
so a published newsletter reads exactly as it was published, whatever results change later, and
the page costs the same few queries whatever the number of matches it reports.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual
from django.urls import reverse

from outbox.models import RecoverableJob

#: The longest editorial accepted (characters): about 3,000 words, far more than a newsletter's
#: editorial needs, and small enough that the worst Markdown renders in milliseconds (issue 11).
EDITORIAL_MAX_LENGTH = 20_000


class Newsletter(RecoverableJob):
    class Kind(models.TextChoices):
        ROUND = "round", "A round of a season"
        WEEK = "week", "A week"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"

    class BuildStatus(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Being written"
        DONE = "done", "Written"
        FAILED = "failed", "Failed"

    league = models.ForeignKey("league.League", on_delete=models.CASCADE, related_name="newsletters")
    season = models.ForeignKey(
        "league.Season",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="newsletters",
        help_text="The season whose table the newsletter shows",
    )
    kind = models.CharField(max_length=5, choices=Kind.choices)
    round_number = models.PositiveSmallIntegerField(null=True, blank=True)
    iso_year = models.PositiveSmallIntegerField(null=True, blank=True)
    iso_week = models.PositiveSmallIntegerField(null=True, blank=True)
    period_key = models.SlugField(
        max_length=40,
        help_text='The period, e.g. "season-1-round-3" or "2025-w07": unique in the league, part of the URL',
    )
    sort_key = models.PositiveIntegerField(default=0, help_text="Orders newsletters of one season and kind")
    title = models.CharField(max_length=150)
    editorial = models.TextField(
        blank=True,
        max_length=EDITORIAL_MAX_LENGTH,
        validators=[MaxLengthValidator(EDITORIAL_MAX_LENGTH)],
        help_text="The master's words, in Markdown",
    )
    editorial_html = models.TextField(blank=True, help_text="The editorial rendered and sanitized when saved")
    sections = models.JSONField(default=dict, blank=True, help_text="Generated facts, as built")
    period_label = models.CharField(
        max_length=150,
        blank=True,
        help_text="The period's label as built (sections' period label, kept here so pages need not read the JSON)",
    )
    content_html = models.TextField(blank=True, help_text="Generated sections rendered at build time")
    content_text = models.TextField(blank=True, help_text="Generated sections as plain text (email)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    published_at = models.DateTimeField(null=True, blank=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    permalink = models.URLField(blank=True, help_text="Absolute URL when published (used in the email)")
    build_status = models.CharField(max_length=10, choices=BuildStatus.choices, default=BuildStatus.PENDING)
    build_task_id = models.CharField(max_length=64, blank=True)
    build_progress = models.PositiveSmallIntegerField(default=0, help_text="Percent")
    build_step = models.CharField(max_length=100, blank=True)
    build_error = models.CharField(max_length=300, blank=True)
    builds = models.PositiveIntegerField(default=0, help_text="How many times the draft was (re)built")
    built_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["league", "-sort_key", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["league", "period_key"], name="one_newsletter_per_league_period"),
            models.CheckConstraint(
                condition=models.Q(status="draft") | models.Q(published_at__isnull=False),
                name="newsletter_published_has_date",
            ),
            models.CheckConstraint(
                condition=LessThanOrEqual(Length("editorial"), EDITORIAL_MAX_LENGTH),
                name="newsletter_editorial_max_length",
            ),
        ]
        indexes = [models.Index(fields=["league", "status", "-published_at"])]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("newsletters:detail", kwargs={"league_slug": self.league.slug, "key": self.period_key})

    @property
    def is_published(self) -> bool:
        return self.status == self.Status.PUBLISHED

    @property
    def is_built(self) -> bool:
        return self.built_at is not None

    @property
    def is_building(self) -> bool:
        return self.build_status in (self.BuildStatus.PENDING, self.BuildStatus.RUNNING)


class NewsletterDelivery(models.Model):
    """One email of a published newsletter to one player: the record that makes sending safe to
    retry (a delivery marked sent is never sent again)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting to be sent"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed (retrying or given up)"
        SKIPPED = "skipped", "Skipped (no email address)"

    newsletter = models.ForeignKey(Newsletter, on_delete=models.CASCADE, related_name="deliveries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="newsletter_deliveries")
    email = models.EmailField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["newsletter", "id"]
        verbose_name_plural = "newsletter deliveries"
        constraints = [
            models.UniqueConstraint(fields=["newsletter", "user"], name="one_delivery_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.newsletter} → {self.email or self.user}"
