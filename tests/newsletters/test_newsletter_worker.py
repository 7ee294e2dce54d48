"""Through a real Celery worker on Redis (CI runs it; it fails, never skips, when REQUIRE_SERVICES=1
and Redis is missing): building twice leaves one newsletter for the period."""

from __future__ import annotations

import pytest
from celery.result import AsyncResult

from newsletters import services
from newsletters.models import Newsletter
from newsletters.periods import Period
from tests.newsletters.helpers import seed_league
from tests.support import wait_for


@pytest.mark.slow(reason="builds a newsletter twice through a real Celery worker over Redis")
@pytest.mark.celery_worker
def test_build_through_a_real_worker_twice_leaves_one_newsletter(celery_worker_live, catalog):
    from league.celery import app

    assert not app.conf.task_always_eager
    s = seed_league()
    period = Period.round(1, 2)

    first = services.newsletter_request(league=s.league, period=period)  # dispatched on commit
    AsyncResult(first.build_task_id, app=app).get(timeout=30)
    second = services.newsletter_request(league=s.league, period=period)
    result = AsyncResult(second.build_task_id, app=app).get(timeout=30)

    assert first.pk == second.pk
    assert first.build_task_id != second.build_task_id
    assert result == {"newsletter": first.pk, "status": "draft", "build_status": "done", "reports": 2}
    newsletter = wait_for(lambda: Newsletter.objects.filter(pk=first.pk, builds=2).first())
    assert Newsletter.objects.filter(league=s.league).count() == 1
    assert newsletter.build_status == Newsletter.BuildStatus.DONE
    assert newsletter.sections["reports"][1]["headline"] == "Upset! Apes beat Squids 3–1"
