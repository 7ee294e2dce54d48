"""Balance statistics (issue 16, part 3): clan against clan, win rate by clan and challenge, the
first player's advantage, the rating gap's effect, the underdog bonuses' effect.

Every figure comes from confirmed two-team matches (a 3- or 4-team game has no single opponent),
each seen from both sides: one row per side with its opponent's clan and rating. A win rate is
wins out of games, a draw is not a win; each carries its 95% Wilson interval (stats.intervals).
Mirror matches (a clan against itself) are left out of the clan and challenge win rates, where
they would add one win and one loss each; the matrix shows how many there were.

Six grouped queries over the same set of sides, plus the clans and challenges: a fixed number
whatever the number of matches.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection

from league.models import League, Season
from matches.models import Match, MatchTeam
from rules.models import Challenge, Clan
from stats.intervals import NO_GAMES, Rate
from teams.models import Team

CONFIRMED = Match.Status.CONFIRMED

#: Rating-gap bins (inclusive bounds; None: no upper bound), from the higher-rated side.
GAP_BINS: tuple[tuple[int, int | None], ...] = ((1, 2), (3, 5), (6, 10), (11, 20), (21, None))


@dataclass(frozen=True)
class BalanceFilter:
    league: League | None = None
    season: Season | None = None
    kind: str = "all"  # "all", "played" (at the table) or "simulated"

    def sql(self) -> tuple[str, list]:
        where, params = ["m.status = %s"], [CONFIRMED]
        if self.season is not None:
            where.append("m.season_id = %s")
            params.append(self.season.pk)
        elif self.league is not None:
            where.append("m.league_id = %s")
            params.append(self.league.pk)
        if self.kind in ("played", "simulated"):
            where.append("m.simulated = %s")
            params.append(self.kind == "simulated")
        return " AND ".join(where), params


def _sides_cte(f: BalanceFilter) -> tuple[str, list]:
    where, params = f.sql()
    side, match, team = MatchTeam._meta.db_table, Match._meta.db_table, Team._meta.db_table
    return (
        f"""
        WITH sides AS (
            SELECT s.slot, s.outcome, ts.clan_id AS clan, tp.clan_id AS opp_clan, m.challenge_id AS challenge,
                   s.rating AS rating, o.rating AS opp_rating,
                   (s.reroll_tokens + s.moon_power_tokens + s.extra_all_stars + s.bonus_koban) AS bonus
            FROM {side} s
            JOIN {match} m ON m.id = s.match_id
            JOIN {side} o ON o.match_id = s.match_id AND o.id <> s.id
            JOIN {team} ts ON ts.id = s.team_id
            JOIN {team} tp ON tp.id = o.team_id
            WHERE {where} AND s.outcome IN ('win', 'draw', 'loss')
              AND (SELECT COUNT(*) FROM {side} x WHERE x.match_id = m.id) = 2
        )
        """,
        params,
    )


_COUNTS = """
    SUM(CASE WHEN outcome = 'win' THEN 1 ELSE 0 END) AS wins,
    SUM(CASE WHEN outcome = 'draw' THEN 1 ELSE 0 END) AS draws,
    SUM(CASE WHEN outcome = 'loss' THEN 1 ELSE 0 END) AS losses
