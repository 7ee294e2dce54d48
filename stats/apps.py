from django.apps import AppConfig


class StatsConfig(AppConfig):
    name = "stats"
    label = "stats"
    verbose_name = "Statistics"

    def ready(self) -> None:
        from games import registry
        from league import games
        from matches import hooks
        from stats.selectors.balance import balance

        # The All-Stars statistics the site has today: the balance of clans, profiles and challenges.
        games.register_statistics(registry.ALLSTARS, balance)
        # The players' games' statistics (stats.games): Ninjutsu's and Kage Masters' own figures.
        from stats.games import STATISTICS

        for key, statistics in STATISTICS.items():
            games.register_statistics(key, statistics)

        def recompute_ratings(match_id: int) -> None:
            from outbox.dispatch import dispatch_now
            from stats.tasks import ratings_recompute_task

            dispatch_now(
                ratings_recompute_task, kwargs={"match_id": match_id}, description="Recompute strength ratings"
            )

        # After every confirmed or voided result (after commit): the ratings follow the history.
        hooks.on_result_changed("stats.ratings", recompute_ratings)
