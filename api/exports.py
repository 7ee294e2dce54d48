"""Downloads: the league table and a team's roster as CSV (anyone, as the pages), the whole league
as JSON (its master)."""

from __future__ import annotations

import csv
import io

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_GET

from api.backup import league_export_json
from games import registry as games_registry
from league import selectors as league_selectors
from league.models import League, Season
from league.permissions import require_master
from stats.selectors import leaderboards
from stats.selectors.leaderboards import Scope
from teams import selectors as team_selectors
from teams.models import Team

#: A cell a spreadsheet would read as a formula starts with one of these: it is written after a
#: quote mark (OWASP's advice on CSV injection). Names are the players' own text.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value) -> str:
    """Text that starts like a formula is quoted; numbers are written as they are (a negative
    points difference stays a number)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return str(value)
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def _csv(filename: str, header: list[str], rows: list[list]) -> HttpResponse:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows([_cell(v) for v in row] for row in rows)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


TABLE_COLUMNS = [
    "position",
    "team",
    "owner",
    "clan",
    "played",
    "won",
    "drawn",
    "lost",
    "points",
    "points_for",
    "points_against",
    "points_difference",
    "rating",
]


@require_GET
def table_csv(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = get_object_or_404(Season.objects.select_related("league"), league__slug=slug, number=number)
    if season.is_finished:
        rows = (season.final_table or {}).get("rows", [])
    else:
        rows = [row.as_dict() for row in league_selectors.league_table(season)]
    # Every game's figures, then the game's own columns the figures miss (a table game's places, a
    # game's ``table_values``), by their keys.
    own = [c.key for c in season.league.game_site.columns(season, archived=True) if c.key not in TABLE_COLUMNS]
    header = TABLE_COLUMNS + own
    return _csv(
        f"{slug}-season-{number}-table.csv",
        header,
        [[row.get(c, row.get("values", {}).get(c)) for c in header] for row in rows],
    )


ROSTER_COLUMNS = [
    "name",
    "profile",
    "movement",
    "attack",
    "defense",
    "affinities",
    "keywords",
    "abilities",
    "xp",
    "level",
    "advancements",
    "availability",
]


@require_GET
def roster_csv(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        team = team_selectors.team_for_scroll(pk)
    except Team.DoesNotExist:
        from django.http import Http404

        raise Http404("No such team") from None
    rows = []
    for line in (team_selectors.ninja_line(n) for n in team.roster):
        rows.append(
            [
                line.ninja.name,
                line.ninja.profile.name,
                line.movement,
                line.attack,
                line.defense,
                "; ".join(line.affinities),
                "; ".join(line.base_keywords + line.gained_keywords),
                "; ".join(line.abilities),
                line.ninja.xp,
                line.level_name,
                "; ".join(line.advancements),
                line.availability,
            ]
        )
    return _csv(f"team-{team.pk}-roster.csv", ROSTER_COLUMNS, rows)


LEADERBOARD_COLUMNS = [
    "board",
    "rank",
    "value",
    "unit",
    "ninja_id",
    "ninja",
    "team_id",
    "team",
    "match_id",
    "winner_id",
    "winner",
    "winner_points",
    "loser_points",
    "loser_id",
    "loser",
    "first_match_id",
    "last_match_id",
    "ongoing",
    "url",
]
#: Rows a board in a download: the API's most (the pages show leaderboards.LIMIT).
LEADERBOARD_CSV_ROWS = leaderboards.MAX_LIMIT


def _row_url(request: HttpRequest, board, row) -> str:
    """The page behind a row, as the leaderboards page links it."""
    if board.kind == "ninja":
        url = reverse("stats:ninja_career", args=[row.ninja_id])
    elif board.kind == "match":
        url = reverse("matches:detail", args=[row.match_id])
    else:
        url = reverse("stats:team_history", args=[row.team_id])
    return request.build_absolute_uri(url)


def _leaderboards_csv(request: HttpRequest, scope: Scope, filename: str) -> HttpResponse:
    """Every board of the scope (or ``?board=``), at most LEADERBOARD_CSV_ROWS rows each: one
    query a board, as the page."""
    key = request.GET.get("board")
    if key is not None and key not in leaderboards.BOARDS:
        return HttpResponseBadRequest("No such board.", content_type="text/plain; charset=utf-8")
    boards = leaderboards.leaderboards(scope, LEADERBOARD_CSV_ROWS, [key] if key else None)
    rows = []
    for board in boards:
        for row in board.rows:
            values = {"board": board.key, "unit": board.unit, "url": _row_url(request, board, row)}
            rows.append([values.get(c, getattr(row, c, None)) for c in LEADERBOARD_COLUMNS])
    suffix = f"-{key}" if key else ""
    return _csv(f"{filename}-leaderboards{suffix}.csv", LEADERBOARD_COLUMNS, rows)


@require_GET
def leaderboards_csv(request: HttpRequest) -> HttpResponse:
    """Every league's boards of one game (``?game=``, the first game by default), as the page."""
    game = request.GET.get("game", games_registry.DEFAULT)
    if game not in games_registry.GAMES:
        return HttpResponseBadRequest("No such game.", content_type="text/plain; charset=utf-8")
    return _leaderboards_csv(request, Scope(game=game), "all-time" if "game" not in request.GET else f"all-time-{game}")


@require_GET
def league_leaderboards_csv(request: HttpRequest, slug: str) -> HttpResponse:
    league = get_object_or_404(League, slug=slug)
    return _leaderboards_csv(request, Scope(league=league), slug)


@require_GET
def season_leaderboards_csv(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = get_object_or_404(Season.objects.select_related("league"), league__slug=slug, number=number)
    return _leaderboards_csv(request, Scope(league=season.league, season=season), f"{slug}-season-{number}")


@login_required
@require_GET
def league_export(request: HttpRequest, slug: str) -> HttpResponse:
    """The whole league as JSON (api.backup), for its master."""
    league = get_object_or_404(League, slug=slug)
    require_master(request.user, league)
    response = HttpResponse(league_export_json(league), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{slug}-export.json"'
    return response
