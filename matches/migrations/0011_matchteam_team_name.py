from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def fill_names(apps, schema_editor):
    """Matches already kicked off take their team's current name: the name they had is not known."""
    MatchTeam = apps.get_model("matches", "MatchTeam")
    Team = apps.get_model("teams", "Team")
    MatchTeam.objects.filter(match__kicked_off_at__isnull=False, team_name="").update(
        team_name=Subquery(Team.objects.filter(pk=OuterRef("team_id")).values("name")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0010_status_disputed_and_forfeited"),
        ("teams", "0006_team_life_colours_motto_retirement"),
    ]

    operations = [
        migrations.AddField(
            model_name="matchteam",
            name="team_name",
            field=models.CharField(blank=True, max_length=80),
        ),
        migrations.RunPython(fill_names, migrations.RunPython.noop),
    ]
