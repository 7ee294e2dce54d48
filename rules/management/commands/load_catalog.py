from django.core.management.base import BaseCommand

from rules.catalog import load_catalog


class Command(BaseCommand):
    help = "Load (or refresh) the rules catalog from rules/data/catalog.json. Safe to run twice."

    def handle(self, *args, **options):
        counts = load_catalog()
        self.stdout.write(self.style.SUCCESS("Catalog loaded: " + ", ".join(f"{v} {k}" for k, v in counts.items())))
