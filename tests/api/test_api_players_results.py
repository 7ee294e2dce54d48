"""The API takes the results of the players' games (issue 17, part 3) in the records the site's
forms give, checked by the same rules, with the same rights and flow: a Kage Masters table (submit,
confirm by another player, dispute, settle by the master) and a Ninjutsu game (a time limit from the
season's house rules). Every answer is checked against the API's schema; the league and the season
list only their game's house rules."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from games import registry as games
from league.models import HouseRules
from matches.models import Match
from tests.api.schema import check_response
from tests.factories import LeagueFactory, UserFactory
from tests.matches.test_kage_result_entry import FOUR, kage_season, ninjutsu_match, record, table

pytestmark = pytest.mark.usefixtures("catalog")


class As:
    """The API as one user (his token), every answer checked against the schema."""

    def __init__(self, user=None):
        headers = {"Authorization": f"Token {Token.objects.create(user=user).key}"} if user is not None else {}
        self.client = Client(headers=headers)

    def get(self, url: str):
        resp = self.client.get(url, HTTP_ACCEPT="application/json")
        check_response(resp, "GET")
        return resp

    def post(self, url: str, data=None):
        resp = self.client.post(
            url, json.dumps(data or {}), content_type="application/json", HTTP_ACCEPT="application/json"
        )
        check_response(resp, "POST")
        return resp


def url(name: str, match: Match) -> str:
    return reverse(f"api:match-{name}", kwargs={"pk": match.pk})


def test_a_kage_table_submitted_confirmed_and_shown(django_assert_max_num_queries):
    season, players = kage_season(4)
    match = table(season, players)
    first, third = As(players[0].owner), As(players[2].owner)
    with django_assert_max_num_queries(30):
        resp = first.post(url("result", match), record(FOUR))
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["status"] == "submitted" and body["game_record"] == record(FOUR) and len(body["sides"]) == 4
    assert first.post(url("confirm", match)).status_code == 403  # not his own
    assert As(UserFactory()).post(url("confirm", match)).status_code == 403
    with django_assert_max_num_queries(40):
        resp = third.post(url("confirm", match))
    assert resp.status_code == 200
    sides = {side["slot"]: (side["outcome"], side["points"], side["league_points"]) for side in resp.json()["sides"]}
    assert sides == {1: ("loss", 10, 1), 2: ("loss", 4, 0), 3: ("win", 14, 3), 4: ("loss", 10, 1)}
    listed = As().get(reverse("api:match-list") + f"?season={season.pk}").json()["results"]
    assert [len(m["sides"]) for m in listed] == [4]
    standings = As().get(reverse("api:season-table", kwargs={"pk": season.pk})).json()
    assert standings["tie_breakers"][0] == "points_for" and standings["rows"][0]["team"] == "K3"


def test_a_kage_table_disputed_through_the_api_and_settled_by_the_master():
    season, players = kage_season(3)
    match = table(season, players)
    three = [(*row[:3], None) for row in FOUR[:3]]
    # an API client may leave out the optional rewards and seat: the record is stored in full
    short = {
        "game": "kage_masters",
        "seats": [{k: v for k, v in s.items() if k != "seat"} for s in record(three)["seats"]],
    }
    assert As(players[0].owner).post(url("result", match), short).status_code == 200
    other = [*three[:2], ("Firebrand", 30, 0, None)]
    resp = As(players[1].owner).post(url("result", match), record(other))
    assert resp.status_code == 200 and resp.json()["status"] == "disputed"
    assert resp.json()["counter_record"] == record(other)
    assert As(players[2].owner).post(url("settle", match), {"pick": "second"}).status_code == 403
    resp = As(season.league.master).post(url("settle", match), {"pick": "second"})
    assert resp.status_code == 200 and resp.json()["status"] == "confirmed" and resp.json()["settlement"] == "second"
    match.refresh_from_db()
    assert {s.slot: s.points for s in match.sides.all()} == {1: 10, 2: 4, 3: 30}


def test_the_same_record_from_another_player_confirms_through_the_api():
    season, players = kage_season(3)
    match = table(season, players)
    three = record([(*row[:3], None) for row in FOUR[:3]])
    As(players[0].owner).post(url("result", match), three)
    resp = As(players[2].owner).post(url("result", match), three)
    assert resp.status_code == 200 and resp.json()["status"] == "confirmed"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            {"game": "kage_masters", "seats": [{"slot": 1, "kage_master": "Spy", "coins": 3}]},
            "one line for each player",
        ),
        (
            {
                "game": "kage_masters",
                "seats": [{"slot": i, "kage_master": "Spy", "coins": 3} for i in (1, 2, 3)],
            },
            "different Kage Master",
        ),
        ({"game": "kage_masters", "seats": [{"slot": 1, "kage_master": "Spy", "coins": 999}]}, "less than or equal"),
        ({"game": "kage_masters", "seats": [], "extra": 1}, "Not a field of this record"),
        ({"game": "ninjutsu"}, "This match is of Ninja Dice: Kage Masters"),
    ],
)
def test_bad_kage_documents_are_400_and_write_nothing(document, message):
    season, players = kage_season(3)
    match = table(season, players)
    resp = As(players[0].owner).post(url("result", match), document)
    assert resp.status_code == 400 and message in resp.content.decode()
    assert Match.objects.get(pk=match.pk).status == Match.Status.SCHEDULED


def test_a_player_of_another_table_cannot_submit():
    season, players = kage_season(5)
    match = table(season, players[:3])
    resp = As(players[4].owner).post(url("result", match), record([(*row[:3], None) for row in FOUR[:3]]))
    assert resp.status_code == 403


ON_TIME = {
    "game": "ninjutsu",
    "winner": 1,
    "starter": 2,
    "colours": ["Red", "Black"],
    "ending": "time_limit",
    "ninjas_left": [4, 2],
}


def test_a_ninjutsu_game_on_time_through_the_api():
    season, (home, away), match = ninjutsu_match(time_limit_minutes=45, points_time_win=2, points_time_loss=1)
    resp = As(home.owner).post(url("result", match), ON_TIME)
    assert resp.status_code == 200, resp.content
    assert resp.json()["game_record"]["card"] == "none" and resp.json()["game_record"]["shuriken"] is None
    resp = As(away.owner).post(url("confirm", match))
    sides = {side["slot"]: (side["outcome"], side["league_points"]) for side in resp.json()["sides"]}
    assert sides == {1: ("win", 2), 2: ("loss", 1)}
    rules = As().get(reverse("api:season-detail", kwargs={"pk": season.pk})).json()["house_rules"]
    assert rules["game_rules"] == {"time_limit_minutes": 45, "points_time_win": 2, "points_time_loss": 1}
    assert "kage_points" not in rules and "starting_koban" not in rules


def test_a_ninjutsu_league_without_a_time_limit_refuses_a_game_on_time_and_has_no_draft():
    _season, (home, _away), match = ninjutsu_match()
    owner = As(home.owner)
    resp = owner.post(url("result", match), ON_TIME)
    assert resp.status_code == 400 and "This league has no time limit" in resp.content.decode()
    resp = owner.post(url("draft", match), {})
    assert resp.status_code == 400 and "has no draft" in resp.content.decode()
    won = {**ON_TIME, "ending": "soke_attacked", "card": "jump"}
    assert owner.post(url("result", match), won).json()["status"] == "submitted"


def test_a_league_lists_only_its_games_house_rules():
    allstars = LeagueFactory()
    kage = LeagueFactory(game=games.KAGE_MASTERS)
    shown = As().get(reverse("api:league-detail", kwargs={"slug": allstars.slug})).json()["house_rules"]
    assert set(shown) == set(HouseRules.HOUSE_RULE_FIELDS) - set(HouseRules.fields_not_for(games.ALLSTARS))
    assert "starting_koban" in shown and "game_rules" not in shown  # All-Stars has none of its own
    shown = As().get(reverse("api:league-detail", kwargs={"slug": kage.slug})).json()["house_rules"]
    assert shown["game_rules"]["kage_points"] == "opponents_beaten" and "starting_koban" not in shown
    assert "time_limit_minutes" not in shown["game_rules"]
