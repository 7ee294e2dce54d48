from django.apps import AppConfig
from django.db.models import Q


class LeagueConfig(AppConfig):
    name = "league"
    label = "league"
    verbose_name = "Leagues"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_migrate

        from common import invalidation
        from league import invalidation as league_invalidation
        from league import periodic
        from league import progress as league_progress
        from league.models import ScheduleRun
        from matches import hooks
        from matches.models import SimulationJob
        from outbox import jobs

        # The cache versions of what a transaction changed move when it commits (common/invalidation.py).
        connection_created.connect(invalidation.watch_writes, dispatch_uid="league.invalidation.watch_writes")
        invalidation.connect_signals()
        league_invalidation.register()
        # Every migrate makes the missing periodic tasks (league/periodic.py): recovery runs by itself.
        post_migrate.connect(periodic.ensure_after_migrate, sender=self, dispatch_uid="league.periodic")

        def schedule_task():
            from league.tasks import schedule_generate_task

            return schedule_generate_task

        def schedule_failed(run_id: int, error: str) -> None:
            from league.services import schedule_run_failed

            schedule_run_failed(run_id=run_id, error=error)

        def simulation_task():
            from league.tasks import simulation_job_task

            return simulation_job_task

        def simulation_failed(job_id: int, error: str) -> None:
            from league.services.simulations import simulation_job_failed

            simulation_job_failed(job_id=job_id, error=error)

        def standings_refresh(matches) -> None:
            from league.readmodel import matches_standings_refresh

            matches_standings_refresh(matches)

        def playoffs_after_confirm(match) -> None:
            from league.services import on_match_confirmed

            on_match_confirmed(match)

        jobs.register(
            jobs.JobKind(
                label="schedule run",
                model=ScheduleRun,
                task=schedule_task,
                open=Q(status=ScheduleRun.Status.PENDING),
                fail=schedule_failed,
                progress=league_progress.schedule_progress,
                describe=league_progress.schedule_message,
                related=("season__league",),
            )
        )
        # A simulation whose worker stopped is resumed by outbox.jobs (beat), idempotently.
        jobs.register(
            jobs.JobKind(
                label="simulation",
                model=SimulationJob,
                task=simulation_task,
                open=Q(status__in=[SimulationJob.Status.PENDING, SimulationJob.Status.RUNNING]),
                fail=simulation_failed,
                progress=league_progress.simulation_progress,
                describe=league_progress.simulation_message,
                related=("league", "season", "season__league", "match"),
            )
        )
        # A confirmed playoff game may complete its round (matches runs the hooks after commit).
        hooks.on_confirmed("league.playoffs", playoffs_after_confirm)
        # The league table's stored rows, in the transaction that confirms or voids a result.
        hooks.on_result_written("league.standings", standings_refresh)
