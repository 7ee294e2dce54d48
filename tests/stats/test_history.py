"""History across seasons (issue 16, part 1): the honours page, a team's history, a ninja's career,
a coach's profile. Values computed by hand from the small league of tests/stats/helpers.py."""

from __future__ import annotations

import pytest
from django.urls import reverse

from rules.models import Clan
from stats.selectors import history
from teams.models import Team
from tests.factories import UserFactory
from tests.stats.helpers import small_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def small(catalog):
    return small_league()


def test_honours_list_each_season_with_its_champion_and_playoffs(small):
    seasons = list(history.league_seasons(small.league))
    assert [s.number for s in seasons] == [2, 1]
    running, finished = history.league_honours(seasons)
    assert running.champion is None and running.playoff_rounds == []
    assert finished.champion == {"team_id": small.b.pk, "team": "Bravo", "by": "playoffs"}
    assert finished.final.match_id == small.final.pk
    assert (finished.final.home_id, finished.final.away_id, finished.final.winner_id) == (
        small.a.pk,
        small.b.pk,
        small.b.pk,
    )
    assert finished.runner_up_id == small.a.pk


def test_honours_page_links_the_final_and_the_champion(client, small):
    resp = client.get(reverse("stats:honours", kwargs={"slug": "small"}))
    html = resp.content.decode()
    assert resp.status_code == 200
    assert reverse("matches:detail", kwargs={"pk": small.final.pk}) in html
    assert reverse("stats:team_history", kwargs={"pk": small.b.pk}) in html
    assert "still running" in html


def test_team_history_season_by_season(small):
    seasons = list(history.team_seasons(small.a))
    s2, s1 = history.team_history(small.a, seasons)
    # Season 1: A beat B 3-0 and C 4-1 (regular season), lost the final: first of three.
    assert (s1.position, s1.teams, s1.played, s1.won, s1.drawn, s1.lost, s1.points) == (1, 3, 2, 2, 0, 0, 6)
    # Rating at its first kick-off; at the end, its rating when the season finished: one tora
    # kaiken (10 koban // 10 = 1) and one advancement (+1) = 2.
    assert (s1.rating_start, s1.rating_end) == (100, 2)
    assert s1.trophies == ["Playoff finalist", "Top of the regular season"]
    # Season 2, running: one draw with C.
    assert (s2.played, s2.won, s2.drawn, s2.lost, s2.points, s2.rating_start, s2.rating_end) == (1, 0, 1, 0, 1, 110, 2)
    b1 = history.team_history(small.b, [small.season1])[0]
    assert (b1.position, b1.points, b1.trophies) == (2, 3, ["Champion (playoffs)"])


def test_ninja_career(small):
    career = history.ninja_career(history.ninja_for_career(small.na.pk))
    assert (career.games, career.injuries, career.chunin_stuns, career.reveals) == (3, 3, 1, 3)
    assert (career.all_star_awards, career.healing_house) == (1, 0)
    assert dict(career.xp_by_source) == {
        "Injuries inflicted": 3,
        "Chunin stunned": 1,
        "Reveals": 3,
        "All-Star awards": 3,
        "Challenge awards": 2,
        "Downtime: Water": 1,
    }
    assert sum(xp for _, xp in career.xp_by_source) == small.na.xp == 13
    assert [(r.level.name, r.match_id) for r in career.levels] == [("Experienced", small.m3.pk)]
    assert [a.kind for a in career.advancements] == ["attack"]
    assert career.level.name == "Experienced"
    assert [t.pk for t in career.teams] == [small.a.pk]


def test_a_voided_match_counts_nowhere_in_a_career(small):
    career = history.ninja_career(history.ninja_for_career(small.nb.pk))
    # m6 (voided) had 5 injuries and 5 XP: only the final's 3 injuries and m1's Healing House count.
    assert (career.games, career.injuries, career.all_star_awards, career.healing_house) == (2, 3, 1, 1)
    assert dict(career.xp_by_source)["All-Star awards"] == 3
    assert sum(xp for _, xp in career.xp_by_source) == small.nb.xp == 6


def test_coach_profile(client, small):
    second = Team.objects.create(name="Delta", owner=small.a.owner, clan=small.a.clan)
    record = history.coach_record(small.a.owner)
    assert record == {"played": 4, "won": 2, "drawn": 1, "lost": 1}
    teams = list(history.coach_teams(small.a.owner))
    assert [(t.pk, t.played, t.won, t.drawn, t.lost) for t in teams] == [
        (small.a.pk, 4, 2, 1, 1),
        (second.pk, 0, 0, 0, 0),
    ]
    resp = client.get(reverse("stats:coach", kwargs={"username": small.a.owner.username}))
    assert resp.status_code == 200 and "2 won, 1 drawn, 1 lost" in resp.content.decode()


def test_empty_states(client, catalog):
    user = UserFactory()
    resp = client.get(reverse("stats:coach", kwargs={"username": user.username}))
    assert "has no team yet" in resp.content.decode()
    team = Team.objects.create(name="Lonely", owner=user, clan=Clan.objects.order_by("pk").first())
    assert "has not played a season yet" in client.get(reverse("stats:team_history", args=[team.pk])).content.decode()
    assert client.get(reverse("stats:coach", kwargs={"username": "nobody-here"})).status_code == 404
    assert client.get(reverse("stats:ninja_career", args=[999999])).status_code == 404


def test_pages_are_read_only(client, small):
    url = reverse("stats:honours", kwargs={"slug": "small"})
    assert client.post(url).status_code == 405
