"""Leaderboards and records per season, per league and all time (issue 16, part 2).

Each board is one SQL query: an aggregate ranked by a window function (``RANK()``, so ties share
a place), cut to the first ``limit`` rows. The records that compare two sides of a match (biggest
win, biggest upset) and the longest unbeaten run (gaps and islands over each team's games in
order) are written in SQL, portable between PostgreSQL and SQLite (3.25+: window functions).

What counts (docs/stats.md): confirmed matches only; friendlies and playoffs count (they are games
played and earn XP and koban). Biggest win and biggest upset look at two-sided matches.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count, F, Q, Sum, Window
from django.db.models.functions import Rank
from django.urls import reverse

from games import registry
from league.models import League, Season
from matches.models import Match, MatchNinja, MatchTeam
from teams.models import Team, XpEvent

CONFIRMED = Match.Status.CONFIRMED
#: Rows per board.
LIMIT = 10


@dataclass(frozen=True)
class Scope:
    """All time (neither), one league, or one season of a league; all time is of one game
    (``game``: issue 28, part 5; None, every game, only for callers that ask for it), a league's
    and a season's are of the league's game."""

    league: League | None = None
    season: Season | None = None
    game: str | None = None

    def q(self, prefix: str) -> Q:
        """Confirmed matches in scope; ``prefix`` is the lookup path to the Match."""
        q = Q(**{f"{prefix}status": CONFIRMED})
        if self.season is not None:
            q &= Q(**{f"{prefix}season": self.season})
        elif self.league is not None:
            q &= Q(**{f"{prefix}league": self.league})
        elif self.game is not None:  # a match is of its sides' game (one game a match)
            q &= Q(**{f"{prefix}pk__in": MatchTeam.objects.filter(slot=1, team__game=self.game).values("match_id")})
        return q

    def sql(self, alias: str = "m") -> tuple[str, list]:
        """The same filter as SQL on the match table aliased ``alias``."""
        where, params = f"{alias}.status = %s", [CONFIRMED]
        if self.season is not None:
            where, params = where + f" AND {alias}.season_id = %s", [*params, self.season.pk]
        elif self.league is not None:
            where, params = where + f" AND {alias}.league_id = %s", [*params, self.league.pk]
        elif self.game is not None:
            sides, teams = MatchTeam._meta.db_table, Team._meta.db_table
            where += (
                f" AND {alias}.id IN (SELECT gs.match_id FROM {sides} gs JOIN {teams} gt ON gt.id = gs.team_id"
                " WHERE gs.slot = 1 AND gt.game = %s)"
            )
            params = [*params, self.game]
        return where, params

    @property
    def game_key(self) -> str | None:
        """The game of the scope: the league's, or the one chosen."""
        return self.league.game if self.league is not None else self.game

    @property
    def kind(self) -> str:
        return "season" if self.season is not None else "league" if self.league is not None else "all"

    def _url(self, names: tuple[str, str, str]) -> str:
        if self.season is not None:
            return reverse(names[2], kwargs={"slug": self.season.league.slug, "number": self.season.number})
        if self.league is not None:
            return reverse(names[1], kwargs={"slug": self.league.slug})
        return reverse(names[0])

    def _query(self) -> str:
        """All time's game, when it is not the first game (the addresses without one mean it)."""
        return f"?game={self.game}" if self.kind == "all" and self.game not in (None, registry.DEFAULT) else ""

    def page_url(self) -> str:
        """The leaderboards page of the scope."""
        return (
            self._url(("stats:leaderboards", "stats:league_leaderboards", "stats:season_leaderboards")) + self._query()
        )

    def csv_url(self) -> str:
        """Its CSV download (api.exports, named by string as every page names the downloads)."""
        return (
            self._url(
                ("exports:leaderboards_csv", "exports:league_leaderboards_csv", "exports:season_leaderboards_csv")
            )
            + self._query()
        )

    @property
    def title(self) -> str:
        if self.season is not None:
            return f"{self.season.league.name} — {self.season.name}"
        if self.league is not None:
            return f"{self.league.name}, all seasons"
        if self.game not in (None, registry.DEFAULT):  # the first game's all time is titled as before
            return f"Every league of {registry.get(self.game).name}, all time"
        return "All leagues, all time"


@dataclass(frozen=True)
class NinjaRow:
    rank: int
    ninja_id: int
    ninja: str
    team_id: int
    team: str
    value: int


@dataclass(frozen=True)
class TeamRow:
    rank: int
    team_id: int
    team: str
    value: int


@dataclass(frozen=True)
class MatchRow:
    """A match record: the winner, the side it beat, the score and the record's figure."""

    rank: int
    match_id: int
    winner_id: int
    winner: str
    loser_id: int
    loser: str
    winner_points: int
    loser_points: int
    value: int


