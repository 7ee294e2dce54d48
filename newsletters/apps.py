from django.apps import AppConfig
from django.db.models import Q


class NewslettersConfig(AppConfig):
    name = "newsletters"
    label = "newsletters"
    verbose_name = "Newsletters"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from common import invalidation
        from newsletters import progress as newsletter_progress
        from newsletters import tasks  # noqa: F401  (registers the tasks the services send by name)
        from newsletters.models import Newsletter
        from outbox import jobs
        from outbox.progress import ROW_WORDS

        def build_task():
            from newsletters.tasks import newsletter_build_task

            return newsletter_build_task

        def build_failed(newsletter_id: int, error: str) -> None:
            from newsletters.services import newsletter_build_failed

            newsletter_build_failed(newsletter_id=newsletter_id, error=error)

        def newsletters_leagues(by_kind: dict[str, set[int]]) -> set[str]:
            """A newsletter's rows (its deliveries) belong to its league's pages."""
            if ids := by_kind.get("newsletter"):
                leagues = Newsletter.objects.filter(pk__in=ids).values_list("league_id", flat=True)
                by_kind.setdefault("league", set()).update(leagues)
            return set()

        # Widens the seeds before common.invalidation turns them into scopes (after every expansion).
        invalidation.register_expansion(newsletters_leagues)

        # A draft whose build's worker stopped is rebuilt by outbox.jobs (beat): a build rewrites the draft.
        jobs.register(
            jobs.JobKind(
                label="newsletter build",
                model=Newsletter,
                task=build_task,
                open=Q(
                    status=Newsletter.Status.DRAFT,
                    build_status__in=[Newsletter.BuildStatus.PENDING, Newsletter.BuildStatus.RUNNING],
                ),
                fail=build_failed,
                task_id_field="build_task_id",
                progress=newsletter_progress.build_progress,
                describe=newsletter_progress.build_message,
                state_words=ROW_WORDS,
                related=("league",),
                may_view=newsletter_progress.may_view,
            )
        )
