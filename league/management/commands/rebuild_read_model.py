"""Rebuild the stored league standings and team ratings from history (league/readmodel.py).

Safe at any time: each season's rows and each team's rating are recomputed under their row locks
and written only where they differ, so it reports how many had drifted (zero unless something
wrote games or rosters outside the services).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from league.models import Season
from league.readmodel import rebuild_all


class Command(BaseCommand):
    help = "Recompute every season entry's standing and every team's rating from the matches and rosters."

    def add_arguments(self, parser):
        parser.add_argument("--season", type=int, action="append", help="Only this season id (repeatable)")

    def handle(self, *args, season: list[int] | None, **options):
        seasons = Season.objects.filter(pk__in=season).order_by("id") if season else None
        rows, ratings = rebuild_all(seasons=seasons)
        self.stdout.write(self.style.SUCCESS(f"Standings rows changed: {rows}; team ratings changed: {ratings}."))
