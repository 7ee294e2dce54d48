from django.apps import AppConfig


class StatsConfig(AppConfig):
    name = "stats"
    label = "stats"
    verbose_name = "Statistics"

    def ready(self) -> None:
        from matches import hooks

        # Each game's statistics are its Game's (games.protocol), registered with the game.

        def recompute_ratings(match_id: int) -> None:
            from outbox.dispatch import dispatch_now
            from stats.tasks import ratings_recompute_task

            dispatch_now(
                ratings_recompute_task, kwargs={"match_id": match_id}, description="Recompute strength ratings"
            )

        # After every confirmed or voided result (after commit): the ratings follow the history.
        hooks.on_result_changed("stats.ratings", recompute_ratings)
