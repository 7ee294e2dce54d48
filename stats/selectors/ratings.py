"""The strength ratings as listed: the ratings pages (stats.views) and the API (api.views.RatingList)
read them here, so both list the same rows in the same order.

Every list is of one game (issue 28, part 5): a team's rating is its game's, and a coach (a player)
has one rating a game. Ratings of different games are on different scales from different games
and are never added, averaged or ranked together; the club board (:func:`club_board`) sets them
side by side, a column a game (docs/ratings.md, "By game").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from games import registry
from games.base import GameInfo
from league.models import League
from teams.models import StrengthRating, Team

GLICKO2, PLACKETT_LUCE = StrengthRating.System.GLICKO2, StrengthRating.System.PLACKETT_LUCE


def systems_of(game: str) -> list[str]:
    """The rating systems a game's games are rated by, its own first: a table game's every game by
    Plackett-Luce; a game of two sides by Glicko-2, and by Plackett-Luce too when a match may have
    more sides (All-Stars' 3- and 4-team matches)."""
    info = registry.get(game)
    if info.strength_system == PLACKETT_LUCE:
        return [PLACKETT_LUCE]
    return [GLICKO2, PLACKETT_LUCE] if info.max_players > 2 else [GLICKO2]


def _sizes(low: int, high: int) -> str:
    return str(low) if low == high else f"{low} or {high}" if high == low + 1 else f"{low} to {high}"


def system_note(game: str, system: str) -> str:
    """What a system rates in ``game``, in the game's words ("3- and 4-team matches" is All-Stars'
    only: a Kage table seats up to five players)."""
    info = registry.get(game)
    if system == PLACKETT_LUCE:
        low = info.min_players if info.strength_system == PLACKETT_LUCE else 3
        return f"Plackett–Luce for every game of {_sizes(low, info.max_players)} {info.entrants}: mu ± 3 sigma"
    return f"Glicko-2 for games of two {info.entrants}: the rating ± 2 RD (about a 95% interval)"


def system_label(game: str, system: str) -> str:
    info = registry.get(game)
    if system == PLACKETT_LUCE:
        low = info.min_players if info.strength_system == PLACKETT_LUCE else 3
        return f"Plackett–Luce (tables of {_sizes(low, info.max_players)})"
    return "Glicko-2 (one on one)"


def strength_ratings(
    *, coaches: bool, system: str, game: str | None = None, league: League | None = None
) -> QuerySet[StrengthRating]:
    """The teams' (or coaches') ratings of one game and system, best first (the rating itself, then id).

    ``game``: the game's ratings (default: the league's game, else the first game). ``league``: its
    teams (a team's current league), or the coaches with a team in it, with their rating in the
    league's game (a coach's rating of a game counts every league of it). A league of another game
    than ``game`` lists nothing: the callers refuse that combination first."""
    game = game or (league.game if league is not None else registry.DEFAULT)
    rows = StrengthRating.objects.filter(system=system, game=game)
    if coaches:
        rows = rows.filter(coach__isnull=False).select_related("coach")
        if league is not None:
            rows = rows.filter(game=league.game, coach__in=Team.objects.filter(league=league).values("owner"))
    else:
        rows = rows.filter(team__isnull=False).select_related("team", "team__owner", "team__clan", "team__league")
        if league is not None:
            rows = rows.filter(team__league=league)
    return rows.order_by("-rating", "id")


# --- the club board: members across games, a column a game -------------------------------------------


def _own_system(alias: str = "") -> Q:
    """A rating in its game's own system (the league table's Str.): one a member and game."""
    q = Q(pk__in=[])
    for info in registry.GAMES.values():
        q |= Q(**{f"{alias}game": info.key, f"{alias}system": info.strength_system})
    return q


@dataclass(frozen=True)
class ClubCell:
    """A member's rating in one game: its own scale, and the place among the game's rated members."""

    rating: StrengthRating
    rank: int
    of: int


@dataclass
class ClubRow:
    member: object
    games: int
    cells: dict[str, ClubCell] = field(default_factory=dict)

    def cells_in(self, columns: list[GameInfo]) -> list[ClubCell | None]:
        return [self.cells.get(info.key) for info in columns]


#: The club board's orders: by the games played (every game's count, the default), by name, or by
#: one game's rating (its members first, best first; the others after, by name).
CLUB_ORDERS = ["games", "name", *registry.GAMES]


def club_members(*, league: League | None = None, order: str = "games") -> QuerySet:
    """The members with a rating in some game (each game's own system), ordered by ``order``
    (:data:`CLUB_ORDERS`), annotated with ``rated_games``: the games rated, every game's count (a
    count of games played adds up across games; a rating does not, and is not added). ``league``:
    the members with a team or entry in it."""
    own = StrengthRating.objects.filter(_own_system()).filter(coach=OuterRef("pk"))
    members = (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(pk__in=StrengthRating.objects.filter(_own_system(), coach__isnull=False).values("coach"))
        .annotate(
            rated_games=Coalesce(Subquery(own.values("coach").annotate(n=Sum("games")).values("n")[:1]), Value(0))
        )
    )
    if league is not None:
        members = members.filter(pk__in=Team.objects.filter(league=league).values("owner"))
    if order in registry.GAMES:
        info = registry.get(order)
        in_game = StrengthRating.objects.filter(coach=OuterRef("pk"), game=info.key, system=info.strength_system)
        members = members.annotate(order_rating=Subquery(in_game.values("rating")[:1])).order_by(
            F("order_rating").desc(nulls_last=True), "username"
        )
    elif order == "name":
        members = members.order_by("username")
    else:
        members = members.order_by("-rated_games", "username")
    return members.only("id", "username")


def club_rows(members) -> list[ClubRow]:
    """Each member's rating in each game, with its place in the game's list of rated members (RANK:
    those rated higher, plus one) and how many that list has: two queries whatever the page."""
    members = list(members)
    ranked = (
        StrengthRating.objects.filter(_own_system(), coach__in=[m.pk for m in members])
        .annotate(
            higher=Coalesce(
                Subquery(
                    StrengthRating.objects.filter(
                        coach__isnull=False,
                        game=OuterRef("game"),
                        system=OuterRef("system"),
                        rating__gt=OuterRef("rating"),
                    )
                    .values("game")
                    .annotate(n=Count("id"))
                    .values("n")[:1]
                ),
                Value(0),
            )
        )
        .order_by()
    )
    totals = dict(
        StrengthRating.objects.filter(_own_system(), coach__isnull=False)
        .values("game")
        .annotate(n=Count("id"))
        .values_list("game", "n")
        .order_by()
    )
    rows = {m.pk: ClubRow(member=m, games=getattr(m, "rated_games", 0)) for m in members}
    for rating in ranked:
        rows[rating.coach_id].cells[rating.game] = ClubCell(rating, rating.higher + 1, totals.get(rating.game, 0))
    return [rows[m.pk] for m in members]
