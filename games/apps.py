"""Registers each game of the ``MOONLIGHT_GAMES`` setting (docs/architecture.md, "A game is one
package"). Listed last in INSTALLED_APPS: a game's Django side imports the core apps' models and
services, which are ready by then; the core reaches it only through ``games.registry``."""

from importlib import import_module

from django.apps import AppConfig
from django.conf import settings


class GamesConfig(AppConfig):
    name = "games"
    label = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from games import registry

        for path in settings.MOONLIGHT_GAMES:
            module = import_module(path)
            registry.register(module.GAME_SITE)
