"""What every page's frame (templates/base.html) shows: the games the site runs leagues of, from
the registry (no query), so its footer names them all alike (issue 28, part 6); and the rules
pages' section navigation's entries of each game with pages of its own (``Game.rules_nav``)."""

from __future__ import annotations

from django.http import HttpRequest

from games import registry


def site_games(request: HttpRequest) -> dict:
    return {
        "site_games": list(registry.GAMES.values()),
        "games_rules_nav": [entry for game in registry.sites().values() for entry in game.rules_nav],
    }
