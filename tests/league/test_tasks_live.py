"""Schedule generation through a real Celery worker over Redis (PostgreSQL in CI)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league import services
from league.models import ScheduleRun
from league.tasks import schedule_generate_task
from matches.models import Match
from tests.league.helpers import make_season
from tests.support import wait_for_status

pytestmark = [pytest.mark.celery_worker, pytest.mark.usefixtures("catalog")]


@pytest.mark.slow(reason="generates a schedule twice through a real Celery worker over Redis")
def test_worker_generates_a_schedule_and_running_the_task_twice_leaves_one(celery_worker_live, client):
    from league.celery import app

    assert not app.conf.task_always_eager
    season = make_season(8)
    client.force_login(season.league.master)
    # through the page: the view dispatches the task after commit, the progress view follows it
    response = client.post(
        reverse("league:schedule_generate", kwargs={"slug": season.league.slug, "number": season.number}),
        {"kind": "round_robin", "round_number": 0},
    )
    run = ScheduleRun.objects.get(season=season)
    assert response["Location"] == run.get_absolute_url()
    status, _ = wait_for_status(client, reverse("league:task_status", kwargs={"task_id": run.task_id}))
    assert status["state"] == "SUCCESS" and status["total"] == 28
    assert Match.objects.filter(season=season).count() == 28
    # the task itself, run again twice by the worker (a redelivery): one schedule
    first = schedule_generate_task.delay(run.pk).get(timeout=60)
    second = schedule_generate_task.apply_async(args=[run.pk]).get(timeout=60)
    assert first["status"] == second["status"] == "done" and first["total"] == second["total"] == 28
    assert Match.objects.filter(season=season).count() == 28
    assert ScheduleRun.objects.filter(season=season).count() == 1


def test_worker_reports_progress_and_result(celery_worker_live):
    season = make_season(10)
    run = services.schedule_request(season=season, kind=ScheduleRun.Kind.ROUND_ROBIN, seed=5)
    result = schedule_generate_task.apply_async(args=[run.pk], task_id=run.task_id)
    assert result.get(timeout=60) == {"run": run.pk, "status": "done", "done": 45, "total": 45, "error": ""}
    assert result.state == "SUCCESS"
    assert Match.objects.filter(season=season).count() == 45


@pytest.mark.slow(reason="seats a round of tables through a real Celery worker over Redis")
def test_worker_seats_a_round_of_kage_tables_once(celery_worker_live, client):
    """A Kage Masters round of tables (issue 17, part 3) through the broker: the page dispatches,
    the worker seats 13 players at three tables, a redelivery changes nothing."""
    from games import registry as games
    from league.models import Season
    from tests.factories import LeagueFactory, UserFactory

    league = LeagueFactory(game=games.KAGE_MASTERS)
    season = services.season_create(league=league, format=Season.Format.TABLES, swiss_rounds=3)
    for i in range(13):
        services.application_accept(team=services.player_apply(user=UserFactory(), league=league, display_name=f"K{i}"))
    client.force_login(league.master)
    client.post(
        reverse("league:schedule_generate", kwargs={"slug": league.slug, "number": season.number}),
        {"kind": "tables", "round_number": 1},
    )
    run = ScheduleRun.objects.get(season=season)
    status, _ = wait_for_status(client, reverse("league:task_status", kwargs={"task_id": run.task_id}))
    assert status["state"] == "SUCCESS" and status["total"] == 3
    again = schedule_generate_task.delay(run.pk).get(timeout=60)
    assert again["status"] == "done" and again["total"] == 3
    sizes = sorted(m.sides.count() for m in Match.objects.filter(season=season))
    assert sizes == [4, 4, 5] and ScheduleRun.objects.filter(season=season).count() == 1
