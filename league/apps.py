from django.apps import AppConfig


class LeagueConfig(AppConfig):
    name = "league"
    label = "league"
    verbose_name = "Leagues"
