"""Helpers for the players' games' tests (Ninjutsu, Kage Masters): a season of players, stored
strength ratings, and simulated or recorded results."""

from __future__ import annotations

from games import registry as games
from league import services
from league.models import Season
from matches.models import Match
from teams.models import StrengthRating, Team
from tests.factories import LeagueFactory, UserFactory


def players_season(n: int, *, game: str = games.NINJUTSU, format: str | None = None, **season_kw) -> Season:
    """A league of ``game`` with an open season and ``n`` players accepted ("Player 1".."Player n");
    by default a round robin, or self-arranged for a game played at tables (its fixtures made by
    the test)."""
    if format is None:
        format = Season.Format.SELF_ARRANGED if games.get(game).plays_at_tables else Season.Format.ROUND_ROBIN
    league = LeagueFactory(game=game)
    season = services.season_create(league=league, format=format, **season_kw)
    for i in range(n):
        services.application_accept(
            team=services.player_apply(user=UserFactory(), league=league, display_name=f"Player {i + 1}")
        )
    return season


def players(season: Season) -> list[Team]:
    """The season's players in the order they joined."""
    return [e.team for e in season.entries.select_related("team").order_by("team_id")]


def rate(team: Team, *, glicko: float | None = None, mu: float | None = None) -> None:
    """Store a player's strength rating (Glicko-2 ``glicko`` with RD 50; Plackett-Luce ``mu`` with sigma 2)."""
    if glicko is not None:
        StrengthRating.objects.update_or_create(
            team=team,
            system=StrengthRating.System.GLICKO2,
            defaults={"rating": glicko, "deviation": 50.0, "volatility": 0.06, "games": 30},
        )
    if mu is not None:
        StrengthRating.objects.update_or_create(
            team=team,
            system=StrengthRating.System.PLACKETT_LUCE,
            defaults={"rating": mu, "deviation": 2.0, "volatility": None, "games": 30},
        )


def records(season: Season) -> dict[int, dict]:
    """{match id: its record} of the season's confirmed matches."""
    return dict(season.matches.filter(status=Match.Status.CONFIRMED).values_list("pk", "submitted_record"))
