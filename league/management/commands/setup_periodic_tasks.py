"""Create every periodic task of the site (django-celery-beat), once: league/periodic.py.

Idempotent: run it at every deploy (``migrate`` runs it too). An entry that exists is left
exactly as it is, so a schedule changed (or disabled) in the admin is never overwritten; pass
--reset to put the definitions back.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from league.periodic import PERIODIC_TASKS, ensure_periodic_tasks


class Command(BaseCommand):
    help = "Create the site's periodic tasks (weekly newsletters, outbox redispatch, stopped-job recovery); idempotent."

    def add_arguments(self, parser):
        parser.add_argument("--reset", action="store_true", help="Put existing entries back to their definitions")

    def handle(self, *args, reset: bool, **options):
        for periodic, what in ensure_periodic_tasks(reset=reset, only=PERIODIC_TASKS):
            if what == "kept":
                self.stdout.write(f"The periodic task {periodic.name!r} already exists; left as it is.")
            else:
                self.stdout.write(self.style.SUCCESS(f"{what.capitalize()} the periodic task {periodic.name!r}."))
