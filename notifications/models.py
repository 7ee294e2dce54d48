"""Notifications: what the site tells a user (in the site's list, and by email), and what each user
chose to be told."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Kind(models.TextChoices):
    FIXTURE = "fixture", "A new fixture or round"
    TO_CONFIRM = "to_confirm", "A result waiting for your confirmation"
    RESULT = "result", "A result confirmed, rejected or disputed"
    ADVANCEMENT = "advancement", "An advancement roll to choose"
    APPLICATION = "application", "An application decided"
    DEADLINE = "deadline", "A fixture near its deadline"
    NEWSLETTER = "newsletter", "A newsletter published"


class NotificationQuerySet(models.QuerySet):
    def unread(self):
        return self.filter(read_at__isnull=True)


class Notification(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    text = models.CharField(max_length=300)
    url = models.CharField(max_length=300, blank=True, help_text="Where it is dealt with (a path of the site)")
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The list (a user's newest first) and the unread count in the navigation.
            models.Index(fields=["user", "-created_at"], name="notification_user_new_idx"),
            models.Index(fields=["user"], condition=models.Q(read_at__isnull=True), name="notification_unread_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.text}"


class Preference(models.Model):
    """A user's choice for one kind; no row: both on."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_prefs")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    email = models.BooleanField(default=True)
    site = models.BooleanField(default=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind"], name="notification_pref_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind}: email {self.email}, site {self.site}"


class DeadlineReminder(models.Model):
    """A fixture whose players were told its deadline is near: once per fixture."""

    match = models.OneToOneField("matches.Match", on_delete=models.CASCADE, related_name="deadline_reminder")
    sent_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"reminder for match {self.match_id}"
