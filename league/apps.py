from django.apps import AppConfig
from django.db.models import Q


class LeagueConfig(AppConfig):
    name = "league"
    label = "league"
    verbose_name = "Leagues"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_migrate

        from league import pagecache, periodic
        from league.models import ScheduleRun
        from outbox import jobs

        # The page cache's data version moves when a transaction that wrote site data commits.
        connection_created.connect(pagecache.watch_writes, dispatch_uid="league.pagecache.watch_writes")
        # Every migrate makes the missing periodic tasks (league/periodic.py): recovery runs by itself.
        post_migrate.connect(periodic.ensure_after_migrate, sender=self, dispatch_uid="league.periodic")

        def schedule_task():
            from league.tasks import schedule_generate_task

            return schedule_generate_task

        def schedule_failed(run_id: int, error: str) -> None:
            from league.services import schedule_run_failed

            schedule_run_failed(run_id=run_id, error=error)

        jobs.register(
            jobs.JobKind(
                label="schedule run",
                model=ScheduleRun,
                task=schedule_task,
                open=Q(status=ScheduleRun.Status.PENDING),
                fail=schedule_failed,
            )
        )
