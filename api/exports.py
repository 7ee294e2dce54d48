"""Downloads: the league table and a team's roster as CSV (anyone, as the pages), the whole league
as JSON (its master)."""

from __future__ import annotations

import csv
import io

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from api.backup import league_export_json
from league import selectors as league_selectors
from league.models import League, Season
from league.permissions import require_master
from teams import selectors as team_selectors
from teams.models import Team

#: A cell a spreadsheet would read as a formula starts with one of these: it is written after a
#: quote mark (OWASP's advice on CSV injection). Names are the players' own text.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value) -> str:
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
    return _csv(
        f"{slug}-season-{number}-table.csv", TABLE_COLUMNS, [[row.get(c) for c in TABLE_COLUMNS] for row in rows]
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


@login_required
@require_GET
def league_export(request: HttpRequest, slug: str) -> HttpResponse:
    """The whole league as JSON (api.backup), for its master."""
    league = get_object_or_404(League, slug=slug)
    require_master(request.user, league)
    response = HttpResponse(league_export_json(league), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{slug}-export.json"'
    return response
