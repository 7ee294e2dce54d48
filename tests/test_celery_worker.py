import pytest

from rules.tasks import catalog_summary_task


@pytest.mark.slow(reason="starts a real Celery worker over Redis")
@pytest.mark.celery_worker
def test_task_runs_through_a_real_worker_over_redis(celery_worker_live, catalog):
    from league.celery import app

    assert not app.conf.task_always_eager
    result = catalog_summary_task.delay()
    counts = result.get(timeout=30)
    assert counts["clans"] == 6
    assert counts["ronin"] == 18
    assert result.status == "SUCCESS"


def test_task_runs_eagerly_in_process(catalog):
    from league.celery import app

    assert catalog_summary_task.app is app  # no other app made current by an earlier test
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        result = catalog_summary_task.delay()
    finally:
        app.conf.task_always_eager = previous
    assert result.get(timeout=10)["challenges"] == 8
