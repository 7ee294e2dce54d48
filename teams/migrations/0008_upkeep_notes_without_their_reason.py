"""A ronin upkeep row's note named its reason again ("Ronin upkeep: Tengu 5"), which the ledger
shows before it: "Ronin upkeep: Ronin upkeep: Tengu 5" (issue 27, finding 10). The note keeps the
fees alone, as the post-game sequence now writes it."""

from django.db import migrations

PREFIX = "Ronin upkeep: "


def strip_prefix(apps, schema_editor):
    TreasuryEntry = apps.get_model("teams", "TreasuryEntry")
    rows = list(TreasuryEntry.objects.filter(reason="upkeep", note__startswith=PREFIX).only("pk", "note"))
    for row in rows:
        row.note = row.note.removeprefix(PREFIX)
    TreasuryEntry.objects.bulk_update(rows, ["note"], batch_size=500)


def restore_prefix(apps, schema_editor):
    TreasuryEntry = apps.get_model("teams", "TreasuryEntry")
    rows = list(TreasuryEntry.objects.filter(reason="upkeep").exclude(note__startswith=PREFIX).only("pk", "note"))
    for row in rows:
        row.note = PREFIX + row.note
    TreasuryEntry.objects.bulk_update(rows, ["note"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("teams", "0007_team_game_clan_for_all_stars_only")]

    operations = [migrations.RunPython(strip_prefix, restore_prefix)]
