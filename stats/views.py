"""Statistics pages: honours, histories, careers, coaches, leaderboards, balance.

All public and read-only (GET and HEAD only): the league's history is no secret. Each view calls
selectors that run a fixed number of queries, and pages what grows with time.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from league.models import League
from stats.selectors import history
from teams.models import Ninja, Team

#: Seasons or teams per page on the history pages.
PER_PAGE = 20


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
    context = {"team": team, "page": page, "lines": history.team_history(team, page.object_list)}
    return render(request, "stats/team_history.html", context)


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
    context = {"coach": user, "page": page, "record": history.coach_record(user)}
    return render(request, "stats/coach.html", context)
