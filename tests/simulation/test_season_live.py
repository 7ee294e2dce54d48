"""A full simulated season through the real Celery worker (Redis broker, PostgreSQL): 16 teams,
double round robin, 240 matches, requested from the season page and followed on the progress
JSON. Afterwards the league table and every team scroll must be consistent."""

from __future__ import annotations

import time
from collections import defaultdict

import pytest
from django.db.models import Sum
from django.urls import reverse

from league import services as league_services
from league.models import Season
from league.selectors import league_table
from matches.models import Match, SimulationJob, SimulationRun
from rules.engine.league import xp_level
from teams.models import Advancement, AdvancementRoll, Ninja, Team, TreasuryEntry, XpEvent
from tests.conftest import need
from tests.factories import LeagueFactory, UserFactory, make_legal_team
from tests.support import wait_for_status

pytestmark = [pytest.mark.celery_worker, pytest.mark.usefixtures("catalog")]

CLANS = ["tora", "yamazaru", "kitsune", "ika", "tanchyo", "ijin"]
TEAMS = 16


@pytest.mark.slow(reason="simulates a 240-match season through a real Celery worker over Redis")
def test_a_full_double_round_robin_season_through_the_worker(celery_worker_live, client):
    from django.db import connection

    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    league = LeagueFactory(master=UserFactory(username="sim-master"))
    season = league_services.season_create(league=league, format=Season.Format.DOUBLE_ROUND_ROBIN)
    for i in range(TEAMS):
        team = make_legal_team(CLANS[i % len(CLANS)], owner=UserFactory(), name=f"Sim Team {i + 1}", league=league)
        league_services.application_accept(team=team)
    client.force_login(league.master)
    kw = {"slug": league.slug, "number": season.number}

    started = time.monotonic()
    response = client.post(reverse("simulation:simulate_season", kwargs=kw), {"policy": "auto"})
    job = SimulationJob.objects.get(season=season)
    assert response["Location"] == job.get_absolute_url()
    status, seen = wait_for_status(
        client, reverse("simulation:simulation_status", kwargs={"task_id": job.task_id}), timeout=170, interval=0.5
    )
    elapsed = time.monotonic() - started
    print(f"\n240 matches simulated through the worker in {elapsed:.1f} s ({240 / elapsed:.1f} matches/s)")
    assert status["state"] == "SUCCESS", status
    assert status["done"] == status["total"] == 240
    assert seen == sorted(seen)  # progress only goes forward

    matches = Match.objects.filter(season=season)
    assert matches.count() == 240
    assert matches.filter(status=Match.Status.CONFIRMED, simulated=True).count() == 240
    assert SimulationRun.objects.filter(match__season=season, job=job).count() == 240

    # the league table
    table = league_table(season)
    assert len(table) == TEAMS and all(row.played == 30 for row in table)
    assert sum(r.won for r in table) == sum(r.lost for r in table)
    assert sum(r.drawn for r in table) % 2 == 0
    decided = sum(r.won for r in table)
    drawn_games = sum(r.drawn for r in table) // 2
    assert decided + drawn_games == 240
    assert sum(r.points for r in table) == season.points_win * decided + 2 * season.points_draw * drawn_games
    assert sum(r.points_for for r in table) == sum(r.points_against for r in table)

    # every team's treasury is its ledger: sums and running balances
    for team in Team.objects.filter(league=league):
        entries = list(TreasuryEntry.objects.filter(team=team).order_by("id"))
        running = 0
        for entry in entries:
            running += entry.amount
            assert entry.balance_after == running >= 0
        assert team.treasury == running
        revenue = TreasuryEntry.objects.filter(
            team=team, match__isnull=False, reason__in=["revenue", "underdog", "shojo"]
        )
        assert revenue.values("match").distinct().count() == 30

    # every model's XP is its events; its level its advancement rolls; the policy took every roll
    xp = defaultdict(
        int, {r["ninja"]: r["total"] for r in XpEvent.objects.values("ninja").annotate(total=Sum("amount"))}
    )
    rolls = defaultdict(int)
    for roll in AdvancementRoll.objects.exclude(status=AdvancementRoll.Status.VOIDED).values_list(
        "ninja_id", flat=True
    ):
        rolls[roll] += 1
    ninjas = list(Ninja.objects.filter(team__league=league).select_related("profile"))
    assert sum(n.xp for n in ninjas) > 0
    for ninja in ninjas:
        assert ninja.xp == xp[ninja.pk], ninja
        assert rolls[ninja.pk] == xp_level(ninja.xp).rank, ninja
    assert not AdvancementRoll.objects.filter(
        ninja__team__league=league, status="pending", ninja__status="active"
    ).exists()
    assert (
        Advancement.objects.filter(ninja__team__league=league).count()
        == AdvancementRoll.objects.filter(ninja__team__league=league, status="chosen").count()
        > 0
    )

    # the team scrolls render with it all
    for team in Team.objects.filter(league=league)[:4]:
        assert client.get(team.get_absolute_url()).status_code == 200
