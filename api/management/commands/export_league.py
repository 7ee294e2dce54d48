from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from api.backup import league_export_json
from league.models import League


class Command(BaseCommand):
    help = "Write a whole league (seasons, teams, matches, ledgers, newsletters) as one JSON document."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="The league's slug")
        parser.add_argument("-o", "--output", help="A file to write (default: standard output)")

    def handle(self, *args, slug, output=None, **options):
        league = League.objects.filter(slug=slug).first()
        if league is None:
            raise CommandError(f"No league {slug!r}.")
        data = league_export_json(league)
        if output:
            Path(output).write_bytes(data)
            self.stdout.write(f"{league.name}: {len(data):,} bytes written to {output}")
        else:
            self.stdout.write(data.decode(), ending="")
