"""Issue 27, finding 6: each team decides its own ronin's upkeep (the rulebook's Ronin keyword: "a
team must pay Ronin a fee after each game ... If a team cannot or does not want to pay a Ronin's
upkeep, the Ronin leaves the team").

Before: the submitting side's form held the upkeep choice of the other side's ronin, and with
confirmation off the owner never decided (the first test failed: the opponent's "release" let the
ronin go at once, the result confirmed on submission)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from league.services import upkeep as upkeep_service
from matches import services
from matches.forms import ResultForm
from matches.models import Match, UpkeepDecision
from notifications.models import Notification
from rules.models import Challenge
from tests.factories import LeagueFactory, UserFactory, make_legal_team
from tests.matches.conftest import simple_record

pytestmark = pytest.mark.usefixtures("catalog")


def ronin_match(*, confirmation: bool, default: str = "pay"):
    """A kicked-off Brawl: Tigers (tora, no ronin) against Herons (tanchyo: the tengu is a ronin)."""
    league = LeagueFactory(results_need_confirmation=confirmation, ronin_upkeep_default=default)
    home = make_legal_team("tora", owner=UserFactory(username="tiger-owner"), name="Tigers", league=league)
    away = make_legal_team("tanchyo", owner=UserFactory(username="heron-owner"), name="Herons", league=league)
    match = services.match_create(teams=[home, away], challenge=Challenge.objects.get(slug="brawl"), league=league)
    match = services.match_kick_off(match=match)
    tengu = away.ninjas.get(profile__slug="tengu")
    return league, home, away, match, tengu


def test_the_opponent_cannot_decide_your_ronins_upkeep():
    _league, home, _away, match, tengu = ronin_match(confirmation=False)
    with pytest.raises(ValidationError, match="its own team decides its upkeep"):
        services.match_submit_result(
            match=match, record=simple_record(match), actor=home.owner, upkeep={tengu.pk: "release"}
        )
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED and match.upkeep_choices == {}


def test_the_opponents_form_does_not_ask_your_ronins_upkeep():
    league, home, away, match, tengu = ronin_match(confirmation=True)
    match = Match.objects.prefetch_related("sides__team").get(pk=match.pk)
    assert f"u{tengu.pk}" not in ResultForm.for_match(match, user=home.owner).fields
    assert f"u{tengu.pk}" in ResultForm.for_match(match, user=away.owner).fields
    assert f"u{tengu.pk}" in ResultForm.for_match(match, user=league.master).fields


def test_without_confirmation_the_result_waits_for_the_owner_then_applies():
    _league, home, away, match, tengu = ronin_match(confirmation=False)
    services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    match.refresh_from_db()
    assert match.status == Match.Status.SUBMITTED and match.upkeep_waits
    assert match.confirmed_by == home.owner and match.sequence_applied_at is None
    assert not UpkeepDecision.objects.filter(match=match).exists()
    told = Notification.objects.get(user=away.owner, text__startswith="Decide your ronin's upkeep")
    assert told.url == match.get_absolute_url()
    # only the owner (or the master) decides; confirming or rejecting is not what waits
    with pytest.raises(PermissionDenied):
        services.match_decide_upkeep(match=match, actor=home.owner, upkeep={tengu.pk: "release"})
    with pytest.raises(ValidationError):
        services.match_reject(match=match, actor=away.owner, reason="no")
    services.match_decide_upkeep(match=match, actor=away.owner, upkeep={tengu.pk: "release"})
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED and not match.upkeep_waits
    decision = UpkeepDecision.objects.get(match=match, ninja=tengu)
    assert decision.paid is False and not decision.forced_release
    tengu.refresh_from_db()
    assert tengu.status != tengu.Status.ACTIVE


def test_with_confirmation_the_confirming_owner_decides_his_own():
    _league, home, away, match, tengu = ronin_match(confirmation=True)
    services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    services.match_confirm(match=match, actor=away.owner, upkeep={tengu.pk: "release"})
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    assert UpkeepDecision.objects.get(match=match, ninja=tengu).paid is False


def test_the_same_record_from_the_owner_confirms_with_his_choice():
    """A counter-submission is compared without the upkeep (each side enters only its own)."""
    _league, home, away, match, tengu = ronin_match(confirmation=True)
    record = simple_record(match)
    services.match_submit_result(match=match, record=record, actor=home.owner)
    services.match_submit_result(match=match, record=record, actor=away.owner, upkeep={tengu.pk: "release"})
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    assert UpkeepDecision.objects.get(match=match, ninja=tengu).paid is False


def test_by_the_deadline_the_house_rule_decides():
    _league, home, _away, match, tengu = ronin_match(confirmation=False, default="release")
    Match.objects.filter(pk=match.pk).update(deadline=dt.date(2026, 3, 1))
    services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    assert upkeep_service.upkeep_defaults_apply(today=dt.date(2026, 3, 1)) == 0  # the deadline day still counts
    match.refresh_from_db()
    assert match.upkeep_waits
    assert upkeep_service.upkeep_defaults_apply(today=dt.date(2026, 3, 2)) == 1
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED and match.confirmed_by == home.owner
    assert UpkeepDecision.objects.get(match=match, ninja=tengu).paid is False
    assert upkeep_service.upkeep_defaults_apply(today=dt.date(2026, 3, 9)) == 0  # once


def test_the_periodic_task_is_registered():
    from league import periodic

    assert "league.upkeep_defaults" in {p.task for p in periodic.PERIODIC_TASKS}


def test_the_owner_decides_on_the_match_page(client, django_assert_max_num_queries):
    _league, home, away, match, tengu = ronin_match(confirmation=False)
    services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    client.force_login(home.owner)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "it waits for Herons to decide its ronin's upkeep" in page
    assert 'data-testid="upkeep-form"' not in page  # not his ronin
    client.force_login(away.owner)
    with django_assert_max_num_queries(25):
        page = client.get(match.get_absolute_url()).content.decode()
    assert 'data-testid="upkeep-form"' in page and f'name="u{tengu.pk}"' in page
    assert "is paid, by the league's rule" in page
    response = client.post(reverse("matches:upkeep", args=[match.pk]), {f"u{tengu.pk}": "pay"})
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    assert UpkeepDecision.objects.get(match=match, ninja=tengu).paid is True


def test_the_confirm_form_asks_the_confirmers_own_ronin(client):
    _league, home, away, match, tengu = ronin_match(confirmation=True)
    services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    client.force_login(away.owner)
    page = client.get(match.get_absolute_url()).content.decode()
    confirm_form = page.split(reverse("matches:confirm", args=[match.pk]))[1].split("</form>")[0]
    assert f'name="u{tengu.pk}"' in confirm_form
    client.post(reverse("matches:confirm", args=[match.pk]), {"decision": "confirm", f"u{tengu.pk}": "release"})
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    assert UpkeepDecision.objects.get(match=match, ninja=tengu).paid is False


def test_the_master_may_decide_for_any_side():
    """A master entering a whole result sheet decides every ronin (docs/rulings.md)."""
    league, _home, _away, match, tengu = ronin_match(confirmation=True)
    services.match_submit_result(
        match=match, record=simple_record(match), actor=league.master, upkeep={tengu.pk: "release"}
    )
    match.refresh_from_db()
    assert match.status == Match.Status.CONFIRMED
    assert UpkeepDecision.objects.get(match=match, ninja=tengu).paid is False


def test_the_league_page_shows_the_upkeep_rule(client):
    league = LeagueFactory(ronin_upkeep_default="release")
    box = client.get(league.get_absolute_url()).content.decode().split('data-testid="house-rules"')[1]
    assert (
        'Ronin upkeep not decided by the deadline</dt><dd class="col-5" data-testid="rule-upkeep-default">Released'
        in box
    )


def test_the_api_takes_each_owners_upkeep():
    """The API: the opponent's result refuses a choice for your ronin; the owner decides it with
    the upkeep endpoint (or when confirming); the detail says what waits."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    def api(user):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        return client

    _league, home, away, match, tengu = ronin_match(confirmation=False)
    submitter, owner = api(home.owner), api(away.owner)
    stars = [{"ninja": team.ninjas.order_by("id").first().pk, "all_star": True} for team in (home, away)]
    sides = [{"slot": 1, "points": 2}, {"slot": 2, "points": 1}]
    refused = submitter.post(
        reverse("api:match-result", args=[match.pk]),
        {"sides": sides, "ninjas": stars, "upkeep": [{"ninja": tengu.pk, "decision": "release"}]},
        format="json",
    )
    assert refused.status_code == 400 and "each team decides its own" in refused.content.decode()
    waiting = submitter.post(
        reverse("api:match-result", args=[match.pk]), {"sides": sides, "ninjas": stars}, format="json"
    )
    assert waiting.status_code == 200, waiting.content
    assert waiting.json()["status"] == "submitted" and waiting.json()["upkeep_waits"] is True
    stranger = submitter.post(
        reverse("api:match-upkeep", args=[match.pk]),
        {"upkeep": [{"ninja": tengu.pk, "decision": "pay"}]},
        format="json",
    )
    assert stranger.status_code == 403 and stranger.json()
    decided = owner.post(
        reverse("api:match-upkeep", args=[match.pk]),
        {"upkeep": [{"ninja": tengu.pk, "decision": "release"}]},
        format="json",
    )
    assert decided.status_code == 200 and decided.json()["status"] == "confirmed"
    assert UpkeepDecision.objects.get(match=match, ninja=tengu).paid is False


def test_the_owners_dashboard_says_the_upkeep_waits(client, django_assert_max_num_queries):
    _league, home, away, match, _tengu = ronin_match(confirmation=False)
    services.match_submit_result(match=match, record=simple_record(match), actor=home.owner)
    client.force_login(away.owner)
    client.get(reverse("home"))
    with django_assert_max_num_queries(12):
        page = client.get(reverse("home")).content.decode()
    todo = page.split('data-testid="dashboard-todo"')[1].split("</section>")[0]
    assert "it waits for your ronin's upkeep" in todo and "Decide the upkeep" in todo
    assert "Confirm or reject" not in todo
