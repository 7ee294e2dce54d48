"""Every periodic task of the site, defined in one place (django-celery-beat entries).

``manage.py setup_periodic_tasks`` makes them, and so does every ``migrate`` (a ``post_migrate``
receiver connected in ``LeagueConfig.ready``), so a deployment gets them without a manual step.
Both are idempotent: an entry that exists is left exactly as it is, so a schedule changed or
disabled in the admin stays that way; ``--reset`` puts the definitions below back.

Tasks are named by their Celery name, not imported: the project package lists every app's
periodic work without importing the apps above it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction


@dataclass(frozen=True)
class Periodic:
    name: str  # the PeriodicTask's unique name (shown in the admin)
    task: str  # the Celery task name
    description: str
    every: Callable[[], int] | None = None  # seconds (an interval schedule), read from settings
    crontab: dict[str, str] = field(default_factory=dict)  # or a crontab (minute, hour, day_of_week)


NEWSLETTERS_WEEKLY = Periodic(
    name="Weekly league newsletters",
    task="newsletters.tasks.newsletters_weekly_task",
    description="Drafts each league's newsletter for its latest completed round or week.",
    crontab={"minute": "0", "hour": "7", "day_of_week": "1"},
)
OUTBOX_REDISPATCH = Periodic(
    name="Send tasks stored during a broker outage",
    task="outbox.redispatch",
    description="Sends again, once each, the Celery tasks stored in the outbox while the broker was unreachable.",
    every=lambda: settings.OUTBOX_REDISPATCH_EVERY,
)
JOBS_RECOVER = Periodic(
    name="Resume jobs whose worker stopped",
    task="outbox.recover_stale_jobs",
    description="Finds schedule runs, simulations and newsletter builds with no sign of life and resumes them.",
    every=lambda: settings.JOB_RECOVERY_EVERY,
)

NOTIFY_DEADLINES = Periodic(
    name="Remind players of fixtures near their deadline",
    task="notifications.deadline_reminders",
    description="Tells both players of each unplayed fixture whose deadline is near, once per fixture.",
    crontab={"minute": "0", "hour": "*/3"},
)

UPKEEP_DEFAULTS = Periodic(
    name="Decide the ronin upkeep left undecided past a deadline",
    task="league.upkeep_defaults",
    description="A result accepted but waiting for a ronin's upkeep past its fixture's deadline: the league's "
    "rule decides and the post-game sequence runs.",
    crontab={"minute": "30", "hour": "*/3"},
)

PERIODIC_TASKS: tuple[Periodic, ...] = (
    NEWSLETTERS_WEEKLY,
    OUTBOX_REDISPATCH,
    JOBS_RECOVER,
    NOTIFY_DEADLINES,
    UPKEEP_DEFAULTS,
)


def _schedule(periodic: Periodic, crontab: dict[str, str] | None = None) -> dict:
    from django_celery_beat.models import CrontabSchedule, IntervalSchedule

    if periodic.every is not None:
        interval, _ = IntervalSchedule.objects.get_or_create(every=periodic.every(), period=IntervalSchedule.SECONDS)
        return {"interval": interval, "crontab": None}
    fields = {"day_of_month": "*", "month_of_year": "*", **periodic.crontab, **(crontab or {})}
    schedule, _ = CrontabSchedule.objects.get_or_create(
        timezone=settings.CELERY_TIMEZONE or settings.TIME_ZONE, **{"day_of_week": "*", **fields}
    )
    return {"crontab": schedule, "interval": None}


def ensure_periodic_tasks(
    *, reset: bool = False, only: tuple[Periodic, ...] = PERIODIC_TASKS, crontab: dict[str, str] | None = None
) -> list[tuple[Periodic, str]]:
    """Create each periodic task that does not exist yet (``reset``: put existing ones back to
    their definition). ``crontab`` overrides crontab fields on creation or reset. Returns what
    was done to each: "created", "reset" or "kept"."""
    from django_celery_beat.models import PeriodicTask

    done = []
    for periodic in only:
        with transaction.atomic():
            existing = PeriodicTask.objects.select_for_update().filter(name=periodic.name).first()
            if existing is not None and not reset:
                done.append((periodic, "kept"))
                continue
            task = existing or PeriodicTask(name=periodic.name)
            task.task = periodic.task
            task.description = periodic.description
            task.enabled = True
            for attr, value in _schedule(periodic, crontab).items():
                setattr(task, attr, value)
            task.save()
            done.append((periodic, "reset" if existing else "created"))
    return done


def ensure_after_migrate(sender=None, using: str = "default", plan=None, **kwargs) -> None:
    """``post_migrate`` receiver: create the missing periodic tasks (never changes existing ones).
    Skipped while migrating backwards or before django-celery-beat's tables exist."""
    from django.db import connections

    if plan and all(backwards for _migration, backwards in plan):
        return
    from django_celery_beat.models import PeriodicTask

    if PeriodicTask._meta.db_table not in connections[using].introspection.table_names():
        return
    ensure_periodic_tasks()
