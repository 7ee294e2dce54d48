"""The season page (the league table with each team's next fixture) fetches rows in proportion to
the teams it shows, never to the season's games, and runs the same queries at 8 and 64 teams.

Each league is mid-season: a round robin with most rounds still to play, results through the
stored standings, and advancements on the rosters. Rows are counted at the database cursor
(common/dbstats.py), for a signed-in member (the page is rendered, never cached).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from common.dbstats import count_rows
from league import selectors
from league.models import ScheduleRun, Season
from rules.engine import standings
from teams.models import AdvancementRoll, Ninja
from teams.services import team_ratings_refresh
from tests.league.helpers import generate, make_season, play_round

pytestmark = pytest.mark.usefixtures("catalog")


def mid_season(n: int, rounds_played: int) -> Season:
    season = make_season(n, format=Season.Format.ROUND_ROBIN, with_ninja=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    # Scores from each team's place in the season (not its database id, which differs between
    # databases and test orders), so both leagues have the same shape of results on every database.
    place = {pk: i + 1 for i, pk in enumerate(sorted(season.entries.values_list("team_id", flat=True)))}

    def score(home: int, away: int) -> tuple[int, int]:
        h, a = place[home], place[away]
        return (1, 1) if (h + a) % 3 == 0 else (h % 5, a % 4)

    for r in range(1, rounds_played + 1):
        play_round(season, r, score=score)
    ninjas = list(Ninja.objects.filter(team__season_entries__season=season))
    AdvancementRoll.objects.bulk_create(AdvancementRoll(ninja=n, level=1, faces=["Fire", "Air"]) for n in ninjas[::2])
    team_ratings_refresh(team_ids={n.team_id for n in ninjas})  # rolls written around the services
    season = Season.objects.select_related("league").get(pk=season.pk)
    # Some teams level up to the head-to-head tie-breaker in both leagues, so both pages run the
    # head-to-head query (it runs only for tied groups) and the query counts compare like for like.
    table = selectors.league_table(season)
    assert standings.head_to_head_groups([r.standing() for r in table], season.tie_breaker_list)
    return season


def season_page(client, season: Season) -> tuple[int, int, bytes]:
    url = reverse("league:season_detail", kwargs={"slug": season.league.slug, "number": season.number})
    client.force_login(season.entries.first().team.owner)
    client.get(url)  # warm (session, caches)
    with CaptureQueriesContext(connection) as queries, count_rows() as counted:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries.captured_queries), counted.rows, response.content


@pytest.mark.slow(reason="builds two seasons mid-way, of 8 and of 64 teams (2,016 fixtures)")
def test_season_page_rows_follow_the_teams_shown_and_queries_stay_the_same(client):
    small = mid_season(8, rounds_played=4)  # 16 of 28 games played, 12 to play
    large = mid_season(64, rounds_played=6)  # 192 of 2,016 played, 1,824 to play
    small_queries, small_rows, small_body = season_page(client, small)
    large_queries, large_rows, large_body = season_page(client, large)
    assert small_queries == large_queries
    # What the page shows: a table row and a next fixture (one match, its two sides) per team,
    # plus a fixed overhead (the user, the session, the season, its runs...). Fetching the
    # rosters (1-2 models per team here) or the season's unplayed fixtures would break the bound.
    per_team = (large_rows - small_rows) / (64 - 8)
    assert per_team <= 3.5, (small_rows, large_rows)
    assert small_rows - 8 * per_team <= 40, (small_rows, large_rows)
    assert large_body.count(b"pre-match sheet") == 64 and small_body.count(b"pre-match sheet") == 8


def member_page(client, user, url: str) -> tuple[int, int]:
    client.force_login(user)
    client.get(url)  # warm (session, caches)
    with CaptureQueriesContext(connection) as queries, count_rows() as counted:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries.captured_queries), counted.rows


def other_member_pages(season: Season) -> dict[str, tuple]:
    """The scroll of the team with most games, the latest played match, the round's newsletter."""
    from django.db.models import Count

    from matches.models import Match
    from newsletters import services as news_services
    from newsletters.periods import Period
    from newsletters.selectors import latest_completed_round
    from teams.models import Team

    team = Team.objects.filter(league=season.league).annotate(n=Count("match_sides")).order_by("-n", "pk").first()
    match = Match.objects.filter(season=season, status=Match.Status.CONFIRMED).order_by("-round_number", "-pk").first()
    newsletter = news_services.newsletter_request(
        league=season.league, period=Period.round(season.number, latest_completed_round(season))
    )
    newsletter.refresh_from_db()
    if not newsletter.is_built:
        news_services.newsletter_build(newsletter_id=newsletter.pk)
    newsletter = news_services.newsletter_publish(
        newsletter=type(newsletter).objects.get(pk=newsletter.pk), actor=season.league.master, send_email=False
    )
    return {
        "team scroll": (team.owner, reverse("teams:detail", args=[team.pk])),
        "match page": (team.owner, reverse("matches:detail", args=[match.pk])),
        "newsletter": (team.owner, newsletter.get_absolute_url()),
    }


@pytest.mark.slow(reason="builds two seasons mid-way, of 8 and of 64 teams (2,016 fixtures)")
def test_the_scroll_match_page_and_newsletter_fetch_what_they_show_at_8_and_64_teams(client):
    """Issue 29: the other member pages run the same queries in a league of 8 and of 64 teams,
    and fetch rows for what they show (a team's roster and games, a match's sides, a stored
    newsletter), never in proportion to the league."""
    small, large = mid_season(8, rounds_played=4), mid_season(64, rounds_played=4)
    pages_small, pages_large = other_member_pages(small), other_member_pages(large)
    for name in pages_small:
        small_queries, small_rows = member_page(client, *pages_small[name])
        large_queries, large_rows = member_page(client, *pages_large[name])
        assert small_queries == large_queries, name
        # the same rounds played: the same games a team, the same sides a match; what differs
        # (a roster's advancement rolls, a name's length) is a few rows, not 56 more teams' worth
        assert abs(large_rows - small_rows) <= 12, (name, small_rows, large_rows)
