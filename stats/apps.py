from django.apps import AppConfig


class StatsConfig(AppConfig):
    name = "stats"
    label = "stats"
    verbose_name = "Statistics"
