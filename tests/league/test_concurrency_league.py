"""Concurrent schedule requests and playoff confirmations: one schedule, one next round
(PostgreSQL row locks and the ScheduleRun unique constraint)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from league import services
from league.models import BracketSlot, ScheduleRun, Season
from matches.models import Match
from tests.league.helpers import generate, make_season, play

pytestmark = pytest.mark.postgres


def run_together(target, n: int = 2) -> list:
    barrier = threading.Barrier(n)
    results: list = []

    def work():
        try:
            barrier.wait(timeout=10)
            results.append(target())
        except Exception as exc:
            results.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


@pytest.mark.slow(reason="two PostgreSQL connections racing in threads, each committing")
def test_two_masters_clicks_at_once_make_one_schedule(postgres_tx, catalog):
    season = make_season(8)

    def request_and_generate():
        run = services.schedule_request(season=Season.objects.get(pk=season.pk), kind=ScheduleRun.Kind.ROUND_ROBIN)
        return services.schedule_generate(run_id=run.pk).pk

    results = run_together(request_and_generate, 3)
    assert len(set(results)) == 1 and all(isinstance(r, int) for r in results), results
    assert ScheduleRun.objects.filter(season=season).count() == 1
    assert Match.objects.filter(season=season).count() == 28


@pytest.mark.slow(reason="two PostgreSQL connections racing in threads, each committing")
def test_two_playoff_confirmations_at_once_make_one_final(postgres_tx, catalog):
    season = make_season(4, format=Season.Format.SELF_ARRANGED, playoff_teams=4)
    a, b = [e.team for e in season.entries.select_related("team").order_by("id")[:2]]
    play(services.fixture_arrange(season=season, home=a, away=b), 3, 0)  # the playoffs follow a regular season
    generate(season, ScheduleRun.Kind.PLAYOFF)
    semis = list(Match.objects.filter(season=season, stage="playoff-1"))
    for m in semis:
        play(m, 2, 0)
    results = run_together(lambda: len(services.playoffs_advance(season=Season.objects.get(pk=season.pk))))
    assert sorted(results) == [0, 1], results
    assert BracketSlot.objects.filter(season=season, round_number=2).count() == 1
    assert Match.objects.filter(season=season, stage="playoff-2").count() == 1
