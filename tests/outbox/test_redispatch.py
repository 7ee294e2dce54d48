"""The outbox's redispatch (issue 11, finding 3): it finds every app's tasks in a process that
never imported them, sends each stored task once even with two redispatchers at once, and runs by
itself (beat entries made by every migrate and by the one command for periodic tasks)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from django.core.management import call_command
from django.db import connection
from django_celery_beat.models import PeriodicTask

from league.periodic import PERIODIC_TASKS
from outbox.dispatch import redispatch_pending
from outbox.models import OutboxTask
from tests.support import redis_of_our_own
from tests.trust.workers import ROOT, database_url

#: One task of every app that dispatches through the outbox (ids need not exist: only sent here).
EVERY_APPS_TASKS = [
    "newsletters.tasks.newsletter_build_task",
    "newsletters.tasks.newsletter_deliver_task",
    "league.tasks.schedule_generate_task",
    "matches.tasks.simulation_job_task",
    "rules.tasks.catalog_summary_task",
]


@pytest.fixture
def own_redis():
    with redis_of_our_own() as server:
        yield server


@pytest.mark.slow(reason="runs manage.py redispatch_outbox in a process of its own against a Redis server of its own")
def test_the_command_sends_every_apps_tasks_from_a_fresh_process(postgres_tx, own_redis):
    """`manage.py redispatch_outbox` in a process of its own (as cron or a person runs it): on main
    it logged "task newsletters.tasks.newsletter_build_task is not registered" and sent nothing of
    the apps whose tasks module it had not imported."""
    for i, name in enumerate(EVERY_APPS_TASKS):
        args = [] if name == "rules.tasks.catalog_summary_task" else [1000 + i]
        OutboxTask.objects.create(task_name=name, args=args, task_id=f"stored-{i}", description=name)
    OutboxTask.objects.create(task_name="gone.tasks.renamed_long_ago", args=[1])
    OutboxTask.objects.create(task_name="rules.tasks.catalog_summary_task", args=[1, 2, 3])  # a wrong call
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "league.settings",
        "DATABASE_URL": database_url(),
        "REDIS_URL": own_redis.url,
        "AXES_ENABLED": "0",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "redispatch_outbox"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    left = list(OutboxTask.objects.exclude(status=OutboxTask.Status.SENT).values_list("task_name", "last_error"))
    assert "Sent 5; 0 still waiting." in done.stdout, (done.stdout, done.stderr, left)
    assert "not registered" not in done.stderr or "gone.tasks.renamed_long_ago" in done.stderr
    assert own_redis.queue_length() == len(EVERY_APPS_TASKS)
    sent = OutboxTask.objects.filter(task_name__in=EVERY_APPS_TASKS).exclude(args=[1, 2, 3])
    assert set(sent.values_list("status", flat=True)) == {OutboxTask.Status.SENT}
    unknown = OutboxTask.objects.get(task_name="gone.tasks.renamed_long_ago")
    assert unknown.status == OutboxTask.Status.FAILED and "No installed app" in unknown.last_error
    wrong = OutboxTask.objects.get(task_name="rules.tasks.catalog_summary_task", args=[1, 2, 3])
    assert wrong.status == OutboxTask.Status.FAILED and "positional argument" in wrong.last_error


def test_two_redispatchers_at_once_send_each_stored_task_once(postgres_tx, own_redis, monkeypatch):
    """Beat's task and the command (or two beats) running together: on main both read the same
    pending rows and sent most of them twice."""
    from rules.tasks import catalog_summary_task

    stored = 40
    for i in range(stored):
        OutboxTask.objects.create(task_name="rules.tasks.catalog_summary_task", task_id=f"once-{i}")
    task = catalog_summary_task._get_current_object()  # the registered task, not its proxy
    real_send = task.apply_async

    def slow_send(*args, **kwargs):
        time.sleep(0.01)  # both redispatchers are busy at the same time
        return real_send(*args, **kwargs)

    monkeypatch.setattr(task, "apply_async", slow_send)
    counts: list[int] = []
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def redispatcher():
        try:
            start.wait()
            counts.append(redispatch_pending())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=redispatcher) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert sum(counts) == stored and all(c > 0 for c in counts), counts  # both worked, no row twice
    assert own_redis.queue_length() == stored
    assert OutboxTask.objects.filter(status=OutboxTask.Status.SENT).count() == stored


@pytest.mark.django_db
def test_migrate_makes_every_periodic_task_and_the_command_keeps_admin_edits():
    """The database of the tests was made by `migrate`: the entries are there already."""
    names = {p.name: p.task for p in PERIODIC_TASKS}
    assert dict(PeriodicTask.objects.filter(name__in=names).values_list("name", "task")) == names
    redispatch = PeriodicTask.objects.get(task="outbox.redispatch")
    recover = PeriodicTask.objects.get(task="outbox.recover_stale_jobs")
    assert redispatch.enabled and redispatch.interval.every == 60 and recover.interval.every == 60

    redispatch.enabled = False
    redispatch.save()
    call_command("setup_periodic_tasks")
    redispatch.refresh_from_db()
    assert not redispatch.enabled  # left as the admin set it
    call_command("setup_periodic_tasks", reset=True)
    redispatch.refresh_from_db()
    assert redispatch.enabled
    assert PeriodicTask.objects.filter(name__in=names).count() == len(names)
