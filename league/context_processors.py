"""What every page's frame (templates/base.html) shows: the games the site runs leagues of, from
the registry (no query), so its footer names them all alike (issue 28, part 6)."""

from __future__ import annotations

from django.http import HttpRequest

from games import registry


def site_games(request: HttpRequest) -> dict:
    return {"site_games": list(registry.GAMES.values())}
