"""An API walk-through with tokens: a player saves a draft, submits the result, the opponent
confirms it (and another time rejects it); the master triggers a schedule. Every answer is
checked against the schema (tests/api/conftest.py)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from matches.models import Match
from teams.models import TreasuryEntry
from tests.trust.world import choose_pending_rolls

pytestmark = pytest.mark.usefixtures("catalog")


@pytest.fixture(autouse=True)
def _rolls_chosen(world):
    """Team A's pending advancement roll is chosen first: a team cannot kick off with one (issue 13)."""
    choose_pending_rolls(world)


def _url(name: str, match: Match) -> str:
    return reverse(name, kwargs={"pk": match.pk})


def _result(world) -> dict:
    return {
        "sides": [{"slot": 1, "points": 3}, {"slot": 2, "points": 1}],
        "ninjas": [
            {"ninja": world.ninja_a.pk, "all_star": True, "injuries": 2, "reveals": 1},
            {"ninja": world.ninja_b.pk, "all_star": True},
        ],
    }


def test_a_draft_then_a_result_then_its_confirmation(world, api):
    player, opponent = api("player"), api("other_player")
    match = world.open_match
    koban_before = TreasuryEntry.objects.filter(team=world.team_a).count()

    draft = player.post(_url("api:match-draft", match), {"sides": [{"slot": 1, "points": 3}]})
    assert draft.status_code == 200, draft.json()
    saved = draft.json()["draft"]
    assert saved["s1_points"] == "3" and "s2_points" not in saved
    match.refresh_from_db()
    assert match.result_draft == saved and match.kicked_off_at is not None and match.status == "scheduled"

    # The web's result page reads the same draft back.
    web = api("player").client
    web.force_login(world.users["player"])
    page = web.get(reverse("matches:result", kwargs={"pk": match.pk}))
    assert page.status_code == 200 and 'value="3"' in page.content.decode()

    submitted = player.post(_url("api:match-result", match), _result(world))
    assert submitted.status_code == 200, submitted.json()
    body = submitted.json()
    assert body["status"] == "submitted" and body["submitted_by"] == "trust-player"
    match.refresh_from_db()
    assert match.result_draft is None and match.submitted_record is not None

    # The submitter cannot confirm their own result.
    assert player.post(_url("api:match-confirm", match)).status_code == 403

    confirmed = opponent.post(_url("api:match-confirm", match))
    assert confirmed.status_code == 200, confirmed.json()
    body = confirmed.json()
    assert body["status"] == "confirmed"
    by_team = {side["team"]: side for side in body["sides"]}
    assert by_team[world.team_a.pk]["points"] == 3 and by_team[world.team_a.pk]["outcome"] == "win"
    assert by_team[world.team_b.pk]["outcome"] == "loss"
    star = next(n for n in by_team[world.team_a.pk]["ninjas"] if n["ninja"] == world.ninja_a.pk)
    assert star["injuries"] == 2 and star["reveals"] == 1 and star["all_star_awards"] == 1 and star["xp_gained"] > 0
    assert body["outcomes"]["treasury"] and body["outcomes"]["xp"]
    assert TreasuryEntry.objects.filter(team=world.team_a).count() > koban_before

    # Confirming again changes nothing; entering another result is refused.
    assert opponent.post(_url("api:match-confirm", match)).json()["status"] == "confirmed"
    again = player.post(_url("api:match-result", match), _result(world))
    assert again.status_code == 400 and "confirmed" in str(again.json())


def test_a_rejected_result_goes_back_to_the_submitter(world, api):
    match = world.submitted
    rejected = api("other_player").post(_url("api:match-reject", match), {"reason": "The score was 2-1"})
    assert rejected.status_code == 200, rejected.json()
    assert rejected.json()["status"] == "scheduled"
    match.refresh_from_db()
    assert match.result_draft["reason"] == "The score was 2-1" and match.submitted_record is None
    # resubmitted, then confirmed by the master
    resubmitted = api("player").post(_url("api:match-result", match), _result(world))
    assert resubmitted.status_code == 200 and resubmitted.json()["status"] == "submitted"
    assert api("master").post(_url("api:match-confirm", match)).json()["status"] == "confirmed"


def test_the_master_enters_a_result_that_needs_no_confirmation(world, api):
    body = api("master").post(_url("api:match-result", world.open_match), _result(world)).json()
    assert body["status"] == "confirmed" and body["sequence_applied_at"]


def test_a_result_the_rules_refuse_is_a_400_listing_the_problems_and_writes_nothing(world, api):
    match = world.open_match
    bad = api("player").post(
        _url("api:match-result", match),
        {"sides": [{"slot": 1, "points": 3}], "ninjas": [{"ninja": world.ninja_a.pk, "all_star": True}]},
    )
    assert bad.status_code == 400
    assert "points" in str(bad.json())
    match.refresh_from_db()
    assert match.status == "scheduled" and match.kicked_off_at is None  # the kick-off was rolled back
    stranger = api("player").post(
        _url("api:match-result", match), {**_result(world), "ninjas": [{"ninja": world.team_c.ninjas.first().pk}]}
    )
    assert stranger.status_code == 400 and "not on a roster" in str(stranger.json())
    feat = api("player").post(
        _url("api:match-result", match), {**_result(world), "ninjas": [{"ninja": world.ninja_a.pk, "feats": {"x": 1}}]}
    )
    assert feat.status_code == 400 and "not a feat of this challenge" in str(feat.json())


def test_the_master_triggers_a_schedule(world, api):
    season = world.other_season  # Mist, a round robin; its master is other_master
    resp = api("other_master").post(reverse("api:season-schedule", kwargs={"pk": season.pk}), {"kind": "round_robin"})
    assert resp.status_code == 202, resp.json()
    run = resp.json()
    assert run["kind"] == "round_robin" and run["season"] == season.pk
    assert run["status_url"].endswith(f"/leagues/tasks/{run['task_id']}/")
    # asking again finds the same run (idempotent, as the page's form)
    again = api("other_master").post(reverse("api:season-schedule", kwargs={"pk": season.pk}), {"kind": "round_robin"})
    assert again.json()["id"] == run["id"]
    refused = api("master").post(reverse("api:season-schedule", kwargs={"pk": season.pk}), {"kind": "round_robin"})
    assert refused.status_code == 403


def test_a_token_is_needed_to_write(world, api):
    resp = api().post(_url("api:match-result", world.open_match), _result(world))
    assert resp.status_code == 401 and resp["WWW-Authenticate"].startswith("Token")
    wrong = api().client.post(
        _url("api:match-confirm", world.submitted),
        "{}",
        content_type="application/json",
        HTTP_AUTHORIZATION="Token nope",
    )
    assert wrong.status_code == 401


@pytest.mark.throttle
def test_writes_are_throttled(world, api, settings):
    from django.core.cache import cache

    cache.clear()
    settings.API_THROTTLE_RATES = {"anon": "1000/min", "user": "1000/min", "write": "2/min"}
    player = api("player")
    url = _url("api:match-draft", world.open_match)
    assert [player.post(url, {}).status_code for _ in range(3)] == [200, 200, 429]
    settings.API_THROTTLE_RATES = {"anon": "2/min", "user": "1000/min", "write": "1000/min"}
    cache.clear()
    reader = api()
    assert [reader.get(reverse("api:league-list")).status_code for _ in range(3)] == [200, 200, 429]
