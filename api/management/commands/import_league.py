from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from api.backup import league_document_read, league_import, max_bytes


class Command(BaseCommand):
    help = (
        "Create a league from a document written by export_league, in a database without leagues, teams "
        "or matches (a restore). The document is checked whole first: a problem refuses it and writes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="The JSON document")

    def handle(self, *args, path, **options):
        try:
            size = Path(path).stat().st_size
            if size > max_bytes():  # before reading it: LEAGUE_IMPORT_MAX_BYTES
                raise CommandError(
                    f"{path} is {size:,} bytes long; a league's backup may be at most {max_bytes():,} bytes "
                    "(the setting LEAGUE_IMPORT_MAX_BYTES)."
                )
            data = Path(path).read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc}") from None
        try:
            league = league_import(league_document_read(data))
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        self.stdout.write(f"Imported {league.name} ({league.slug}). Its players must set a password to log in.")
