import json
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from api.backup import league_import


class Command(BaseCommand):
    help = "Create a league from a document written by export_league, in an empty database."

    def add_arguments(self, parser):
        parser.add_argument("path", help="The JSON document")

    def handle(self, *args, path, **options):
        try:
            document = json.loads(Path(path).read_bytes())
        except (OSError, ValueError) as exc:
            raise CommandError(f"Cannot read {path}: {exc}") from None
        try:
            league = league_import(document)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        self.stdout.write(f"Imported {league.name} ({league.slug}). Its players must set a password to log in.")
