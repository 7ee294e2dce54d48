"""Reads for leagues: the league table (SQL aggregation), fixtures by round, next fixtures, the
playoff bracket. Every function runs a fixed number of queries whatever the size of the season.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Count, F, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from league.models import REGULAR_STAGE, BracketSlot, Bye, League, Season, SeasonEntry
from matches.models import Match, MatchTeam
from rules.engine import league as rules_league
from rules.engine import standings
from teams.models import Team
from teams.selectors import rating_prefetch, team_snapshot

WIN, DRAW, LOSS = MatchTeam.Outcome.WIN, MatchTeam.Outcome.DRAW, MatchTeam.Outcome.LOSS


def counted_matches_q(season: Season, prefix: str = "") -> Q:
    """Matches that count in the league table: the season's confirmed regular-season games, no
    friendlies. ``prefix`` is the lookup path to the Match (e.g. ``"match__"``)."""
    return Q(
        **{
            f"{prefix}season": season,
            f"{prefix}status": Match.Status.CONFIRMED,
            f"{prefix}friendly": False,
            f"{prefix}stage": REGULAR_STAGE,
        }
    )


@dataclass
class TableRow:
    team: Team
    played: int
    won: int
    drawn: int
    lost: int
    points: int
    points_for: int
    points_against: int
    rating: int
    position: int = 0

    @property
    def points_difference(self) -> int:
        return self.points_for - self.points_against

    def standing(self) -> standings.Standing:
        """The figures the table's order is decided on."""
        return standings.Standing(
            team_id=self.team.pk,
            name=self.team.name,
            points=self.points,
            points_for=self.points_for,
            points_against=self.points_against,
            won=self.won,
            rating=self.rating,
        )

    def as_dict(self) -> dict:
        return {
            "position": self.position,
            "team_id": self.team.pk,
            "team": self.team.name,
            "owner": self.team.owner.username,
            "clan": self.team.clan.name,
            "played": self.played,
            "won": self.won,
            "drawn": self.drawn,
            "lost": self.lost,
            "points": self.points,
            "points_for": self.points_for,
            "points_against": self.points_against,
            "points_difference": self.points_difference,
            "rating": self.rating,
        }


def table_queryset(season: Season) -> QuerySet:
    """The season's teams annotated with their record, in one SQL query.

    Played/won/drawn/lost and points scored are filtered aggregates over the team's MatchTeam
    rows; league points are computed from those counts with the season's rules. Points conceded
    come from `points_in_matches` (one grouped query), not a correlated subquery per team.
    """
    counted = counted_matches_q(season, "match_sides__match__")
    zero = Value(0)
    return (
        Team.objects.filter(season_entries__season=season)
        .select_related("owner", "clan")
        .annotate(
            played=Count("match_sides", filter=counted),
            won=Count("match_sides", filter=counted & Q(match_sides__outcome=WIN)),
            drawn=Count("match_sides", filter=counted & Q(match_sides__outcome=DRAW)),
            lost=Count("match_sides", filter=counted & Q(match_sides__outcome=LOSS)),
            points_for=Coalesce(Sum("match_sides__points", filter=counted), zero),
        )
        .annotate(
            league_points=F("won") * season.points_win
            + F("drawn") * season.points_draw
            + F("lost") * season.points_loss,
        )
        .prefetch_related(rating_prefetch())
        .order_by("id")
    )


def points_in_matches(season: Season) -> dict[int, int]:
    """{team id: all points scored in its counted matches, by every side}, in one grouped query.
    Points conceded are this total minus the team's own points."""
    rows = (
        MatchTeam.objects.filter(counted_matches_q(season, "match__"))
        .order_by()
        .values("team_id")
        .annotate(total=Sum("match__sides__points"))
    )
    return {row["team_id"]: row["total"] or 0 for row in rows}


def head_to_head(season: Season) -> dict[tuple[int, int], int]:
    """League points each team took from each opponent, {(team, opponent): points}, in one query.

    A self-join aggregation: each counted MatchTeam row gets its opponent's team id from a
    correlated subquery, then rows are grouped by (team, opponent).
    """
    opponent = MatchTeam.objects.filter(match=OuterRef("match")).exclude(team=OuterRef("team")).values("team")[:1]
    rows = (
        MatchTeam.objects.filter(counted_matches_q(season, "match__"))
        .annotate(opponent=Subquery(opponent))
        .order_by()
        .values("team_id", "opponent")
        .annotate(
            won=Count("id", filter=Q(outcome=WIN)),
            drawn=Count("id", filter=Q(outcome=DRAW)),
            lost=Count("id", filter=Q(outcome=LOSS)),
        )
    )
    return {
        (r["team_id"], r["opponent"]): r["won"] * season.points_win
        + r["drawn"] * season.points_draw
        + r["lost"] * season.points_loss
        for r in rows
    }


