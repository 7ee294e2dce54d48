"""Statistics pages: honours, histories, careers, coaches, leaderboards, balance.

All public and read-only (GET and HEAD only): the league's history is no secret. Each view calls
selectors that run a fixed number of queries, and pages what grows with time.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_safe

from common import invalidation
from common.fragments import fragment
from games.registry import game_of
from league.models import League, Season
from stats import charts
from stats.forms import KINDS, BalanceFilterForm
from stats.intervals import THIN
from stats.models import RatingsState
from stats.selectors import balance, history, leaderboards, ratings
from stats.selectors.balance import BalanceFilter
from stats.selectors.leaderboards import Scope
from teams.models import Ninja, StrengthRating, Team

#: Seasons or teams per page on the history pages.
PER_PAGE = 20
#: Seasons offered as scopes on the leaderboards page (the newest).
SEASON_LINKS = 12


def _page(request: HttpRequest, queryset, per_page: int = PER_PAGE):
    return Paginator(queryset, per_page).get_page(request.GET.get("page"))


@require_safe
def honours(request: HttpRequest, slug: str) -> HttpResponse:
    league = get_object_or_404(League, slug=slug)
    page = _page(request, history.league_seasons(league))
    context = {"league": league, "page": page, "seasons": history.league_honours(page.object_list)}
    return render(request, "stats/honours.html", context)


@require_safe
def team_history(request: HttpRequest, pk: int) -> HttpResponse:
    team = get_object_or_404(Team.objects.select_related("owner", "clan", "league"), pk=pk)
    page = _page(request, history.team_seasons(team))
    # The seasons' table is the same for every reader: a fragment under the versions of what it shows, so a
    # member's read after the first one runs none of its queries (issue 15, part 3).
    # It shows the team and its place in each season of the page (moved by the others' results).
    scopes = [invalidation.team(team.pk), *(invalidation.season(s.pk) for s in page.object_list)]
    table = fragment(
        f"team-history:{team.pk}:{page.number}",
        lambda: render_to_string(
            "stats/includes/_team_history_table.html", {"lines": history.team_history(team, page.object_list)}
        ),
        scopes,
        request,
    )
    return render(request, "stats/team_history.html", {"team": team, "page": page, "table": table})


@require_safe
def ninja_career(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        ninja = history.ninja_for_career(pk)
    except Ninja.DoesNotExist:
        raise Http404("No such ninja.") from None
    return render(request, "stats/ninja_career.html", {"career": history.ninja_career(ninja)})


@require_safe
def coach(request: HttpRequest, username: str) -> HttpResponse:
    user = get_object_or_404(get_user_model(), username=username, is_active=True)
    page = _page(request, history.coach_teams(user))
    context = {
        "coach": user,
        "page": page,
        "record": history.coach_record(user),
        "strength": {row.system: row for row in StrengthRating.objects.filter(coach=user)},
    }
    return render(request, "stats/coach.html", context)


# --- leaderboards and records ---------------------------------------------------------------------


#: The boards of a league whose entrants are players (no ninjas, koban or team ratings at kick-off).
PLAYERS_BOARDS = ["wins", "unbeaten"]


def _leaderboards(request: HttpRequest, scope: Scope, league: League | None) -> HttpResponse:
    seasons = list(Season.objects.filter(league=league).order_by("-number")[:SEASON_LINKS]) if league else []
    players = league is not None and not league.game_site.team_scrolls
    context = {
        "scope": scope,
        "league": league,
        "seasons": seasons,
        "boards": leaderboards.leaderboards(scope, keys=PLAYERS_BOARDS if players else None),
        "limit": leaderboards.LIMIT,
        "csv_url": scope.csv_url(),
        "csv_rows": leaderboards.MAX_LIMIT,
        "players": players,
        # The game's own statistics (its Game's ``statistics``), for a league of a players' game,
        # shown by its own template.
        "game_stats": game_of(league).statistics(league=league, season=scope.season) if players else None,
        "game_stats_template": game_of(league).statistics_template if players else "",
    }
    return render(request, "stats/leaderboards.html", context)


@require_safe
def all_time_leaderboards(request: HttpRequest) -> HttpResponse:
    return _leaderboards(request, Scope(), None)


@require_safe
def league_leaderboards(request: HttpRequest, slug: str) -> HttpResponse:
    league = get_object_or_404(League, slug=slug)
    return _leaderboards(request, Scope(league=league), league)


@require_safe
def season_leaderboards(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = get_object_or_404(Season.objects.select_related("league"), league__slug=slug, number=number)
    return _leaderboards(request, Scope(league=season.league, season=season), season.league)


# --- balance -------------------------------------------------------------------------------------


@require_safe
def balance_stats(request: HttpRequest) -> HttpResponse:
    """Balance figures for the filters in the query string; filters that do not validate are
    shown with their errors, and the figures are those of every confirmed game."""
    form = BalanceFilterForm(request.GET or None)
    chosen = form.filter() if form.is_bound and form.is_valid() else BalanceFilter()
    stats = balance.balance(chosen)
    context = {
        "form": form,
        "stats": stats,
        "kind_label": KINDS[chosen.kind],
        "thin": THIN,
        "clan_chart": charts.rate_chart(
            [(clan.name, rate) for clan, rate, _ in stats.clan_challenge_rows()], title="Win rate by clan"
        ),
        "gap_chart": charts.rate_chart(
            [(f"gap {label}", rate) for label, rate in stats.gap_bins], title="Higher-rated side's win rate by gap"
        ),
        "underdog_chart": charts.rate_chart(stats.underdog, title="Lower-rated side's win rate"),
    }
    return render(request, "stats/balance.html", context)


# --- strength ratings ------------------------------------------------------------------------------


#: Rows per page of the ratings lists.
RATINGS_PER_PAGE = 50


def _ratings(request: HttpRequest, *, coaches: bool) -> HttpResponse:
    system = request.GET.get("system")
    if system not in StrengthRating.System.values:
        system = StrengthRating.System.GLICKO2
    page = _page(request, ratings.strength_ratings(coaches=coaches, system=system), RATINGS_PER_PAGE)
    context = {
        "page": page,
        "coaches": coaches,
        "system": system,
        "systems": StrengthRating.System.choices,
        "state": RatingsState.objects.filter(pk=1).first(),
    }
    return render(request, "stats/ratings.html", context)


@require_safe
def team_ratings(request: HttpRequest) -> HttpResponse:
    return _ratings(request, coaches=False)


@require_safe
def coach_ratings(request: HttpRequest) -> HttpResponse:
    return _ratings(request, coaches=True)
