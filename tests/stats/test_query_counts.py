"""Every statistics page, and the scroll and table that show the strength ratings, makes as many
queries in a league of 64 teams as in one of 8 (issue 16's acceptance), each league with a
finished season (playoffs included) and a running one, its ratings computed."""

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
        "scroll": reverse("teams:detail", kwargs={"pk": team.pk}),
        "table": reverse("league:season_detail", kwargs={"slug": league.slug, "number": 2}),
    }


def count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        resp = client.get(url)
    assert resp.status_code == 200, url
    assert "No confirmed game yet." not in resp.content.decode(), url
    return len(ctx.captured_queries)


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
