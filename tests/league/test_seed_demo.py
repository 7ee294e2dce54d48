import pytest
from django.core.management import call_command

from league.models import League
from league.selectors import league_table
from matches.models import Match

pytestmark = pytest.mark.usefixtures("catalog")


def test_seed_demo_once(capsys):
    call_command("seed_demo")
    league = League.objects.get(slug="moonlight-demo")
    season = league.seasons.get()
    assert season.entries.count() == 6
    assert len({e.team.clan_id for e in season.entries.select_related("team")}) == 6
    assert Match.objects.filter(season=season).count() == 15
    assert Match.objects.filter(season=season, status="confirmed").count() == 9
    table = league_table(season)
    assert sum(r.played for r in table) == 18
    call_command("seed_demo")
    assert League.objects.filter(slug="moonlight-demo").count() == 1
    assert Match.objects.filter(season=season).count() == 15
    assert "already seeded" in capsys.readouterr().out
