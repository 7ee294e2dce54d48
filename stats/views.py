"""Statistics pages: honours, histories, careers, coaches, leaderboards, balance.

All public and read-only (GET and HEAD only): the league's history is no secret. Each view calls
selectors that run a fixed number of queries, and pages what grows with time.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_safe

from common import invalidation
from common.fragments import fragment
from games import registry
from games.registry import game_of
from league.models import League, Season
from stats import charts
from stats.forms import KINDS, BalanceFilterForm, ClubFilterForm, GameFilterForm, RatingsFilterForm
from stats.intervals import THIN
from stats.models import RatingsState
from stats.selectors import balance, history, leaderboards, ratings
from stats.selectors.balance import BalanceFilter
from stats.selectors.leaderboards import Scope
from teams.models import Ninja, Team

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
    entrants = {registry.get(team.game).entrant for team in page.object_list}
    heading = "Teams and entries" if len(entrants) > 1 else "Teams" if entrants == {"team"} else "Entries"
    for team in page.object_list:  # each team's record in its game's words
        team.record_line = history.GameCareer(
            registry.get(team.game), team.played, team.won, team.drawn, team.lost
        ).record
    context = {
        "coach": user,
        "page": page,
        # a career and its ratings a game, side by side: never one career or rating across games
        "careers": history.coach_careers(user),
        "teams_heading": heading,
    }
    return render(request, "stats/coach.html", context)


# --- leaderboards and records ---------------------------------------------------------------------


#: The boards of a league whose entrants are players (no ninjas, koban or team ratings at kick-off).
PLAYERS_BOARDS = ["wins", "unbeaten"]


def _leaderboards(request: HttpRequest, scope: Scope, league: League | None, form=None) -> HttpResponse:
    seasons = list(Season.objects.filter(league=league).order_by("-number")[:SEASON_LINKS]) if league else []
    info = registry.get(scope.game_key or registry.DEFAULT)
    players = not registry.game_of(info.key).team_scrolls
    csv_url = scope.csv_url()
    context = {
        "form": form,
        "game": info,
        "games": registry.GAMES.values(),
        "csv_board_url": csv_url + ("&" if "?" in csv_url else "?") + "board=",
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
        "game_stats": game_of(league).statistics(league=league, season=scope.season) if players and league else None,
        "game_stats_template": game_of(league).statistics_template if players and league else "",
    }
    return render(request, "stats/leaderboards.html", context)


@require_safe
def all_time_leaderboards(request: HttpRequest) -> HttpResponse:
    """Every league's boards, of one game (``?game=``, the first game by default; an unknown one is
    said on the page): no board ranks one game's teams with another's players."""
    form = GameFilterForm(request.GET)
    return _leaderboards(request, Scope(game=form.chosen()), None, form)


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


def _words(info) -> tuple[str, str, str]:
    """What a game's two lists are of: its entrants (a team, a player's entry in a league) and the
    members behind them (coaches of teams; a players' game's members, across its leagues)."""
    member = "Coach" if info.entrant == "team" else "Member"
    return info.entrants.capitalize(), member, "Coaches" if info.entrant == "team" else "Members"


def _ratings(request: HttpRequest, *, coaches: bool) -> HttpResponse:
    form = RatingsFilterForm(request.GET)
    game, league, system = form.choice()
    info = registry.get(game)
    rows = ratings.strength_ratings(coaches=coaches, system=system, game=game, league=league)
    page = _page(request, rows, RATINGS_PER_PAGE)
    keep = {"game": game, **({"league": league.slug} if league else {})}
    entrants, member, members = _words(info)
    context = {
        "form": form,
        "page": page,
        "coaches": coaches,
        "game": info,
        "games": registry.GAMES.values(),
        "league": league,
        "system": system,
        "systems": [(s, ratings.system_label(game, s)) for s in ratings.systems_of(game)],
        "notes": [ratings.system_note(game, s) for s in ratings.systems_of(game)],
        "keep": urlencode(keep),
        "keep_system": urlencode({**keep, "system": system}),
        "entrants_word": entrants,
        "member_word": member,
        "members_word": members,
        "state": RatingsState.objects.filter(pk=1).first(),
    }
    return render(request, "stats/ratings.html", context)


@require_safe
def team_ratings(request: HttpRequest) -> HttpResponse:
    return _ratings(request, coaches=False)


@require_safe
def coach_ratings(request: HttpRequest) -> HttpResponse:
    return _ratings(request, coaches=True)


@require_safe
def club_ratings(request: HttpRequest) -> HttpResponse:
    """The club board: every rated member, a column a game (each game's own rating, its scale, and the
    member's place among the game's rated members); ratings of different games are never added."""
    form = ClubFilterForm(request.GET)
    form.is_valid()
    league, order = form.cleaned_data.get("league"), form.cleaned_data.get("order") or "games"
    page = _page(request, ratings.club_members(league=league, order=order), RATINGS_PER_PAGE)
    columns = list(registry.GAMES.values())
    context = {
        "form": form,
        "page": page,
        "rows": [(row, row.cells_in(columns)) for row in ratings.club_rows(page.object_list)],
        "columns": columns,
        "league": league,
        "order": order,
        "query": urlencode(
            {**({"league": league.slug} if league else {}), **({"order": order} if order != "games" else {})}
        ),
    }
    return render(request, "stats/club_ratings.html", context)
