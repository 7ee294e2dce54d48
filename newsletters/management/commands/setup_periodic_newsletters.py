"""Create the weekly newsletter schedule (django-celery-beat), once.

Kept for deploy scripts that call it: the site's periodic tasks are all defined in
league/periodic.py and made by ``manage.py setup_periodic_tasks`` (and by every ``migrate``); this
command makes only the weekly newsletter entry, with its time given here. Idempotent: when the
periodic task already exists it is left exactly as it is, so a time changed (or the task
disabled) in the admin is never overwritten; pass --reset to put the command's schedule back.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from league.periodic import NEWSLETTERS_WEEKLY, ensure_periodic_tasks


class Command(BaseCommand):
    help = "Create the weekly django-celery-beat task that drafts each league's newsletter (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--day-of-week", default="1", help="Cron day of week (default 1, Monday)")
        parser.add_argument("--hour", default="7", help="Cron hour (default 7)")
        parser.add_argument("--minute", default="0", help="Cron minute (default 0)")
        parser.add_argument("--reset", action="store_true", help="Put the schedule back to these values")

    def handle(self, *args, day_of_week: str, hour: str, minute: str, reset: bool, **options):
        crontab = {"day_of_week": day_of_week, "hour": hour, "minute": minute}
        [(periodic, what)] = ensure_periodic_tasks(reset=reset, only=(NEWSLETTERS_WEEKLY,), crontab=crontab)
        if what == "kept":
            self.stdout.write(f"The periodic task {periodic.name!r} already exists; left as it is.")
        else:
            self.stdout.write(self.style.SUCCESS(f"{what.capitalize()} the periodic task {periodic.name!r}."))
