from django.apps import AppConfig


class LeagueConfig(AppConfig):
    name = "league"
    label = "league"
    verbose_name = "Leagues"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_migrate

        from league import pagecache, periodic

        # The page cache's data version moves when a transaction that wrote site data commits.
        connection_created.connect(pagecache.watch_writes, dispatch_uid="league.pagecache.watch_writes")
        # Every migrate makes the missing periodic tasks (league/periodic.py): recovery runs by itself.
        post_migrate.connect(periodic.ensure_after_migrate, sender=self, dispatch_uid="league.periodic")