@dataclass(frozen=True)
class RunRow:
    rank: int
    team_id: int
    team: str
    value: int  # games without a loss
    first_match_id: int
    last_match_id: int
    ongoing: bool


@dataclass(frozen=True)
class Board:
    key: str
    title: str
    unit: str
    kind: str  # "ninja", "team", "match" or "run": what a row links to
    rows: list = field(default_factory=list)


def _ranked(queryset, limit: int):
    return queryset.annotate(rank=Window(Rank(), order_by=F("value").desc())).order_by("rank", "sort_name", "sort_id")[
        :limit
    ]


def ninja_leaders(scope: Scope, feat: str, limit: int = LIMIT) -> list[NinjaRow]:
    """Ninja with the most of a feat (``injuries``, ``reveals``, ``all_star_awards``,
    ``chunin_stuns``) over their confirmed games in scope; one query."""
    if feat not in ("injuries", "reveals", "all_star_awards", "chunin_stuns"):
        raise ValueError(f"not a feat: {feat}")
    rows = (
        MatchNinja.objects.filter(scope.q("side__match__"))
        .values("ninja_id", "ninja__name", "ninja__team_id", "ninja__team__name")
        .annotate(value=Sum(feat), sort_name=F("ninja__name"), sort_id=F("ninja_id"))
        .filter(value__gt=0)
    )
    return [
        NinjaRow(r["rank"], r["ninja_id"], r["ninja__name"], r["ninja__team_id"], r["ninja__team__name"], r["value"])
        for r in _ranked(rows, limit)
    ]


def most_xp(scope: Scope, limit: int = LIMIT) -> list[NinjaRow]:
    """Ninja with the most XP earned in confirmed games in scope (match XP and downtime XP: every
    XP event of those matches), one query."""
    rows = (
        XpEvent.objects.filter(scope.q("match__"))
        .values("ninja_id", "ninja__name", "ninja__team_id", "ninja__team__name")
        .annotate(value=Sum("amount"), sort_name=F("ninja__name"), sort_id=F("ninja_id"))
        .filter(value__gt=0)
    )
    return [
        NinjaRow(r["rank"], r["ninja_id"], r["ninja__name"], r["ninja__team_id"], r["ninja__team__name"], r["value"])
        for r in _ranked(rows, limit)
    ]


def _team_leaders(scope: Scope, value, limit: int) -> list[TeamRow]:
    rows = (
        MatchTeam.objects.filter(scope.q("match__"))
        .values("team_id", "team__name")
        .annotate(value=value, sort_name=F("team__name"), sort_id=F("team_id"))
        .filter(value__gt=0)
    )
    return [TeamRow(r["rank"], r["team_id"], r["team__name"], r["value"]) for r in _ranked(rows, limit)]


def most_wins(scope: Scope, limit: int = LIMIT) -> list[TeamRow]:
    return _team_leaders(scope, Count("id", filter=Q(outcome=MatchTeam.Outcome.WIN)), limit)


def most_koban(scope: Scope, limit: int = LIMIT) -> list[TeamRow]:
    """Koban earned after games (revenue, underdog bonus koban, Shrewd Negotiator), one query."""
    return _team_leaders(scope, Sum("koban_earned"), limit)


def _tables() -> dict[str, str]:
    return {
        "match": Match._meta.db_table,
        "side": MatchTeam._meta.db_table,
        "team": Team._meta.db_table,
    }


