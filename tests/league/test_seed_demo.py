import pytest
from django.core.management import call_command

from league.models import League
from league.selectors import league_table
from matches.models import Match

pytestmark = pytest.mark.usefixtures("catalog")


@pytest.mark.slow(reason="seeds and simulates the three demo leagues")
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


def test_seed_demo_seeds_a_league_of_each_game_with_played_and_simulated_rounds(capsys):
    """Issue 17: `make run` shows a demo league of each new game, with rounds entered at the club
    (submitted by one player, confirmed by another) and rounds simulated by the strength model."""
    from games import registry as games
    from matches.models import MatchTeam

    call_command("seed_demo", "--rounds", "0")
    dojo = League.objects.get(slug="moonlight-dojo")
    assert dojo.game == games.NINJUTSU
    season = dojo.seasons.get()
    assert season.entries.count() == 6 and not season.entries.filter(team__clan__isnull=False).exists()
    played = Match.objects.filter(season=season, status="confirmed")
    assert played.count() == 9  # three rounds of three games
    entered = played.filter(round_number=1)
    assert entered.count() == 3 and not entered.filter(simulated=True).exists()
    assert all(m.submitted_by_id and m.confirmed_by_id and m.submitted_by_id != m.confirmed_by_id for m in entered)
    assert played.filter(round_number__in=[2, 3], simulated=True).count() == 6
    assert sum(r.played for r in league_table(season)) == 18

    kage = League.objects.get(slug="moonlight-kage-table")
    assert kage.game == games.KAGE_MASTERS
    season = kage.seasons.get()
    assert season.format == "tables" and season.entries.count() == 9
    tables = Match.objects.filter(season=season).order_by("round_number", "id")
    assert [(m.round_number, m.sides.count(), m.status) for m in tables] == [
        (1, 5, "confirmed"),
        (1, 4, "confirmed"),
        (2, 5, "confirmed"),
        (2, 4, "confirmed"),
    ]
    assert [m.simulated for m in tables] == [False, False, True, True]
    sides = MatchTeam.objects.filter(match__season=season)
    assert sides.count() == 18 and not sides.filter(league_points__isnull=True).exists()
    assert sum(r.played for r in league_table(season)) == 18

    call_command("seed_demo")  # once only
    out = capsys.readouterr().out
    assert "Ninjutsu demo league is already seeded" in out and "Kage Masters demo league is already seeded" in out
    assert Match.objects.filter(season__league__in=[dojo, kage]).count() == 15 + 4
