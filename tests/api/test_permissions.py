"""The API asks the web's permission functions: loosening one of them opens the API too, and the
matrix (tests/trust/matrix.py, API included) notices."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.trust import matrix

pytestmark = pytest.mark.usefixtures("catalog")


def test_the_matrix_fails_when_result_entry_is_open_to_anyone(world, monkeypatch):
    import matches.services

    monkeypatch.setattr(matches.services, "can_enter_result", lambda user, match: user.is_authenticated)
    with pytest.raises(AssertionError, match=r"(?s)api:match-result.*other_master: should be refused with 403"):
        matrix.check_case(world, "api:match-result", matrix.RULES["api:match-result"][0])


def test_the_matrix_fails_when_the_ledger_is_closed_to_visitors(world, monkeypatch):
    """Issue 27, finding 8: the ledger is public in the API as on the site; closing it to anyone is
    caught by the matrix (as opening a private endpoint is)."""
    from rest_framework.permissions import IsAuthenticated

    from api.views import TeamViewSet

    monkeypatch.setattr(TeamViewSet, "permission_classes", [IsAuthenticated])
    with pytest.raises(AssertionError, match=r"(?s)GET .*ledger.* as anonymous"):
        matrix.check_case(world, "api:team-ledger", matrix.RULES["api:team-ledger"][0])


def test_the_ledger_reads_the_same_on_the_site_and_in_the_api(world, client):
    """Issue 27, finding 8: the site showed any team's ledger to anyone and the API refused it; both
    now show it to anyone, the same rows."""
    from teams.models import TreasuryEntry

    team = world.team_a
    rows = list(TreasuryEntry.objects.filter(team=team).order_by("-id").values_list("amount", "balance_after"))
    assert rows
    page = client.get(reverse("teams:ledger", args=[team.pk]))
    api = client.get(reverse("api:team-ledger", args=[team.pk]), HTTP_ACCEPT="application/json")
    assert page.status_code == 200 and api.status_code == 200
    assert [(r["amount"], r["balance_after"]) for r in api.json()["results"]] == rows


def test_the_matrix_fails_when_a_master_check_is_removed(world, monkeypatch):
    import league.permissions

    monkeypatch.setattr(league.permissions, "is_league_master", lambda user, league: user.is_authenticated)
    with pytest.raises(AssertionError, match=r"(?s)POST .*schedule.* as player: should be refused with 403"):
        matrix.check_case(world, "api:season-schedule", matrix.RULES["api:season-schedule"][0])


def test_the_token_page(world, client):
    from rest_framework.authtoken.models import Token

    user = world.users["player"]
    client.force_login(user)
    old = world.extra["tokens"]["player"]
    assert old in client.get("/accounts/api/token/").content.decode()
    client.post("/accounts/api/token/")
    new = Token.objects.get(user=user).key
    assert new != old
    assert matrix.api_client_for(world, "player").get("/api/v1/teams/1/ledger/").status_code == 401  # old token
    client.post("/accounts/api/token/", {"revoke": "1"})
    assert not Token.objects.filter(user=user).exists()
