"""Every statistics page, the scroll and table that show the strength ratings, and the leaderboards
and ratings of the API and the CSV downloads make as many queries in a league of 64 teams as in one
of 8 (issue 16's acceptance), each league with a finished season (playoffs included) and a running
one, its ratings computed."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from stats import ratings
from tests.stats.helpers import league_of

pytestmark = pytest.mark.django_db

#: Most queries any statistics page may make (session and user lookups included when logged in).
MAX_QUERIES = 20


def pages(league, team) -> dict[str, str]:
    ninja = team.ninjas.get()
    season = league.seasons.get(number=2)
    return {
        "honours": reverse("stats:honours", kwargs={"slug": league.slug}),
        "team_history": reverse("stats:team_history", kwargs={"pk": team.pk}),
        "ninja_career": reverse("stats:ninja_career", kwargs={"pk": ninja.pk}),
        "coach": reverse("stats:coach", kwargs={"username": team.owner.username}),
        "leaderboards": reverse("stats:leaderboards"),
        "league_leaderboards": reverse("stats:league_leaderboards", kwargs={"slug": league.slug}),
        "season_leaderboards": reverse("stats:season_leaderboards", kwargs={"slug": league.slug, "number": 2}),
        "season_1_leaderboards": reverse("stats:season_leaderboards", kwargs={"slug": league.slug, "number": 1}),
        "balance": reverse("stats:balance"),
        "balance_filtered": reverse("stats:balance") + f"?league={league.slug}&season=1&kind=simulated",
        "ratings": reverse("stats:ratings"),
        "coach_ratings": reverse("stats:coach_ratings") + "?system=glicko2",
        "league_ratings": reverse("stats:ratings") + f"?league={league.slug}",
        "league_coach_ratings": reverse("stats:coach_ratings") + f"?game=allstars&league={league.slug}",
        "club_ratings": reverse("stats:club_ratings"),
        "club_ratings_by_game": reverse("stats:club_ratings") + f"?order=allstars&league={league.slug}",
        "scroll": reverse("teams:detail", kwargs={"pk": team.pk}),
        "table": reverse("league:season_detail", kwargs={"slug": league.slug, "number": 2}),
        # the same boards and ratings in the API and the CSV downloads (api/, named by string)
        "api_leaderboards": reverse("api:leaderboards"),
        "api_league_leaderboards": reverse("api:leaderboards") + f"?league={league.slug}&limit=100",
        "api_season_board": reverse("api:leaderboards") + f"?league={league.slug}&season={season.pk}&board=unbeaten",
        "api_ratings": reverse("api:ratings") + f"?league={league.slug}",
        "api_coach_ratings": reverse("api:ratings") + "?kind=coach&page_size=200",
        "api_club_ratings": reverse("api:club_ratings") + "?order=allstars&page_size=200",
        "leaderboards_csv": reverse("exports:leaderboards_csv"),
        "league_leaderboards_csv": reverse("exports:league_leaderboards_csv", kwargs={"slug": league.slug}),
        "season_board_csv": reverse("exports:season_leaderboards_csv", kwargs={"slug": league.slug, "number": 2})
        + "?board=xp",
    }


def count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        resp = client.get(url)
    assert resp.status_code == 200, url
    assert "No confirmed game yet." not in resp.content.decode(), url
    if resp["Content-Type"].startswith("application/json"):  # the API: something to list, every board full
        results = resp.json()["results"]
        assert results and all(item.get("rows", True) for item in results), url
    elif resp["Content-Type"].startswith("text/csv"):
        assert resp.content.count(b"\r\n") > 2, url
    return len(ctx.captured_queries)


@pytest.mark.slow(reason="plays leagues of 8 and 64 teams and recomputes their ratings")
def test_every_statistics_page_makes_as_many_queries_at_8_and_64_teams(client, catalog):
    counts: dict[str, list[int]] = {}
    for n in (8, 64):
        league, teams = league_of(n)
        ratings.ratings_recompute()
        for name, url in pages(league, teams[0]).items():
            counts.setdefault(name, []).append(count(client, url))
    unequal = {name: c for name, c in counts.items() if c[0] != c[1]}
    assert not unequal, unequal
    assert max(c[0] for c in counts.values()) <= MAX_QUERIES, counts