def _match_records(scope: Scope, figure: str, condition: str, limit: int) -> list[MatchRow]:
    """Two-sided confirmed matches with a winner, ranked by ``figure`` (SQL over the winner's side
    ``w`` and the loser's ``l``), keeping those where ``condition`` holds."""
    t = _tables()
    where, params = scope.sql("m")
    sql = f"""
        SELECT ranked.* FROM (
            SELECT m.id AS match_id, w.team_id AS winner_id, tw.name AS winner, l.team_id AS loser_id,
                   tl.name AS loser, w.points AS winner_points, l.points AS loser_points,
                   {figure} AS value, RANK() OVER (ORDER BY {figure} DESC) AS rank
            FROM {t["match"]} m
            JOIN {t["side"]} w ON w.match_id = m.id AND w.outcome = 'win'
            JOIN {t["side"]} l ON l.match_id = m.id AND l.id <> w.id
            JOIN {t["team"]} tw ON tw.id = w.team_id
            JOIN {t["team"]} tl ON tl.id = l.team_id
            WHERE {where} AND {condition}
              AND (SELECT COUNT(*) FROM {t["side"]} s WHERE s.match_id = m.id) = 2
        ) ranked
        ORDER BY ranked.rank, ranked.match_id
        LIMIT %s
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, limit])
        names = [c[0] for c in cursor.description]
        return [MatchRow(**dict(zip(names, row, strict=True))) for row in cursor.fetchall()]


def biggest_wins(scope: Scope, limit: int = LIMIT) -> list[MatchRow]:
    """The widest winning margins (winner's points minus the loser's), one query."""
    return _match_records(scope, "(w.points - l.points)", "w.points > l.points", limit)


def biggest_upsets(scope: Scope, limit: int = LIMIT) -> list[MatchRow]:
    """Wins over a higher-rated opponent, by the rating gap at kick-off (the loser's team rating
    minus the winner's), one query."""
    return _match_records(scope, "(l.rating - w.rating)", "l.rating > w.rating", limit)


def longest_unbeaten_runs(scope: Scope, limit: int = LIMIT) -> list[RunRow]:
    """Each team's longest run of confirmed games without a loss (wins and draws), the teams
    ranked by it, in one query.

    Gaps and islands: each team's games are numbered in order (confirmation time, then match id);
    a running count of losses splits them into runs; a run's games are its non-losses. A team's
    best run is its longest (the latest of equal ones); ``ongoing`` when it reaches the team's last
    game in scope.
    """
    t = _tables()
    where, params = scope.sql("m")
    sql = f"""
        WITH games AS (
            SELECT s.team_id, m.id AS match_id, s.outcome,
                   ROW_NUMBER() OVER (PARTITION BY s.team_id ORDER BY COALESCE(m.confirmed_at, m.created_at), m.id) AS n
            FROM {t["side"]} s JOIN {t["match"]} m ON m.id = s.match_id
            WHERE {where}
        ), grouped AS (
            SELECT team_id, match_id, outcome, n,
                   SUM(CASE WHEN outcome = 'loss' THEN 1 ELSE 0 END)
                       OVER (PARTITION BY team_id ORDER BY n ROWS UNBOUNDED PRECEDING) AS run,
                   MAX(n) OVER (PARTITION BY team_id) AS last_n
            FROM games
        ), runs AS (
            SELECT team_id, run, COUNT(*) AS length, MIN(n) AS first_n, MAX(n) AS end_n, MAX(last_n) AS last_n
            FROM grouped WHERE outcome <> 'loss'
            GROUP BY team_id, run
        ), best AS (
            SELECT runs.*, ROW_NUMBER() OVER (PARTITION BY team_id ORDER BY length DESC, first_n DESC) AS pick
            FROM runs
        )
        SELECT RANK() OVER (ORDER BY b.length DESC) AS rank, b.team_id, t.name AS team, b.length AS value,
               g1.match_id AS first_match_id, g2.match_id AS last_match_id,
               CASE WHEN b.end_n = b.last_n THEN 1 ELSE 0 END AS ongoing
        FROM best b
        JOIN {t["team"]} t ON t.id = b.team_id
        JOIN games g1 ON g1.team_id = b.team_id AND g1.n = b.first_n
        JOIN games g2 ON g2.team_id = b.team_id AND g2.n = b.end_n
        WHERE b.pick = 1
        ORDER BY rank, t.name, b.team_id
        LIMIT %s
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, limit])
        names = [c[0] for c in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    return [RunRow(**{**row, "ongoing": bool(row["ongoing"])}) for row in rows]


#: Every board and record: key -> (title, unit, what a row links to, the selector). The pages, the
#: API (api.views.LeaderboardList) and the CSV downloads (api.exports) all read them from here.
BOARDS = {
    "xp": ("Most XP", "XP", "ninja", most_xp),
    "injuries": ("Most injuries inflicted", "injuries", "ninja", lambda s, n: ninja_leaders(s, "injuries", n)),
    "reveals": ("Most reveals", "reveals", "ninja", lambda s, n: ninja_leaders(s, "reveals", n)),
    "all_stars": ("Most All-Star awards", "awards", "ninja", lambda s, n: ninja_leaders(s, "all_star_awards", n)),
    "wins": ("Most wins", "wins", "team", most_wins),
    "unbeaten": ("Longest unbeaten run", "games", "run", longest_unbeaten_runs),
    "koban": ("Most koban earned", "koban", "team", most_koban),
    "biggest_win": ("Biggest win", "points", "match", biggest_wins),
    "biggest_upset": ("Biggest upset (rating gap)", "rating", "match", biggest_upsets),
}
BOARD_KEYS = tuple(BOARDS)
#: The most rows a board may be asked for (the API's ``limit``, the CSV downloads).
MAX_LIMIT = 100


def leaderboards(scope: Scope, limit: int = LIMIT, keys: list[str] | None = None) -> list[Board]:
    """Every board and record of the scope (or those of ``keys``, in the boards' order): one query
    a board, whatever the number of matches."""
    if keys is not None and not set(keys) <= set(BOARDS):
        raise ValueError(f"not a board: {sorted(set(keys) - set(BOARDS))}")
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit out of range: {limit}")
    return [
        Board(key, title, unit, kind, rows(scope, limit))
        for key, (title, unit, kind, rows) in BOARDS.items()
        if keys is None or key in keys
    ]