def rank_rows(rows: list[TableRow], tie_breakers: Iterable[str], h2h: dict[tuple[int, int], int]) -> list[TableRow]:
    """The rows in table order (``rules.engine.standings.rank``: league points, then each
    tie-breaker in turn), with their positions set. An unknown tie-breaker raises ValueError."""
    by_team = {row.team.pk: row for row in rows}
    ranked = [
        by_team[s.team_id] for s in standings.rank([row.standing() for row in rows], tie_breakers, head_to_head=h2h)
    ]
    for i, row in enumerate(ranked, start=1):
        row.position = i
    return ranked


def league_table(season: Season) -> list[TableRow]:
    """The season's league table, sorted with its tie-breakers (a fixed number of queries:
    the aggregated teams, their rosters for the rating, and the head-to-head aggregation)."""
    totals = points_in_matches(season)
    rows = [
        TableRow(
            team=t,
            played=t.played,
            won=t.won,
            drawn=t.drawn,
            lost=t.lost,
            points=t.league_points,
            points_for=t.points_for,
            points_against=totals.get(t.pk, 0) - t.points_for,
            rating=rules_league.team_rating(team_snapshot(t, t.roster)),
        )
        for t in table_queryset(season)
    ]
    tie_breakers = standings.parse_tie_breakers(season.tie_breaker_list)
    h2h = head_to_head(season) if standings.TieBreaker.HEAD_TO_HEAD in tie_breakers and rows else {}
    return rank_rows(rows, tie_breakers, h2h)


# --- fixtures ------------------------------------------------------------------------------------


def sides_prefetch() -> Prefetch:
    return Prefetch("sides", queryset=MatchTeam.objects.select_related("team", "team__owner").order_by("slot"))


@dataclass
class RoundGroup:
    stage: str
    round_number: int | None
    matches: list[Match] = field(default_factory=list)
    byes: list[Bye] = field(default_factory=list)

    @property
    def title(self) -> str:
        if self.stage.startswith("playoff-"):
            return f"Playoffs, round {self.round_number}"
        if self.round_number is None:
            return "Arranged games"
        return f"Round {self.round_number}"

    @property
    def is_playoff(self) -> bool:
        return self.stage.startswith("playoff-")


def season_matches(season: Season) -> QuerySet:
    return (
        Match.objects.filter(season=season)
        .select_related("challenge", "league")
        .prefetch_related(sides_prefetch())
        .order_by("stage", "round_number", "id")
    )


def season_rounds(season: Season) -> list[RoundGroup]:
    """Fixtures grouped by round (regular rounds, arranged games, playoff rounds), with byes."""
    groups: dict[tuple[str, int | None], RoundGroup] = {}
    for match in season_matches(season):
        key = (match.stage, match.round_number)
        groups.setdefault(key, RoundGroup(stage=match.stage, round_number=match.round_number)).matches.append(match)
    for bye in Bye.objects.filter(season=season).select_related("team"):
        key = (bye.stage, bye.round_number)
        groups.setdefault(key, RoundGroup(stage=bye.stage, round_number=bye.round_number)).byes.append(bye)

    def order(g: RoundGroup):
        playoff = int(g.stage.split("-")[1]) if g.is_playoff else 0
        return (g.is_playoff, playoff, g.round_number is None, g.round_number or 0)

    return sorted(groups.values(), key=order)


def next_fixtures(season: Season) -> dict[int, Match]:
    """Each team's next fixture to play (earliest round, then date, then creation), two queries."""
    result: dict[int, Match] = {}
    scheduled = season_matches(season).filter(status=Match.Status.SCHEDULED)
    matches = sorted(
        scheduled,
        key=lambda m: (
            m.stage.startswith("playoff-"),
            int(m.stage.split("-")[1]) if m.stage.startswith("playoff-") else 0,
            m.round_number or 0,
            m.date is None,
            m.date or 0,
            m.pk,
        ),
    )
    for match in matches:
        for side in match.sides.all():
            result.setdefault(side.team_id, match)
    return result


def bracket(season: Season) -> list[list[BracketSlot]]:
    """Playoff rounds (first round first), each a list of slots with teams and match results."""
    slots = (
        BracketSlot.objects.filter(season=season)
        .select_related("home", "away", "winner", "match")
        .prefetch_related(Prefetch("match__sides", queryset=MatchTeam.objects.order_by("slot")))
        .order_by("round_number", "slot")
    )
    rounds: dict[int, list[BracketSlot]] = {}
    for slot in slots:
        rounds.setdefault(slot.round_number, []).append(slot)
    return [rounds[r] for r in sorted(rounds)]


# --- leagues -------------------------------------------------------------------------------------


def leagues_for_list() -> QuerySet:
    return (
        League.objects.select_related("master")
        .annotate(team_count=Count("teams", filter=Q(teams__entry_status=Team.EntryStatus.ACCEPTED), distinct=True))
        .prefetch_related(
            Prefetch("seasons", queryset=Season.objects.exclude(status=Season.Status.FINISHED), to_attr="current")
        )
        .order_by("name")
    )


def league_teams(league: League) -> QuerySet:
    return Team.objects.filter(league=league).select_related("owner", "clan").order_by("entry_status", "name")


def season_entries(season: Season) -> QuerySet:
    return SeasonEntry.objects.filter(season=season).select_related("team", "team__owner", "team__clan")
