from django.db import models


class OutboxTask(models.Model):
    """A Celery task whose dispatch failed (the broker was unreachable); sent again later."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for the broker"
        SENT = "sent", "Sent"
        FAILED = "failed", "Not sent (unknown task)"

    task_name = models.CharField(max_length=200)
    args = models.JSONField(default=list)
    kwargs = models.JSONField(default=dict)
    task_id = models.CharField(max_length=64, blank=True)
    description = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=1)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["status", "id"])]

    def __str__(self) -> str:
        return f"{self.task_name} ({self.get_status_display()})"


class RecoverableJob(models.Model):
    """The fields a long job's row needs to be resumed when its worker stops (outbox/jobs.py)."""

    queued_at = models.DateTimeField(null=True, blank=True, help_text="When its task was last requested or sent again")
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="The worker's last sign of life (when it started, and as it progresses)"
    )
    restarts = models.PositiveSmallIntegerField(default=0, help_text="Times its task was sent again after it stopped")
    restart_note = models.CharField(max_length=200, blank=True, help_text="What happened, shown on its page")

    class Meta:
        abstract = True
