from django.apps import AppConfig
from django.db.models import Q


class MatchesConfig(AppConfig):
    name = "matches"

    def ready(self) -> None:
        from matches.models import SimulationJob
        from outbox import jobs

        def simulation_task():
            from matches.tasks import simulation_job_task

            return simulation_job_task

        def simulation_failed(job_id: int, error: str) -> None:
            from matches.simulation import simulation_job_failed

            simulation_job_failed(job_id=job_id, error=error)

        # A simulation whose worker stopped is resumed by outbox.jobs (beat), idempotently.
        jobs.register(
            jobs.JobKind(
                label="simulation",
                model=SimulationJob,
                task=simulation_task,
                open=Q(status__in=[SimulationJob.Status.PENDING, SimulationJob.Status.RUNNING]),
                fail=simulation_failed,
            )
        )
