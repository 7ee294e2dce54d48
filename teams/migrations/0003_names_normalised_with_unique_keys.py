"""Names are normalised and unique by a key (issue 11, finding 6; common/text.py).

The keys of every existing team and ninja are filled before the unique constraints are added;
should two teams of a league (or two active ninja of a team) share a key, the later one is
renamed "Name (2)".
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
    fill_keys(apps.get_model("teams", "Team"), scope=("league_id",), fallback="Team", max_length=80)
    fill_keys(apps.get_model("teams", "Ninja"), scope=("team_id",), fallback="Ninja", max_length=60, active={"status": "active"})


class Migration(migrations.Migration):

    dependencies = [
        ('league', '0006_names_normalised_with_unique_keys'),
        ('rules', '0002_load_catalog'),
        ('teams', '0002_refused_teams_leave_their_league'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='ninja',
            name='ninja_name_unique_active',
        ),
        migrations.RemoveConstraint(
            model_name='team',
            name='team_name_unique_in_league',
        ),
        migrations.AddField(
            model_name='ninja',
            name='name_key',
            field=common.text.NameKeyField(default='', editable=False, help_text='What uniqueness on the roster compares (common/text.py)', max_length=300, source='name'),
        ),
        migrations.AddField(
            model_name='team',
            name='name_key',
            field=common.text.NameKeyField(default='', editable=False, help_text='What uniqueness in a league compares (common/text.py)', max_length=300, source='name'),
        ),
        migrations.AlterField(
            model_name='ninja',
            name='name',
            field=common.text.NameField(max_length=60),
        ),
        migrations.AlterField(
            model_name='ninja',
            name='release_reason',
            field=common.text.SingleLineField(blank=True, max_length=200),
        ),
        migrations.AlterField(
            model_name='team',
            name='name',
            field=common.text.NameField(max_length=80),
        ),
        migrations.AlterField(
            model_name='treasuryentry',
            name='note',
            field=common.text.SingleLineField(blank=True, max_length=200),
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='ninja',
            constraint=models.UniqueConstraint(condition=models.Q(('status', 'active')), fields=('team', 'name_key'), name='ninja_name_key_unique_active', violation_error_message='A ninja with this name (or one that looks the same) is already on the team.'),
        ),
        migrations.AddConstraint(
            model_name='ninja',
            constraint=models.CheckConstraint(condition=models.Q(('name_key', ''), _negated=True), name='ninja_name_not_blank'),
        ),
        migrations.AddConstraint(
            model_name='team',
            constraint=models.UniqueConstraint(fields=('league', 'name_key'), name='team_name_key_unique_in_league', violation_error_message='A team with this name (or one that looks the same) is already in this league.'),
        ),
        migrations.AddConstraint(
            model_name='team',
            constraint=models.CheckConstraint(condition=models.Q(('name_key', ''), _negated=True), name='team_name_not_blank'),
        ),
    ]
