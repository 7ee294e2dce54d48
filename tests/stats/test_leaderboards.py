"""Leaderboards and records (issue 16, part 2), hand-computed on the small league of
tests/stats/helpers.py; query counts equal at 8 and 64 teams."""

from __future__ import annotations

import pytest
from django.urls import reverse

from stats.selectors import leaderboards as lb
from stats.selectors.leaderboards import Scope
from tests.stats.helpers import small_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def small(catalog):
    return small_league()


def ninjas(rows):
    return [(r.rank, r.ninja_id, r.value) for r in rows]


def teams(rows):
    return [(r.rank, r.team_id, r.value) for r in rows]


def test_ninja_boards_all_time(small):
    everything = Scope()
    na, nb = small.na.pk, small.nb.pk
    # XP: na 6 + 4 + 1 (Water) + 2; nb 6 (the voided m6's 5 and -5 count nowhere).
    assert ninjas(lb.most_xp(everything)) == [(1, na, 13), (2, nb, 6)]
    # Injuries: na 2 + 1; nb 3 (not m6's 5): a tie shares first place, listed by name.
    rows = lb.ninja_leaders(everything, "injuries")
    assert sorted(ninjas(rows)) == sorted([(1, na, 3), (1, nb, 3)])
    assert [r.ninja for r in rows] == sorted(r.ninja for r in rows)
    assert ninjas(lb.ninja_leaders(everything, "reveals")) == [(1, na, 3)]
    assert sorted(ninjas(lb.ninja_leaders(everything, "all_star_awards"))) == sorted([(1, na, 1), (1, nb, 1)])


def test_team_boards_all_time(small):
    everything = Scope()
    a, b, c = small.a.pk, small.b.pk, small.c.pk
    # Wins: A m1, m3; B m2, the final; C none (a team without a win is not listed).
    assert sorted(teams(lb.most_wins(everything))) == [(1, a, 2), (1, b, 2)]
    # Koban: A 10 + 10 + 5 + 7 = 32; B 5 + 10 + 10 = 25 (not m6's 9); C 6 + 5 + 7 = 18.
    assert teams(lb.most_koban(everything)) == [(1, a, 32), (2, b, 25), (3, c, 18)]


def test_biggest_win_and_upset(small):
    everything = Scope()
    wins = lb.biggest_wins(everything)
    # m1 3-0 and m3 4-1 (A by 3), then m2 2-1 and the final 2-1 (by 1); m6's 5-0 was voided.
    assert [(r.rank, r.match_id, r.value) for r in wins] == [
        (1, small.m1.pk, 3),
        (1, small.m3.pk, 3),
        (3, small.m2.pk, 1),
        (3, small.final.pk, 1),
    ]
    assert (wins[1].winner_id, wins[1].loser_id, wins[1].winner_points, wins[1].loser_points) == (
        small.a.pk,
        small.c.pk,
        4,
        1,
    )
    # Upsets: A (100) beat B (104) in m1: 4; B (104) beat A (106) in the final: 2.
    upsets = lb.biggest_upsets(everything)
    assert [(r.rank, r.match_id, r.winner_id, r.value) for r in upsets] == [
        (1, small.m1.pk, small.a.pk, 4),
        (2, small.final.pk, small.b.pk, 2),
    ]


def test_longest_unbeaten_runs(small):
    runs = lb.longest_unbeaten_runs(Scope())
    # A: W m1, W m3, L final, D m5 -> 2 (m1-m3), over. B: L m1, W m2, W final -> 2, ongoing.
    # C: L m2, L m3, D m5 -> 1, ongoing.
    got = {r.team_id: (r.rank, r.value, r.first_match_id, r.last_match_id, r.ongoing) for r in runs}
    assert got == {
        small.a.pk: (1, 2, small.m1.pk, small.m3.pk, False),
        small.b.pk: (1, 2, small.m2.pk, small.final.pk, True),
        small.c.pk: (3, 1, small.m5.pk, small.m5.pk, True),
    }


def test_scopes_season_and_league(small):
    season1, season2 = Scope(season=small.season1), Scope(season=small.season2)
    assert sorted(teams(lb.most_wins(season1))) == [(1, small.a.pk, 2), (1, small.b.pk, 2)]
    assert lb.most_wins(season2) == []  # one draw; m6 voided
    assert ninjas(lb.most_xp(season2)) == [(1, small.na.pk, 2)]
    runs = lb.longest_unbeaten_runs(season2)
    assert {(r.team_id, r.value) for r in runs} == {(small.a.pk, 1), (small.c.pk, 1)}
    in_league = Scope(league=small.league)
    assert teams(lb.most_koban(in_league)) == teams(lb.most_koban(Scope()))
    assert lb.biggest_upsets(Scope(league=small.league)) == lb.biggest_upsets(Scope())


def test_page_links_each_row(client, small):
    url = reverse("stats:season_leaderboards", kwargs={"slug": "small", "number": 1})
    html = client.get(url).content.decode()
    assert reverse("stats:ninja_career", args=[small.na.pk]) in html
    assert reverse("matches:detail", args=[small.m1.pk]) in html
    assert reverse("stats:team_history", args=[small.a.pk]) in html


def test_empty_boards_say_so(client, catalog):
    resp = client.get(reverse("stats:leaderboards"))
    assert resp.status_code == 200
    assert resp.content.decode().count("No confirmed game yet.") == len(lb.leaderboards(Scope()))


def test_unknown_season_is_404(client, small):
    assert client.get(reverse("stats:season_leaderboards", kwargs={"slug": "small", "number": 9})).status_code == 404
