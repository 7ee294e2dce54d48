from django.db import migrations


def load(apps, schema_editor):
    from rules.catalog import load_catalog

    load_catalog(apps)


class Migration(migrations.Migration):
    dependencies = [("rules", "0001_initial")]

    operations = [migrations.RunPython(load, migrations.RunPython.noop)]
