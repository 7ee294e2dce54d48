from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from common import invalidation
from common.fragments import fragment
from common.pagecache import depends
from common.ui import add_service_errors, submit_form
from games import registry as games
from rules.engine import recruitment
from rules.models import Profile
from teams import accounts, selectors, services
from teams.forms import (
    NinjaRenameForm,
    RecruitForm,
    SignUpForm,
    TeamCreateForm,
    TeamEditForm,
    ThrottledPasswordChangeForm,
)
from teams.models import Ninja, Team
from teams.permissions import (
    can_manage_team,
    can_withdraw_application,
    is_team_owner,
    require_manage_team,
    require_team_owner,
)
from teams.throttling import signup_allowed


#: Team scrolls: a player's entry in a game without them (Ninjutsu, Kage Masters) has no roster,
#: recruitment, treasury or retirement, and those pages are not found for it (docs/leagues.md, "Games").
def scrolls():
    """The team scrolls (read when asked: the games register at start-up)."""
    return Team.objects.filter(game__in=games.team_scroll_games())


#: The states of a team that still plays (a retired team's scroll is history: no edit, no retirement).
PLAYING = (Team.Status.BUILDING, Team.Status.READY)


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    if request.method == "POST" and not signup_allowed(request):
        return render(request, "registration/signup_throttled.html", status=429)
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}! Create your first team.")
        return redirect("teams:create")
    return render(request, "registration/signup.html", {"form": form})


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's page, with wrong old passwords throttled like failed log-ins."""

    form_class = ThrottledPasswordChangeForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}

    def form_valid(self, form):
        response = super().form_valid(form)
        if form.revoked:
            messages.info(self.request, accounts.revoked_message(form.revoked))
        return response


def team_list(request: HttpRequest) -> HttpResponse:
    from rules.engine.league import team_rating

    # Team scrolls only: players' entries in the other games are listed by their leagues.
    qs = selectors.teams_with_ratings(scrolls().exclude(status=Team.Status.RETIRED)).order_by("name")
    page = Paginator(qs, 25).get_page(request.GET.get("page"))
    rows = [(t, team_rating(selectors.team_snapshot(t))) for t in page.object_list]
    return render(request, "teams/team_list.html", {"page": page, "rows": rows})


@login_required
def team_create(request: HttpRequest) -> HttpResponse:
    form = TeamCreateForm(
        request.POST if request.method == "POST" else None, initial={"league": request.GET.get("league")}
    )
    done = submit_form(
        request,
        form,
        lambda data: services.team_create(
            owner=request.user, name=data["name"], clan=data["clan"], league=data["league"]
        ),
        lambda team: f"{team.name} is founded with {team.treasury} koban. Recruit your ninja.",
    )
    if done:
        return redirect("teams:recruit", pk=done.result.pk)
    return render(request, "teams/team_create.html", {"form": form})


def team_detail(request: HttpRequest, pk: int) -> HttpResponse:
    team = get_object_or_404(Team.objects.select_related("clan", "owner", "league"), pk=pk)
    scopes = team_scopes(team)
    depends(request, *scopes)
    if not team.has_scroll:
        return _entry_detail(request, team)
    can_manage = can_manage_team(request.user, team)
    all_games = request.GET.get("games") == "all"
    # Below the header the scroll is the same for every reader with the same rights: a fragment
    # under the versions of what it shows, so a member's read after the first runs none of its queries (the
    # roster with its keywords and advancements, the problems, the game records, the ledger:
    # issue 15, part 3). The rating shown is the stored one (Team.rating, kept in step).
    body = fragment(
        f"team-scroll:{team.pk}:{'manage' if can_manage else 'read'}:{'all' if all_games else 'recent'}",
        lambda: render_to_string("teams/includes/_scroll_body.html", _scroll_body(team, can_manage), request=request),
        scopes,
        request,
    )
    context = {
        "team": team,
        "rating": team.rating,
        "strength": selectors.strength_ratings([team.pk]).get(team.pk, {}),
        "can_manage": can_manage,
        "can_withdraw": can_withdraw_application(request.user, team),
        "is_owner": is_team_owner(request.user, team),
        "body": body,
    }
    return render(request, "teams/team_detail.html", context)


