"""Names are normalised and unique by a key (issue 11, finding 6; common/text.py).

The key of every existing league is filled before the unique constraint is added; should two
existing leagues share a key, the later one is renamed "Name (2)".
"""

import common.text
from django.conf import settings
from django.db import migrations, models


def fill_keys(model, *, scope: tuple[str, ...], fallback: str, max_length: int, active=None) -> None:
    """Compute every row's name key; rename the later of two rows whose names share a key within
    ``scope`` (" (2)", " (3)"...), and name a row whose name has nothing visible after ``fallback``."""
    from common.text import has_visible_character, name_key, normalize_name

    rows = model.objects.order_by("pk")
    if active is not None:
        rows = rows.filter(**active)
    taken: set[tuple] = set()
    for row in rows:
        name = row.name
        if not has_visible_character(normalize_name(name)):
            name = f"{fallback} {row.pk}"
        base, n = name, 2
        where = tuple(getattr(row, f) for f in scope)
        if None not in where:  # no uniqueness outside a scope (a team in no league)
            while (*where, name_key(name)) in taken:
                name, n = f"{base[: max_length - 3 - len(str(n))]} ({n})", n + 1
            taken.add((*where, name_key(name)))
        model.objects.filter(pk=row.pk).update(name=name, name_key=name_key(name))
    if active is not None:
        for row in model.objects.exclude(**active).filter(name_key=""):
            model.objects.filter(pk=row.pk).update(name_key=name_key(row.name) or f"{fallback.lower()} {row.pk}")


def forwards(apps, schema_editor):
    fill_keys(apps.get_model("league", "League"), scope=(), fallback="League", max_length=100)


class Migration(migrations.Migration):

    dependencies = [
        ('league', '0005_max_bonus_koban_limit'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='league',
            name='name_key',
            field=common.text.NameKeyField(default='', editable=False, help_text='What uniqueness compares (common/text.py: name_key)', max_length=300, source='name'),
        ),
        migrations.AlterField(
            model_name='league',
            name='description',
            field=common.text.MultiLineField(blank=True, max_length=5000),
        ),
        migrations.AlterField(
            model_name='league',
            name='name',
            field=common.text.NameField(max_length=100, unique=True),
        ),
        migrations.AlterField(
            model_name='season',
            name='name',
            field=common.text.NameField(max_length=100),
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='league',
            constraint=models.UniqueConstraint(fields=('name_key',), name='league_name_key_unique', violation_error_message='A league with this name (or one that looks the same) already exists.'),
        ),
        migrations.AddConstraint(
            model_name='league',
            constraint=models.CheckConstraint(condition=models.Q(('name_key', ''), _negated=True), name='league_name_not_blank'),
        ),
    ]
