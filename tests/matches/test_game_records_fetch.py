"""The scroll's game records fetch only what their lines show (matches.selectors.GAME_RECORD_FIELDS;
issue 29, part 2): every kind of line, on the scroll and in the API's team scroll, is drawn with
no field loaded after the fetch, and reads what it did."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from django.utils.html import escape

from matches.models import Match, MatchNinja, MatchTeam
from rules.models import Challenge
from tests.factories import make_team, recruit
from tests.support import no_deferred_loads

pytestmark = pytest.mark.usefixtures("catalog")


def side(match, team, slot, points, outcome, **kwargs):
    return MatchTeam.objects.create(match=match, team=team, slot=slot, points=points, outcome=outcome, **kwargs)


@pytest.fixture
def games():
    """A team's confirmed games of every kind a line draws: a dated league game with a challenge and
    an All-Star, a simulated round with an opponent renamed since (its name at the match kept), a
    friendly with no date or round, and a three-sided table."""
    team, opponent, third = make_team("tora", name="Herons"), make_team("ika", name="Squids"), make_team("ika")
    recruit(team, "tora-kaiken")
    ninja = team.ninjas.first()
    brawl = Challenge.objects.get(slug="brawl")
    dated = Match.objects.create(challenge=brawl, status=Match.Status.CONFIRMED, date=datetime.date(2026, 3, 1))
    mine = side(dated, team, 1, 3, "win", koban_earned=10)
    side(dated, opponent, 2, 1, "loss")
    MatchNinja.objects.create(side=mine, ninja=ninja, name="Kaiken <1>", all_star_awards=1)
    simulated = Match.objects.create(status=Match.Status.CONFIRMED, round_number=4, simulated=True)
    side(simulated, team, 2, 2, "draw", koban_earned=8)
    side(simulated, opponent, 1, 2, "draw", team_name="Old <Squids>")
    friendly = Match.objects.create(status=Match.Status.CONFIRMED, friendly=True)
    side(friendly, team, 1, 0, "loss", koban_earned=6)
    side(friendly, opponent, 2, 4, "win")
    side(friendly, third, 3, None, "loss")
    return team, {"dated": dated, "simulated": simulated, "friendly": friendly}, third


def test_every_kind_of_game_record_reads_only_what_the_fetch_read(client, games):
    team, matches, third = games
    with no_deferred_loads():
        html = client.get(reverse("teams:detail", args=[team.pk])).content.decode()
    records = html.split('aria-label="Game records"')[1].split("</table>")[0]
    rows = {
        key: records.split(reverse("matches:detail", args=[m.pk]))[1].split("</tr>")[0] for key, m in matches.items()
    }
    assert ">1 Mar 2026</a>" in rows["dated"] and "Brawl" in rows["dated"] and "Won 3–1" in rows["dated"]
    assert escape("Kaiken <1>") in rows["dated"] and "<td>10</td>" in rows["dated"]
    assert ">Round 4</a>" in rows["simulated"] and "simulated</span>" in rows["simulated"]
    assert escape("Old <Squids>") in rows["simulated"] and "Drew 2–2" in rows["simulated"]
    assert f">Match {matches['friendly'].pk}</a>" in rows["friendly"] and "friendly</span>" in rows["friendly"]
    assert f'Squids</a>, <a href="{third.get_absolute_url()}">{escape(third.name)}</a>' in rows["friendly"]
    assert "Lost 0–4–0" in rows["friendly"] and "<td>—</td>" in rows["friendly"]  # no challenge, no All-Star


def test_the_apis_team_scroll_reads_only_what_the_fetch_read(client, games):
    team, matches, _third = games
    with no_deferred_loads():
        body = client.get(f"/api/v1/teams/{team.pk}/").json()
    by_match = {g["match"]: g for g in body["games"]}
    assert by_match[matches["dated"].pk]["challenge"] == "brawl" and by_match[matches["dated"].pk]["score"] == "3–1"
    assert by_match[matches["friendly"].pk]["opponents"] == [
        s.team_id for s in matches["friendly"].sides.exclude(team=team).order_by("slot")
    ]
    assert by_match[matches["simulated"].pk]["outcome"] == "draw" and by_match[matches["simulated"].pk]["date"] is None