def team_scopes(team: Team) -> list[str]:
    """What a team's pages show (common/invalidation.py): the team (its roster, ledger, results,
    rating, owner), and its league's name."""
    scopes = [invalidation.team(team.pk)]
    if team.league_id:
        scopes.append(invalidation.league_meta(team.league_id))
    return scopes


def _entry_detail(request: HttpRequest, team: Team) -> HttpResponse:
    """A player's entry in a league of a game without team scrolls: who plays, where, their
    strength and their games; no clan, roster, treasury, XP or underdog."""
    context = {
        "team": team,
        "strength": selectors.strength_ratings([team.pk]).get(team.pk, {}),
        "can_withdraw": can_withdraw_application(request.user, team),
        "is_owner": is_team_owner(request.user, team),
    }
    return render(request, "teams/entry_detail.html", context)


def _scroll_body(team: Team, can_manage: bool) -> dict:
    """What the scroll's body shows: the roster's lines, what stops the team being marked ready or
    kicking off (issue 14: whatever its status), the recent ledger."""
    scroll = selectors.team_for_scroll(team.pk)
    return {
        "team": scroll,
        "can_manage": can_manage,
        "lines": [selectors.ninja_line(n) for n in scroll.roster],
        "ledger": selectors.recent_ledger(scroll),
        "problems": services.roster_problems(team=scroll) if not scroll.is_retired else [],
    }


def team_ledger(request: HttpRequest, pk: int) -> HttpResponse:
    team = get_object_or_404(scrolls().select_related("clan"), pk=pk)
    page = Paginator(team.ledger.order_by("-id"), 50).get_page(request.GET.get("page"))
    return render(request, "teams/team_ledger.html", {"team": team, "page": page})


@login_required
def recruit(request: HttpRequest, pk: int) -> HttpResponse:
    team = get_object_or_404(scrolls().select_related("clan", "league"), pk=pk)
    require_manage_team(request.user, team)
    profiles = list(
        Profile.objects.filter(clan=team.clan).select_related("clan").prefetch_related("keywords").order_by("order")
    ) + list(Profile.objects.filter(kind=Profile.Kind.RONIN).prefetch_related("keywords").order_by("order"))
    recruiting = services.recruit_team(team)
    rows = []
    for p in profiles:
        check = recruitment.recruit_check(recruiting, p.recruit_profile())
        rows.append({"profile": p, "have": check.have, "full": check.full, "affordable": check.affordable})
    context = {
        "team": team,
        "clan_rows": [r for r in rows if r["profile"].kind != Profile.Kind.RONIN],
        "ronin_rows": [r for r in rows if r["profile"].kind == Profile.Kind.RONIN],
        "problems": services.roster_problems(team=team),
    }
    return render(request, "teams/recruit.html", context)


