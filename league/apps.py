from django.apps import AppConfig


class LeagueConfig(AppConfig):
    name = "league"
    label = "league"
    verbose_name = "Leagues"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from league import pagecache

        # The page cache's data version moves when a transaction that wrote site data commits.
        connection_created.connect(pagecache.watch_writes, dispatch_uid="league.pagecache.watch_writes")
