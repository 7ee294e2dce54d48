"""The league table's read model: each season entry's standing, stored.

The table page reads one row per team (``SeasonEntry``'s played, won, drawn, lost, points for and
against, league points) instead of aggregating every game of the season on every request. The
rows are derived state, like ``Team.treasury`` and ``Team.rating``: the services that change what
they count (the post-game sequence and voiding, in ``matches.services``) call
:func:`standings_refresh` inside their own transaction, after their writes, and
``manage.py rebuild_read_model`` rebuilds every row from the matches. Byes are not games
(docs/rulings.md), but in a swiss season each scores league points (``byes`` and ``points``): the
services that make or hand on a bye refresh its team's row too. Forfeits count with the forfeit's
points (issue 13).

A refresh recomputes the touched teams' rows from their counted games (:func:`fresh_standings`,
the same query the page once ran for the whole season) rather than adding to them, so a row can
never drift from the games; the cost is bounded by those teams' games in the season.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import transaction
from django.db.models import Count, Q, Sum, Value
from django.db.models.functions import Coalesce

from common.bulk import update_rows
from league.models import Bye, Season, SeasonEntry
from matches.models import REGULAR_STAGE, Match, MatchTeam, counted_q

WIN, DRAW, LOSS = MatchTeam.Outcome.WIN, MatchTeam.Outcome.DRAW, MatchTeam.Outcome.LOSS
FIELDS = SeasonEntry.STANDING_FIELDS


#: Fixtures decided for the table: played and confirmed, or decided by a forfeit.
DECIDED = Match.DECIDED_STATUSES


#: The league table's matches: one definition, ``matches.models.counted_q`` (confirmed or forfeited).
counted_matches_q = counted_q


def side_points(season: Season, outcome: str, *, forfeited: bool = False, league_points: int | None = None) -> int:
    """League points one side earns from a decided game with the season's rules: a win, draw or
    loss, or a forfeit's points (house rules; by default a win's and a loss's); or the points its
    game gave it itself (``MatchTeam.league_points``: a Kage Masters table's places, a Ninjutsu game
    on time)."""
    if league_points is not None and not forfeited:
        return league_points
    if forfeited:
        return {WIN: season.forfeit_win_points, LOSS: season.forfeit_loss_points}.get(outcome, 0)
    return {WIN: season.points_win, DRAW: season.points_draw, LOSS: season.points_loss}.get(outcome, 0)


def counts_bye_points(season: Season) -> bool:
    """Byes score league points in swiss seasons only (docs/rulings.md, "Leagues")."""
    return season.format == Season.Format.SWISS


def match_counts(match: Match) -> bool:
    """Does this match (whatever its status) belong to a league table when confirmed?"""
    return match.season_id is not None and not match.friendly and match.stage == REGULAR_STAGE


def fresh_standings(
    season: Season, team_ids: Iterable[int] | None = None, *, entered: bool = False
) -> dict[int, dict[str, int]]:
    """{team id: its standing computed now from the season's counted games}, for every team
    entered in the season (or those of ``team_ids``), in three queries (four in a swiss season;
    one less with ``entered``: the caller knows ``team_ids`` are all entered in the season).
    What the stored rows must always equal."""
    entries = SeasonEntry.objects.filter(season=season)
    sides = MatchTeam.objects.filter(counted_q(season, "match__"))
    if team_ids is not None:
        ids = list(team_ids)
        entries = entries.filter(team_id__in=ids)
        sides = sides.filter(team_id__in=ids)
    if entered and team_ids is not None:
        result = {pk: dict.fromkeys(FIELDS, 0) for pk in ids}
    else:
        result = {pk: dict.fromkeys(FIELDS, 0) for pk in entries.values_list("team_id", flat=True)}
    if not result:
        return result
    sides = sides.filter(team_id__in=list(result)).order_by().values("team_id")
    forfeited = Q(match__status=Match.Status.FORFEITED)
    # A side whose game gave its league points itself (``league_points``: a Kage Masters table, a
    # Ninjutsu game on time) counts them; every other side the points of its outcome.
    by_outcome = Q(league_points__isnull=True)
    for row in sides.annotate(
        played=Count("id"),
        won=Count("id", filter=Q(outcome=WIN)),
        drawn=Count("id", filter=Q(outcome=DRAW)),
        lost=Count("id", filter=Q(outcome=LOSS)),
        won_scored=Count("id", filter=by_outcome & Q(outcome=WIN)),
        drawn_scored=Count("id", filter=by_outcome & Q(outcome=DRAW)),
        lost_scored=Count("id", filter=by_outcome & Q(outcome=LOSS)),
        forfeits_won=Count("id", filter=forfeited & Q(outcome=WIN)),
        forfeits_lost=Count("id", filter=forfeited & Q(outcome=LOSS)),
        points_for=Coalesce(Sum("points"), Value(0)),
        own_points=Coalesce(Sum("league_points"), Value(0)),
    ):
        figures = result[row["team_id"]]
        for name in ("played", "won", "drawn", "lost", "points_for"):
            figures[name] = row[name]
        fw, fl = row["forfeits_won"], row["forfeits_lost"]
        figures["points"] = (
            (row["won_scored"] - fw) * season.points_win
            + row["drawn_scored"] * season.points_draw
            + (row["lost_scored"] - fl) * season.points_loss
            + fw * season.forfeit_win_points
            + fl * season.forfeit_loss_points
            + row["own_points"]
        )
    # A swiss bye scores league points (issue 13): one more grouped query, swiss seasons only.
    if counts_bye_points(season):
        for row in (
            Bye.objects.filter(season=season, stage=REGULAR_STAGE, team_id__in=list(result))
            .order_by()
            .values("team_id")
            .annotate(n=Count("id"))
        ):
            figures = result[row["team_id"]]
            figures["byes"] = row["n"]
            figures["points"] += row["n"] * season.bye_points
    # Points conceded: every point scored in the team's games, less its own.
    for row in sides.annotate(total=Sum("match__sides__points")):
        figures = result[row["team_id"]]
        figures["points_against"] = (row["total"] or 0) - figures["points_for"]
    return result


def standings_refresh(*, season: Season, team_ids: Iterable[int] | None = None) -> int:
    """Store the standings of these teams (every entry of the season when None) as their games
    give them now. Locks the entries' rows (in id order) before reading the games, so two results
    of one team committing at once are counted one after the other. Returns the rows changed.
    Inside a caller's transaction it takes no savepoint: only the database raises here, and its
    errors abort the caller's transaction anyway."""
    with transaction.atomic(savepoint=False):
        entries = SeasonEntry.objects.select_for_update().filter(season=season).order_by("id")
        if team_ids is not None:
            entries = entries.filter(team_id__in=list(team_ids))
        entries = list(entries.only("id", "team_id", *FIELDS))
        fresh = fresh_standings(season, [e.team_id for e in entries], entered=True)
        changed = []
        columns: set[str] = set()
        for entry in entries:
            figures = fresh[entry.team_id]
            differ = [name for name in FIELDS if getattr(entry, name) != figures[name]]
            if differ:
                for name in differ:
                    setattr(entry, name, figures[name])
                columns.update(differ)
                changed.append(entry)
        if changed:
            # Only the columns that changed (a result leaves the byes and two of won, drawn and
            # lost as they were).
            update_rows(SeasonEntry, changed, [name for name in FIELDS if name in columns])
    return len(changed)


def match_standings_refresh(match: Match) -> None:
    """After a match's result was written or voided: refresh its teams' rows when it counts."""
    matches_standings_refresh([match])


def matches_standings_refresh(matches: Sequence[Match]) -> None:
    """After results were written or voided (one, or a simulated round's in one transaction):
    refresh the rows of the teams of those that count, one refresh a season, whatever the number
    of matches (``matches.hooks.results_written_once``)."""
    counted = {m.pk: m for m in matches if match_counts(m)}
    if not counted:
        return
    seasons = {m.season_id: m.season for m in counted.values()}
    team_ids: dict[int, set[int]] = {pk: set() for pk in seasons}
    for match_id, team_id in MatchTeam.objects.filter(match_id__in=list(counted)).values_list("match_id", "team_id"):
        team_ids[counted[match_id].season_id].add(team_id)
    for pk in sorted(seasons):
        standings_refresh(season=seasons[pk], team_ids=sorted(team_ids[pk]))


def rebuild_all(*, seasons: Iterable[Season] | None = None) -> tuple[int, int]:
    """Rebuild every stored standing and team rating from history (the management command).
    Returns (standing rows changed, ratings changed)."""
    from teams.models import Team
    from teams.services import team_ratings_refresh

    rows = 0
    for season in seasons if seasons is not None else Season.objects.order_by("id"):
        rows += standings_refresh(season=season)
    ratings = 0
    team_ids = list(Team.objects.order_by("id").values_list("id", flat=True))
    for start in range(0, len(team_ids), 500):
        chunk = team_ids[start : start + 500]
        before = dict(Team.objects.filter(pk__in=chunk).values_list("pk", "rating"))
        after = team_ratings_refresh(team_ids=chunk)
        ratings += sum(1 for pk in chunk if before[pk] != after[pk])
    return rows, ratings