"""


def _grouped(f: BalanceFilter, keys: str, where: str = "1 = 1") -> dict[tuple, Rate]:
    """{(key values): Rate} of the sides grouped by ``keys`` (SQL expressions), one query."""
    cte, params = _sides_cte(f)
    sql = f"{cte} SELECT {keys}, {_COUNTS} FROM sides WHERE {where} GROUP BY {keys}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        width = len(cursor.description) - 3
        return {tuple(row[:width]): Rate(int(row[width]), int(row[width + 1]), int(row[width + 2])) for row in cursor}


@dataclass
class Cell:
    rate: Rate
    mirror_games: int = 0  # on the diagonal: games of the clan against itself


@dataclass
class BalanceStats:
    filter: BalanceFilter
    clans: list[Clan]
    challenges: list[Challenge]
    matrix: dict[tuple[int, int], Rate]  # (clan, opponent clan) -> the clan's record
    mirrors: dict[int, int]  # clan -> mirror games
    by_clan: dict[int, Rate]
    by_clan_challenge: dict[tuple[int, int], Rate]
    first_player: Rate
    first_player_by_challenge: dict[int, Rate]
    gap_bins: list[tuple[str, Rate]]  # the higher-rated side's record per bin
    equal_ratings: int  # games between sides of equal rating (not in any bin)
    underdog: list[tuple[str, Rate]]  # the lower-rated side's record, with and without bonuses
    games: int = 0
    notes: list[str] = field(default_factory=list)

    def matrix_rows(self) -> list[tuple[Clan, list[Cell]]]:
        return [
            (
                clan,
                [
                    Cell(
                        self.matrix.get((clan.pk, opp.pk), NO_GAMES) if clan.pk != opp.pk else NO_GAMES,
                        self.mirrors.get(clan.pk, 0) if clan.pk == opp.pk else 0,
                    )
                    for opp in self.clans
                ],
            )
            for clan in self.clans
        ]

    def clan_challenge_rows(self) -> list[tuple[Clan, Rate, list[Rate]]]:
        return [
            (
                clan,
                self.by_clan.get(clan.pk, NO_GAMES),
                [self.by_clan_challenge.get((clan.pk, ch.pk), NO_GAMES) for ch in self.challenges],
            )
            for clan in self.clans
        ]


def gap_label(low: int, high: int | None) -> str:
    if high is None:
        return f"{low}+"
    return str(low) if low == high else f"{low}–{high}"


def _gap_case() -> str:
    cases = " ".join(
        f"WHEN rating - opp_rating >= {low}"
        + (f" AND rating - opp_rating <= {high}" if high is not None else "")
        + f" THEN {i}"
        for i, (low, high) in enumerate(GAP_BINS)
    )
    return f"CASE {cases} END"


def balance(f: BalanceFilter) -> BalanceStats:
    """Every balance figure for the filter, in eight queries."""
    clans = list(Clan.objects.order_by("order", "name"))
    challenges = list(Challenge.objects.order_by("name"))
    pairs = _grouped(f, "clan, opp_clan")
    matrix = {key: rate for key, rate in pairs.items() if key[0] != key[1]}
    mirrors = {key[0]: rate.n // 2 for key, rate in pairs.items() if key[0] == key[1]}
    by_clan = {key[0]: rate for key, rate in _grouped(f, "clan", "clan <> opp_clan").items()}
    by_clan_challenge = _grouped(f, "clan, challenge", "clan <> opp_clan AND challenge IS NOT NULL")
    first = _grouped(f, "challenge", "slot = 1")
    first_player = sum(first.values(), NO_GAMES)
    rated = "rating IS NOT NULL AND opp_rating IS NOT NULL"
    bins = _grouped(f, _gap_case(), f"{rated} AND rating > opp_rating")
    equal = sum(_grouped(f, "slot", f"{rated} AND rating = opp_rating AND slot = 1").values(), NO_GAMES)
    underdog = _grouped(f, "CASE WHEN bonus > 0 THEN 1 ELSE 0 END", f"{rated} AND rating < opp_rating")
    return BalanceStats(
        filter=f,
        clans=clans,
        challenges=challenges,
        matrix=matrix,
        mirrors=mirrors,
        by_clan=by_clan,
        by_clan_challenge=by_clan_challenge,
        first_player=first_player,
        first_player_by_challenge={key[0]: rate for key, rate in first.items() if key[0] is not None},
        gap_bins=[(gap_label(low, high), bins.get((i,), NO_GAMES)) for i, (low, high) in enumerate(GAP_BINS)],
        equal_ratings=equal.n,
        underdog=[
            ("With underdog bonuses", underdog.get((1,), NO_GAMES)),
            ("Without bonuses", underdog.get((0,), NO_GAMES)),
        ],
        games=first_player.n,
    )
