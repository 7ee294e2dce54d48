"""Season charts draw the table's leaders only, so a 64-team newsletter (and its email) stays small."""

from types import SimpleNamespace as NS

from newsletters.content import MAX_CHART_TEAMS, chart_section


def test_charts_draw_only_the_top_teams_of_the_table():
    teams = [NS(pk=i, name=f"Team {i}") for i in range(1, 21)]
    rows = [NS(team=t) for t in teams]  # table order: Team 1 leads
    season = NS(points_win=3, points_draw=1, points_loss=0, league=NS(game_info=NS(entrants="teams")))
    games = {}
    for n, (a, b) in enumerate(zip(teams[0::2], teams[1::2], strict=True)):
        match = NS(round_number=1)
        games[n] = [
            NS(match=match, team_id=a.pk, outcome="win", rating=10),
            NS(match=match, team_id=b.pk, outcome="loss", rating=11),
        ]
    charts = chart_section(games, season, rows)
    assert len(charts) == 2
    for chart in charts:
        names = [s["name"] for s in chart["series"]]
        assert names == [f"Team {i}" for i in range(1, MAX_CHART_TEAMS + 1)]
        assert "top 8 of 20 teams" in chart["title"]
        assert "Team 9" not in chart["svg"]
