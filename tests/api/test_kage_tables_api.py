"""Kage tables as a club runs them, over the API (issue 28, part 4 follow-up): the master records a
player's drop-out (``matches/{id}/dropout/``) and moves players between a round's tables before it
starts (``seasons/{id}/seating/``), thin over the services the site's pages call
(league.services.tables), with the site's rights (the league's master only) and the API's errors.
Every answer is checked against the API's schema."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from games.players import simulation as game_simulation
from league import services
from league.models import ScheduleRun, Season
from matches.models import Match, MatchTeam
from tests.api.schema import check_response
from tests.factories import LeagueFactory, UserFactory
from tests.league.helpers import generate
from tests.league.test_kage_tables_schedule import kage_season
from tests.trust.world import watch_writes

pytestmark = pytest.mark.usefixtures("catalog")


class As:
    """The API as one user (his token; nobody's: a visitor), every answer checked against the schema."""

    def __init__(self, user=None):
        headers = {"Authorization": f"Token {Token.objects.get_or_create(user=user)[0].key}"} if user else {}
        self.client = Client(headers=headers)

    def get(self, url: str, **params):
        resp = self.client.get(url, params, HTTP_ACCEPT="application/json")
        check_response(resp, "GET")
        return resp

    def post(self, url: str, data=None):
        resp = self.client.post(
            url,
            json.dumps(data if data is not None else {}),
            content_type="application/json",
            HTTP_ACCEPT="application/json",
        )
        check_response(resp, "POST")
        return resp


def dropout_url(match: Match) -> str:
    return reverse("api:match-dropout", kwargs={"pk": match.pk})


def seating_url(season: Season) -> str:
    return reverse("api:season-seating", kwargs={"pk": season.pk})


def table_of(season: Season, round_number: int = 1) -> Match:
    return Match.objects.filter(season=season, round_number=round_number).exclude(status="voided").first()


def sides(match: Match) -> list[MatchTeam]:
    return list(MatchTeam.objects.filter(match=match).select_related("team", "team__owner").order_by("slot"))


def state(season: Season) -> list[tuple]:
    """The season's tables as the services leave them, by the players' names (comparable across
    two seasons built alike): status, void reason, replay, each side and whether it dropped out."""
    rows = []
    for m in Match.objects.filter(season=season).order_by("pk"):
        rows.append(
            (
                m.round_number,
                m.status,
                m.void_reason,
                m.replay_of_id is not None,
                m.pairing_reason.replace(f"#{m.replay_of_id}", "#"),
                [(s.slot, s.team.name, s.dropped_out) for s in sides(m)],
            )
        )
    return rows


@pytest.fixture
def four():
    """A season of 4 players: round 1 is one table of 4."""
    season = kage_season(4, rounds=3)
    generate(season, ScheduleRun.Kind.TABLES)
    return season


@pytest.fixture
def seven():
    """7 players: round 1 (a table of 4 and one of 3) played, round 2 drawn."""
    season = kage_season(7, rounds=3)
    generate(season, ScheduleRun.Kind.TABLES)
    for seed, m in enumerate(Match.objects.filter(season=season, round_number=1)):
        game_simulation.simulate_match(match=m, seed=seed, actor=season.league.master)
    generate(season, ScheduleRun.Kind.TABLES, seed=3)
    return season


def seating_now(season: Season, round_number: int) -> dict[int, int]:
    return {s.team_id: m.pk for m in services.round_tables(season, round_number) for s in m.sides.all()}


# --- a drop-out ----------------------------------------------------------------------------------------


def test_the_master_previews_a_drop_out_and_then_records_it(four, django_assert_max_num_queries):
    match = table_of(four)
    a, b, c, d = sides(match)
    master = As(four.league.master)
    body = {"player": b.team_id, "when": "during", "dry_run": True}
    with watch_writes() as written, django_assert_max_num_queries(8):
        preview = master.post(dropout_url(match), body)
    assert preview.status_code == 200, preview.content
    plan = preview.json()
    assert plan["dry_run"] is True and plan["player"] == b.team_id and plan["below_minimum"] is False
    assert [p["team"] for p in plan["present"]] == [a.team_id, c.team_id, d.team_id]
    assert plan["facts"][0] == (
        f"{b.team.name} drops out during the game; the table plays on with {a.team.name}, {c.team.name} and {d.team.name}."
    )
    assert f"{b.team.name} takes the last place at the table (4th)" in plan["facts"][1]
    assert not written.changed  # a dry run writes nothing
    assert all(s.dropped_out == "" for s in sides(match))

    done = master.post(dropout_url(match), {**body, "dry_run": False})
    assert done.status_code == 200, done.content
    answer = done.json()
    assert answer["id"] == match.pk and answer["status"] == "scheduled"
    assert {s["team"]: s["dropped_out"] for s in answer["sides"]} == {
        a.team_id: "",
        b.team_id: "during",
        c.team_id: "",
        d.team_id: "",
    }
    assert [s.dropped_out for s in sides(match)] == ["", "during", "", ""]
    again = master.post(dropout_url(match), {**body, "dry_run": False})
    assert again.status_code == 400 and again.json() == {"player": [f"{b.team.name} has dropped out already."]}


@pytest.mark.parametrize("choice", ["replay", "dissolve"])
def test_a_drop_out_over_the_api_leaves_the_state_the_service_leaves(choice):
    """Two seasons built alike: one table's drop-out recorded over the API, the other's by the
    service the site's page calls. The same tables, voided or replayed, the same sides."""
    by_api, by_service = kage_season(3, rounds=2), kage_season(3, rounds=2)
    for season in (by_api, by_service):
        generate(season, ScheduleRun.Kind.TABLES)
    match = table_of(by_api)
    leaver = sides(match)[1]
    resp = As(by_api.league.master).post(
        dropout_url(match), {"player": leaver.team_id, "when": "before", "below_minimum": choice}
    )
    assert resp.status_code == 200, resp.content
    assert resp.json()["status"] == "voided"
    other = Match.objects.select_related("league", "season", "season__league").get(pk=table_of(by_service).pk)
    services.table_dropout(
        match=other,
        team=sides(other)[1].team,
        when="before",
        below_minimum=choice,
        actor=by_service.league.master,
    )
    assert state(by_api) == state(by_service)
    assert len(state(by_api)) == (2 if choice == "replay" else 1)


def test_a_table_left_too_small_needs_the_masters_choice_named_as_its_field():
    season = kage_season(3, rounds=2)
    generate(season, ScheduleRun.Kind.TABLES)
    match = table_of(season)
    leaver = sides(match)[0]
    master = As(season.league.master)
    for dry_run in (True, False):
        with watch_writes() as written:
            resp = master.post(dropout_url(match), {"player": leaver.team_id, "when": "before", "dry_run": dry_run})
        assert resp.status_code == 400
        assert list(resp.json()) == ["below_minimum"]
        assert "choose to replay the table or to dissolve it" in resp.json()["below_minimum"][0]
        assert not written.changed
    preview = master.post(
        dropout_url(match), {"player": leaver.team_id, "when": "before", "below_minimum": "dissolve", "dry_run": True}
    ).json()
    assert preview["below_minimum"] is True and preview["choice"] == "dissolve"
    assert "The table is dissolved" in preview["facts"][1]
    assert Match.objects.get(pk=match.pk).status == "scheduled"


@pytest.mark.parametrize("game", ["allstars", "ninjutsu"])
def test_a_game_not_played_at_tables_takes_no_drop_out(game):
    league = LeagueFactory(game=game)
    season = services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    match = Match.objects.create(league=league, season=season)
    resp = As(league.master).post(dropout_url(match), {"player": 1, "when": "before"})
    assert resp.status_code == 400
    (message,) = resp.json()["detail"]
    assert "is not played at tables" in message and league.game_info.name in message


def test_a_drop_out_is_refused_for_an_entry_not_at_the_table_a_result_entered_and_a_bad_body(four):
    match = table_of(four)
    master = As(four.league.master)
    resp = master.post(dropout_url(match), {"player": 10**9, "when": "before"})
    assert resp.status_code == 400 and list(resp.json()) == ["player"]
    for body, field in (
        ({"player": sides(match)[0].team_id, "when": "after"}, "when"),
        ({"player": sides(match)[0].team_id}, "when"),
        ({"player": 0, "when": "before"}, "player"),
        ({"player": 2**70, "when": "before"}, "player"),
        ({"player": sides(match)[0].team_id, "when": "before", "below_minimum": "both"}, "below_minimum"),
        ({"player": sides(match)[0].team_id, "when": "before", "confirm": True}, "confirm"),
    ):
        resp = master.post(dropout_url(match), body)
        assert resp.status_code == 400 and field in resp.json(), (body, resp.json())
    assert master.post(reverse("api:match-dropout", kwargs={"pk": 10**9}), {}).status_code == 404
    not_a_read = master.client.get(dropout_url(match), HTTP_ACCEPT="application/json")
    check_response(not_a_read, "GET", documented_as="POST")
    assert not_a_read.status_code == 405
    # once a result is entered, the table's drop-outs are final
    Match.objects.filter(pk=match.pk).update(status=Match.Status.SUBMITTED)
    resp = master.post(dropout_url(match), {"player": sides(match)[0].team_id, "when": "before"})
    assert resp.status_code == 400 and "submitted" in resp.json()["detail"][0]


def test_only_the_master_records_a_drop_out(four):
    """A player of the table (the one who would drop out, or another), a member, another league's
    master: 403 and nothing written; a visitor: 401."""
    match = table_of(four)
    at_table = sides(match)
    body = {"player": at_table[1].team_id, "when": "during"}
    for user in (at_table[1].team.owner, at_table[0].team.owner, UserFactory(), LeagueFactory().master):
        caller = As(user)
        with watch_writes() as written:
            resp = caller.post(dropout_url(match), body)
        assert resp.status_code == 403 and not written.changed, (user, resp.content)
    assert As().post(dropout_url(match), body).status_code == 401
    assert all(s.dropped_out == "" for s in sides(match))


# --- a seating move ------------------------------------------------------------------------------------


def test_the_round_as_seated_is_public_and_builds_the_body(seven, django_assert_max_num_queries):
    with django_assert_max_num_queries(8):
        resp = As().get(seating_url(seven))
    assert resp.status_code == 200
    body = resp.json()
    tables = services.round_tables(seven, 2)
    assert body["round_number"] == 2 and body["refusal"] is None  # the latest round drawn
    assert [(t["match"], t["table"]) for t in body["tables"]] == [(m.pk, i) for i, m in enumerate(tables, start=1)]
    assert {p["team"]: t["match"] for t in body["tables"] for p in t["players"]} == seating_now(seven, 2)
    played = As().get(seating_url(seven), round=1).json()
    assert played["round_number"] == 1 and "its seating is final" in played["refusal"]
    assert As().get(seating_url(seven), round=0).status_code == 400
    assert As().get(seating_url(seven), round=3).json()["refusal"] == "Round 3 has no tables."


def test_the_master_previews_a_seating_move_and_then_applies_it(seven, django_assert_max_num_queries):
    tables = services.round_tables(seven, 2)
    big, small = sorted(tables, key=lambda m: -m.sides.count())
    mover = big.sides.all()[0].team
    master = As(seven.league.master)
    current = master.get(seating_url(seven)).json()
    seating = {str(p["team"]): t["match"] for t in current["tables"] for p in t["players"]}
    seating[str(mover.pk)] = small.pk
    body = {"round_number": 2, "seating": seating, "dry_run": True}
    plan = services.seating_plan(season=seven, round_number=2, seating={int(k): v for k, v in seating.items()})
    with watch_writes() as written, django_assert_max_num_queries(12):
        preview = master.post(seating_url(seven), body)
    assert preview.status_code == 200, preview.content
    answer = preview.json()
    assert answer["dry_run"] is True and answer["round_number"] == 2
    assert (
        answer["changes"]
        == plan.changes
        == [f"{mover.name} moves from table {tables.index(big) + 1} to table {tables.index(small) + 1}."]
    )
    assert answer["added_repeats"] == plan.added_repeats
    assert (answer["repeats_before"], answer["repeats_after"]) == (plan.repeats_before, plan.repeats_after)
    moved = next(t for t in answer["tables"] if t["match"] == small.pk)
    assert moved["players"][-1]["team"] == mover.pk  # those who come sit after those who stay
    assert not written.changed and seating_now(seven, 2)[mover.pk] == big.pk

    done = master.post(seating_url(seven), {**body, "dry_run": False})
    assert done.status_code == 200, done.content
    assert done.json()["dry_run"] is False and done.json()["changes"] == plan.changes
    assert seating_now(seven, 2) == {int(k): v for k, v in seating.items()}
    assert Match.objects.get(pk=small.pk).pairing_reason == "seated by the master"
    assert master.get(seating_url(seven)).json()["tables"] == done.json()["tables"]


def test_a_seating_that_breaks_the_tables_sizes_or_misses_a_player_is_refused(seven):
    tables = services.round_tables(seven, 2)
    big, small = sorted(tables, key=lambda m: -m.sides.count())
    now = {str(k): v for k, v in seating_now(seven, 2).items()}
    leaver = small.sides.all()[0].team
    master = As(seven.league.master)

    def refused(seating, round_number=2):
        with watch_writes() as written:
            resp = master.post(seating_url(seven), {"round_number": round_number, "seating": seating})
        assert resp.status_code == 400 and not written.changed, resp.content
        return resp.json()

    assert refused(now | {str(leaver.pk): big.pk}) == {
        "detail": [f"Table {tables.index(small) + 1} would seat 2 players: a table seats 3 to 5."]
    }
    assert refused({k: v for k, v in now.items() if k != str(leaver.pk)}) == {
        "detail": ["Seat every player of the round, once."]
    }
    assert refused(now | {str(leaver.pk): 10**9}) == {"detail": ["Seat players at the round's own tables."]}
    assert refused(now) == {"detail": ["That is the seating already."]}
    assert "its seating is final" in refused(now, round_number=1)["detail"][0]
    # the document's own bounds: at most the round's players, keys that are ids, ids in range
    assert list(refused(now | {str(10**9 + i): big.pk for i in range(3)})) == ["seating"]
    for seating in ({"x": big.pk}, {"0": big.pk}, {str(leaver.pk): 0}, {str(leaver.pk): 2**70}, {}, [1, 2]):
        assert list(refused(seating)) == ["seating"], seating
    assert seating_now(seven, 2) == {int(k): v for k, v in now.items()}


def test_a_game_not_played_at_tables_has_no_seating_moves():
    league = LeagueFactory(game="allstars")
    season = services.season_create(league=league, format=Season.Format.SELF_ARRANGED)
    refusal = f"{league.game_info.name} is not played at tables."
    assert As().get(seating_url(season)).json()["refusal"] == refusal
    resp = As(league.master).post(seating_url(season), {"round_number": 1, "seating": {"1": 1}})
    assert resp.status_code == 400 and resp.json() == {"detail": [refusal]}


def test_only_the_master_moves_players(seven):
    """Players of the round's tables (the one who would move, one at the table he would join), a
    member, another league's master: 403 and nothing written; a visitor: 401."""
    tables = services.round_tables(seven, 2)
    big, small = sorted(tables, key=lambda m: -m.sides.count())
    mover = big.sides.all()[0].team
    seating = {str(k): v for k, v in seating_now(seven, 2).items()} | {str(mover.pk): small.pk}
    body = {"round_number": 2, "seating": seating, "dry_run": True}
    for user in (mover.owner, small.sides.all()[0].team.owner, UserFactory(), LeagueFactory().master):
        caller = As(user)
        with watch_writes() as written:
            resp = caller.post(seating_url(seven), {**body, "dry_run": False})
        assert resp.status_code == 403 and not written.changed, (user, resp.content)
        assert caller.post(seating_url(seven), body).status_code == 403
    assert As().post(seating_url(seven), body).status_code == 401
    assert seating_now(seven, 2)[mover.pk] == big.pk