@login_required
def recruit_profile(request: HttpRequest, pk: int, slug: str) -> HttpResponse:
    team = get_object_or_404(scrolls().select_related("clan", "league"), pk=pk)
    require_manage_team(request.user, team)
    profile = get_object_or_404(Profile.objects.select_related("clan"), slug=slug)
    form = RecruitForm(
        request.POST if request.method == "POST" else None,
        team=team,
        profile=profile,
        default_name=services.default_ninja_name(team=team, profile=profile),
    )
    blockers: list[str] = []
    if request.method == "POST" and form.is_valid():
        try:
            ninja = services.team_recruit(
                team=team,
                profile=profile,
                name=form.cleaned_data["name"],
                chosen_abilities=form.cleaned_data.get("abilities", []),
                actor=request.user,
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
        else:
            messages.success(request, f"{ninja.name} joins {team.name} for {profile.koban} koban.")
            return redirect("teams:recruit", pk=team.pk)
    elif request.method == "GET":
        # What stops this recruitment whatever is chosen: shown above the form (an unbound form
        # cannot hold errors; adding them was a 500).
        blockers = form.blockers()
    return render(
        request,
        "teams/recruit_profile.html",
        {"team": team, "profile": profile, "form": form, "blockers": blockers},
    )


@login_required
def ninja_release(request: HttpRequest, pk: int, ninja_pk: int) -> HttpResponse:
    team = get_object_or_404(scrolls().select_related("league"), pk=pk)
    require_manage_team(request.user, team)
    ninja = get_object_or_404(
        Ninja.objects.select_related("profile"), pk=ninja_pk, team=team, status=Ninja.Status.ACTIVE
    )
    if request.method == "POST":
        try:
            services.ninja_release(ninja=ninja)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, f"{ninja.name} has left {team.name}. No koban are refunded.")
        return redirect(team)
    return render(request, "teams/ninja_release_confirm.html", {"team": team, "ninja": ninja})


@login_required
def ninja_rename(request: HttpRequest, pk: int, ninja_pk: int) -> HttpResponse:
    team = get_object_or_404(scrolls().select_related("league"), pk=pk)
    require_manage_team(request.user, team)
    ninja = get_object_or_404(Ninja, pk=ninja_pk, team=team, status=Ninja.Status.ACTIVE)
    form = NinjaRenameForm(request.POST if request.method == "POST" else None, initial={"name": ninja.name})
    if submit_form(request, form, lambda data: services.ninja_rename(ninja=ninja, name=data["name"]), "Renamed."):
        return redirect(team)
    return render(request, "teams/ninja_rename.html", {"team": team, "ninja": ninja, "form": form})


@login_required
@require_POST
def team_ready(request: HttpRequest, pk: int) -> HttpResponse:
    team = get_object_or_404(scrolls().select_related("league"), pk=pk)
    require_manage_team(request.user, team)
    try:
        services.team_mark_ready(team=team)
    except ValidationError as exc:
        messages.error(request, "The roster is not legal yet: " + " ".join(exc.messages))
    else:
        messages.success(request, f"{team.name} is ready to play.")
    return redirect(team)


@login_required
def team_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """The owner renames the team and sets its colours and motto."""
    team = get_object_or_404(Team.objects.select_related("league"), pk=pk, status__in=PLAYING)
    require_team_owner(request.user, team)
    initial = {
        "name": team.name,
        "colour_primary": team.colour_primary or "#1f3a5c",
        "colour_secondary": team.colour_secondary or "#f2c14e",
        "no_colours": not team.colours,
        "motto": team.motto,
    }
    form = TeamEditForm(request.POST if request.method == "POST" else None, initial=initial)
    done = submit_form(
        request,
        form,
        lambda data: services.team_update(
            team=team,
            name=data["name"],
            colour_primary=data["colour_primary"],
            colour_secondary=data["colour_secondary"],
            motto=data["motto"],
        ),
        "Saved.",
    )
    if done:
        return redirect(team)
    return render(request, "teams/team_edit.html", {"team": team, "form": form})


@login_required
def team_retire(request: HttpRequest, pk: int) -> HttpResponse:
    """The owner retires the team, after a confirmation page that shows it (and what stops it)."""
    team = get_object_or_404(scrolls().select_related("league", "clan"), pk=pk, status__in=PLAYING)
    require_team_owner(request.user, team)
    if request.method == "POST":
        try:
            services.team_retire(team=team)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, f"{team.name} is retired. Its scroll and history stay; its name is free again.")
        return redirect(team)
    context = {"team": team, "blockers": services.retire_blockers(team=team)}
    return render(request, "teams/team_retire_confirm.html", context)
