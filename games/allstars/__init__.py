"""Ninja All-Stars, the game the site was built for: its rules are ``rules/engine/`` and its
Django side the ``teams`` and ``matches`` apps; this package only describes it beside the others."""

from games.base import GameInfo

GAME = GameInfo(
    key="allstars",
    name="Ninja All-Stars",
    # NAS: two teams meet in a match; the match model allows up to four sides (multi-team challenges).
    min_players=2,
    max_players=4,
    has_team_scrolls=True,
    has_challenges=True,
    entrant="team",
    entrants="teams",
    summary="Teams of a clan and its ronin, played under challenges; the league keeps every koban, XP and "
    "advancement after each match.",
    rules_pages=(
        ("Rules reference", "rules:index"),
        ("Challenges", "rules:challenges"),
        ("League tables", "rules:tables"),
        ("Combat odds", "rules:odds"),
    ),
)
