"""Celery application. With no REDIS_URL, tasks run eagerly in-process (see settings)."""

import os

from celery import Celery
from celery.signals import task_postrun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "league.settings")

app = Celery("league")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_postrun.connect
def _bump_page_cache_version(**kwargs) -> None:
    """A task may have written (a schedule, a simulated match, a newsletter): cached pages go stale."""
    from league.pagecache import bump_data_version

    bump_data_version()
