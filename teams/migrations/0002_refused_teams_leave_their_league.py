"""A refused application leaves no trace: refused teams are taken out of the league they asked
to join (issue 11, finding 1). Their entry_status stays "refused"."""

from django.db import migrations


def forwards(apps, schema_editor):
    Team = apps.get_model("teams", "Team")
    Team.objects.filter(entry_status="refused", league__isnull=False).update(league=None)


class Migration(migrations.Migration):
    dependencies = [("teams", "0001_initial")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
