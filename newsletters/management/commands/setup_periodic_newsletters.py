"""Create the weekly newsletter schedule (django-celery-beat), once.

Idempotent: run it at every deploy. When the periodic task already exists it is left exactly as
it is, so a time changed (or the task disabled) in the admin is never overwritten; pass --reset
to put the command's schedule back.
"""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction
from django_celery_beat.models import CrontabSchedule, PeriodicTask

TASK_NAME = "Weekly league newsletters"
TASK = "newsletters.tasks.newsletters_weekly_task"


class Command(BaseCommand):
    help = "Create the weekly django-celery-beat task that drafts each league's newsletter (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--day-of-week", default="1", help="Cron day of week (default 1, Monday)")
        parser.add_argument("--hour", default="7", help="Cron hour (default 7)")
        parser.add_argument("--minute", default="0", help="Cron minute (default 0)")
        parser.add_argument("--reset", action="store_true", help="Put the schedule back to these values")

    def handle(self, *args, day_of_week: str, hour: str, minute: str, reset: bool, **options):
        with transaction.atomic():
            schedule, _ = CrontabSchedule.objects.get_or_create(
                minute=minute,
                hour=hour,
                day_of_week=day_of_week,
                day_of_month="*",
                month_of_year="*",
                timezone=settings.CELERY_TIMEZONE or settings.TIME_ZONE,
            )
            task, created = PeriodicTask.objects.select_for_update().get_or_create(
                name=TASK_NAME,
                defaults={
                    "task": TASK,
                    "crontab": schedule,
                    "enabled": True,
                    "description": "Drafts each league's newsletter for its latest completed round or week.",
                },
            )
            if created:
                self.stdout.write(self.style.SUCCESS(f"Created the periodic task {TASK_NAME!r}: {schedule}."))
                return
            if reset:
                task.task, task.crontab, task.interval, task.enabled = TASK, schedule, None, True
                task.save()
                self.stdout.write(self.style.SUCCESS(f"Reset the periodic task {TASK_NAME!r}: {schedule}."))
                return
            self.stdout.write(f"The periodic task {TASK_NAME!r} already exists ({task.schedule}); left as it is.")
