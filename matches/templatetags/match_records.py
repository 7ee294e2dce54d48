"""A team's game records on its scroll (teams/team_detail.html).

The scroll is the teams app's page; the games are matches'. The page loads this tag so that teams
imports nothing of matches (docs/architecture.md, "Dependencies").
"""

from __future__ import annotations

from django import template

from matches import selectors

register = template.Library()

#: Games on the scroll's screen (the print stylesheet keeps 12); ``?games=all`` lists every one.
SCROLL_GAMES = 20


@register.inclusion_tag("matches/includes/_team_game_records.html", takes_context=True)
def team_game_records(context, team) -> dict:
    records = selectors.team_game_records(team)
    more_records = False
    if context["request"].GET.get("games") != "all":
        records = list(records[: SCROLL_GAMES + 1])
        more_records = len(records) > SCROLL_GAMES
        records = records[:SCROLL_GAMES]
    return {"records": [selectors.game_record_line(side) for side in records], "more_records": more_records}
