"""League pages: leagues, seasons, schedules, fixtures, tables and the playoff bracket.

Views validate a form and call one service; who may do what is decided in league.permissions.
"""

from __future__ import annotations

import functools
import hashlib
import json

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models import Count, OuterRef, Prefetch, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from common import invalidation
from common.fragments import fragment
from common.pagecache import depends
from common.ui import add_service_errors, submit_form
from games import registry as games
from league import dashboard, selectors, services, table_layout
from league.forms import (
    ApplicationDecisionForm,
    ApplyForm,
    DropoutUndoForm,
    FixtureArrangeForm,
    FixtureChallengeForm,
    FixtureForfeitForm,
    FixturePairingForm,
    FixtureRescheduleForm,
    HouseRulesForm,
    InvitationApplyForm,
    InvitationCreateForm,
    LeagueCreateForm,
    PlayerApplyForm,
    RolloverForm,
    RoundDatesForm,
    RoundSeatingForm,
    ScheduleForm,
    SeasonForm,
    SimpleActionForm,
    TableArrangeForm,
    TableDropoutForm,
    WithdrawApplicationForm,
    chosen_game,
)
from league.models import (
    REGULAR_STAGE,
    TIE_BREAKER_CHOICES,
    League,
    LeagueInvitation,
    Round,
    ScheduleRun,
    Season,
    SeasonEntry,
    playoff_stage,
    tie_breaker_choices,
)
from league.permissions import (
    can_arrange_fixture,
    can_manage_fixture,
    can_set_challenge,
    can_withdraw_application,
    challenge_refusal,
    is_league_master,
    require_master,
)
from league.services import schedules
from league.tasks import schedule_generate_task
from matches.models import Match, MatchTeam
from outbox import jobs
from outbox.dispatch import DispatchResult, dispatch_on_commit
from outbox.progress import progress_of
from teams.models import Team


def _league(slug: str) -> League:
    return get_object_or_404(League.objects.select_related("master"), slug=slug)


def _season(slug: str, number: int, *, count_entries: bool = False) -> Season:
    """The season, with its league and master; ``count_entries``: with ``entry_count``, its
    entries counted in the same query (the season page's number of table pages)."""
    seasons = Season.objects.select_related("league", "league__master")
    if count_entries:
        entries = SeasonEntry.objects.filter(season=OuterRef("pk")).order_by().values("season").annotate(n=Count("id"))
        seasons = seasons.annotate(entry_count=Coalesce(Subquery(entries.values("n")), 0))
    return get_object_or_404(seasons, league__slug=slug, number=number)


def season_scopes(season: Season) -> list[str]:
    """What a season's pages show (common/invalidation.py): the season, and its league's name and rules."""
    return [invalidation.season(season.pk), invalidation.league_meta(season.league_id)]


# --- home and health -----------------------------------------------------------------------------


def home(request: HttpRequest) -> HttpResponse:
    """A signed-in player's dashboard (what waits for them); anonymous visitors get the front page
    (page-cached: common/pagecache.py caches anonymous GETs only)."""
    if request.user.is_authenticated:
        return render(request, "league/dashboard.html", {"body": _dashboard_body(request.user)})
    leagues = list(selectors.leagues_for_list()[:12])
    return render(request, "home.html", {"leagues": leagues, "my_teams": []})


def _dashboard_body(user) -> str:
    """The dashboard's body, a fragment of its player's under the versions of what it shows
    (``dashboard.player_scopes``) and of the day (what is overdue); the set of scopes is in the
    key, so a new team or season of theirs is a new entry, never one stored without it."""
    today = timezone.localdate()

    def render_body() -> str:
        dash = dashboard.player_dashboard(user, today=today)
        return render_to_string("league/includes/_dashboard_body.html", {"dash": dash, "user": user})

    if settings.FRAGMENT_CACHE_SECONDS <= 0:  # no shared cache: nothing to look the scopes up for
        return render_body()
    scopes = dashboard.player_scopes(user)
    digest = hashlib.blake2b("|".join(scopes).encode(), digest_size=8).hexdigest()
    return fragment(f"dashboard:{user.pk}:{today.isoformat()}:{digest}", render_body, scopes)


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness probe: answers without touching the broker; checks the database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


# --- leagues -------------------------------------------------------------------------------------


def league_list(request: HttpRequest) -> HttpResponse:
    return render(request, "league/league_list.html", {"leagues": selectors.leagues_for_list()})


@login_required
def league_create(request: HttpRequest) -> HttpResponse:
    game = chosen_game(request.POST if request.method == "POST" else request.GET)
    form = LeagueCreateForm(request.POST if request.method == "POST" else None, game=game)
    done = submit_form(
        request,
        form,
        lambda data: services.league_create(
            master=request.user,
            name=data["name"],
            description=data["description"],
            game=data["game"],
            **form.house_rules(),
        ),
        lambda league: f"{league.name} is founded; you are its ninja master. Open its first season.",
    )
    if done:
        return redirect("league:season_create", slug=done.result.slug)
    return render(
        request,
        "league/form.html",
        {"form": form, "title": "Found a league", "games": games.GAMES.values(), "game": games.get(form.game)},
    )


def league_detail(request: HttpRequest, slug: str) -> HttpResponse:
    league = _league(slug)
    depends(request, invalidation.league(league.pk), invalidation.league_meta(league.pk))
    seasons = list(league.seasons.order_by("-number"))
    current = next((s for s in seasons if not s.is_finished), None)
    teams = list(selectors.league_teams(league))
    is_master = is_league_master(request.user, league)
    if not request.user.is_authenticated:
        can_apply = False
    elif league.game_site.team_scrolls:
        can_apply = (
            Team.objects.filter(owner=request.user, game=league.game)
            .exclude(status=Team.Status.RETIRED)
            .exclude(entry_status__in=[Team.EntryStatus.ACCEPTED, Team.EntryStatus.PENDING])
            .exists()
        )
    else:  # a player joins once, as themselves
        can_apply = not (
            Team.objects.filter(owner=request.user, league=league)
            .exclude(status=Team.Status.RETIRED)
            .filter(entry_status__in=[Team.EntryStatus.ACCEPTED, Team.EntryStatus.PENDING])
            .exists()
        )
    context = {
        "league": league,
        "seasons": seasons,
        "current": current,
        "accepted": [t for t in teams if t.entry_status == Team.EntryStatus.ACCEPTED],
        "pending": [t for t in teams if t.entry_status == Team.EntryStatus.PENDING],
        "is_master": is_master,
        "can_apply": can_apply,
        "table": selectors.league_table(current)[:8] if current else [],
        "progress": dashboard.season_progress(current) if current else None,
    }
    return render(request, "league/league_detail.html", context)


@login_required
def league_edit(request: HttpRequest, slug: str) -> HttpResponse:
    league = _league(slug)
    require_master(request.user, league)
    form = HouseRulesForm(request.POST if request.method == "POST" else None, instance=league)
    if submit_form(
        request,
        form,
        lambda data: services.league_update(league=league, description=data["description"], **form.house_rules()),
        "House rules saved. They apply from the next season; running seasons keep theirs.",
    ):
        return redirect(league)
    intro = f"{league.name} plays {league.get_game_display()} (fixed when it was founded)."
    return render(
        request,
        "league/form.html",
        {"form": form, "title": f"House rules of {league.name}", "league": league, "intro": intro},
    )


@login_required
def league_apply(request: HttpRequest, slug: str) -> HttpResponse:
    league = _league(slug)
    data = request.POST if request.method == "POST" else None
    if not league.game_site.team_scrolls:
        return _player_apply(request, league, data)
    form = ApplyForm(data, user=request.user)
    if submit_form(
        request,
        form,
        lambda data: services.team_apply(team=data["team"], league=league),
        lambda _: f"{form.cleaned_data['team'].name} has applied to {league.name}; the ninja master will answer.",
    ):
        return redirect(league)
    return render(
        request,
        "league/form.html",
        {
            "form": form,
            "title": f"Apply to {league.name}",
            "league": league,
            "intro": "Choose one of your teams that is not already in a league.",
        },
    )


def _player_apply(request: HttpRequest, league: League, data) -> HttpResponse:
    """Joining a league of a game without team scrolls: the player applies as themselves."""
    form = PlayerApplyForm(data)
    if submit_form(
        request,
        form,
        lambda data: services.player_apply(user=request.user, league=league, display_name=data["display_name"]),
        lambda entry: f"You have applied to {league.name} as {entry.name}; the ninja master will answer.",
    ):
        return redirect(league)
    intro = (
        f"{league.name} plays {league.get_game_display()}: you join as a player, with no team to build. "
        "The ninja master accepts or refuses the application."
    )
    return render(
        request, "league/form.html", {"form": form, "title": f"Join {league.name}", "league": league, "intro": intro}
    )


@login_required
def applications(request: HttpRequest, slug: str) -> HttpResponse:
    league = _league(slug)
    require_master(request.user, league)
    if request.method == "POST":
        form = ApplicationDecisionForm(request.POST)
        if form.is_valid():
            team = get_object_or_404(Team, pk=form.cleaned_data["team"], league=league)
            try:
                if form.cleaned_data["decision"] == "accept":
                    entry = services.application_accept(team=team)
                    where = f" and entered in {entry.season.name}" if entry else ""
                    messages.success(request, f"{team.name} is accepted{where}.")
                else:
                    services.application_refuse(team=team)
                    messages.info(request, f"{team.name} is refused.")
            except ValidationError as exc:
                messages.error(request, " ".join(exc.messages))
        return redirect("league:applications", slug=league.slug)
    action = reverse("league:applications", kwargs={"slug": league.slug})
    rows = [
        (
            team,
            ApplicationDecisionForm(initial={"decision": "accept", "team": team.pk}, decision="accept"),
            ApplicationDecisionForm(initial={"decision": "refuse", "team": team.pk}, decision="refuse"),
        )
        for team in selectors.league_teams(league).filter(entry_status=Team.EntryStatus.PENDING)
    ]
    for _, accept, refuse in rows:
        accept.helper.form_action = refuse.helper.form_action = action
    return render(request, "league/applications.html", {"league": league, "rows": rows})


@login_required
@require_POST
def application_withdraw(request: HttpRequest, slug: str) -> HttpResponse:
    """The team's player takes back its pending application (the button on the team page)."""
    league = _league(slug)
    form = WithdrawApplicationForm(request.POST)
    if not form.is_valid():
        messages.error(request, "That request was not understood.")
        return redirect(league)
    team = get_object_or_404(Team, pk=form.cleaned_data["team"], league=league)
    if not can_withdraw_application(request.user, team):
        raise PermissionDenied("Only the team's player may withdraw its pending application.")
    try:
        services.application_withdraw(team=team, league=league)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.info(request, f"The application of {team.name} to {league.name} is withdrawn.")
    return redirect(team)


# --- seasons -------------------------------------------------------------------------------------


def _season_plan(data: dict) -> dict:
    """A season form's choices as the season services take them."""
    return {
        "name": data["name"],
        "format": data["format"],
        "swiss_rounds": data.get("swiss_rounds"),
        "playoff_teams": data.get("playoff_teams") or 0,
    }


def _entrants(league: League, count: int) -> str:
    """ "5 teams", "1 player": a count of entrants in the league's game's own word."""
    info = league.game_info
    return f"{count} {info.entrant if count == 1 else info.entrants}"


@login_required
def season_create(request: HttpRequest, slug: str) -> HttpResponse:
    league = _league(slug)
    require_master(request.user, league)
    form = SeasonForm(request.POST if request.method == "POST" else None, game=league.game)
    done = submit_form(
        request,
        form,
        lambda data: services.season_create(league=league, **_season_plan(data)),
        lambda season: (
            f"{season.name} is open with {_entrants(league, season.entries.count())} and the league's current "
            "house rules."
        ),
    )
    if done:
        return redirect(done.result)
    return render(
        request,
        "league/form.html",
        {
            "form": form,
            "title": f"New season of {league.name}",
            "league": league,
            "intro": "The season takes a copy of the league's current house rules: later changes never rewrite it.",
        },
    )


def _schedule_forms(season: Season) -> list[dict]:
    """The generate buttons the master sees, with why each is unavailable (if it is)."""
    kinds = []
    kind = services.FORMAT_KIND.get(season.format)
    if kind:
        kinds.append(kind)
    if season.playoff_teams >= 2 and not season.schedule_runs.filter(kind=ScheduleRun.Kind.PLAYOFF).exists():
        kinds.append(ScheduleRun.Kind.PLAYOFF)
    action = reverse("league:schedule_generate", kwargs={"slug": season.league.slug, "number": season.number})
    out = []
    for kind in kinds:
        round_number, problems = services.schedule_next(season, kind)
        label = {
            ScheduleRun.Kind.ROUND_ROBIN: "Generate the whole schedule",
            ScheduleRun.Kind.RANDOM_WEEKLY: f"Draw round {round_number}",
            ScheduleRun.Kind.SWISS: f"Pair swiss round {round_number}",
            ScheduleRun.Kind.PLAYOFF: f"Start the playoffs (top {season.playoff_teams})",
            ScheduleRun.Kind.TABLES: f"Seat round {round_number} of tables",
            ScheduleRun.Kind.SWISS_TABLES: f"Seat swiss tables, round {round_number}",
        }[kind]
        done = _schedule_done(season, kind, round_number, problems)
        if done:  # nothing more to generate of this kind: say so, not "not yet"
            out.append({"kind": kind, "done": done})
            continue
        form = ScheduleForm(initial={"kind": kind, "round_number": round_number}, label=label, action=action)
        if kind != ScheduleRun.Kind.ROUND_ROBIN:
            del form.fields["interval_days"]
        if not season.league.game_site.challenges:
            del form.fields["challenge"]  # a game without All-Stars' challenges
        out.append({"kind": kind, "form": form, "problems": problems})
    return out


def _schedule_done(season: Season, kind: str, round_number: int, problems: list[str]) -> str:
    """What is already made of a schedule that has nothing more to generate ("" if more may come)."""
    if kind == ScheduleRun.Kind.ROUND_ROBIN and schedules.SCHEDULE_MADE in problems:
        return "The whole schedule is made: every fixture is on the fixtures page."
    rounds = (ScheduleRun.Kind.SWISS, ScheduleRun.Kind.TABLES, ScheduleRun.Kind.SWISS_TABLES)
    if kind in rounds and season.swiss_rounds and round_number > season.swiss_rounds:
        return f"All {season.swiss_rounds} rounds are made."
    return ""


def _final_decided(slots: list[tuple[int, int | None]]) -> bool:
    """Whether the playoff final (the bracket's last round, of one slot) has its winner, from the
    bracket's (round, winner) pairs."""
    if not slots:
        return False
    last = max(number for number, _ in slots)
    final = [winner for number, winner in slots if number == last]
    return len(final) == 1 and final[0] is not None


#: The longest ``?table=`` value read as a number (a longer run of digits is past the last page).
_TABLE_PAGE_DIGITS = 9


def table_page_asked(request: HttpRequest, parameter: str = "table") -> int:
    """The page of the league table ``?table=<n>`` asks for (or of another list, by its
    ``parameter``): a positive whole number, else 1 (no parameter, ``abc``, ``-1``, ``0``); a
    number past the list's last page is clamped to it by the caller (``selectors.clamp_page``), so
    no value answers anything but a page of the list."""
    value = request.GET.get(parameter, "")
    if not (value.isascii() and value.isdigit()):
        return 1
    if len(value.lstrip("0")) > _TABLE_PAGE_DIGITS:
        return 10**_TABLE_PAGE_DIGITS
    return max(int(value), 1)


def table_fragment_key(season: Season, number: int) -> str:
    """The fragment of a page of the season's table: ``season-table:<pk>`` for the first (as it
    always was), ``season-table:<pk>:<n>`` for another."""
    return f"season-table:{season.pk}" if number == 1 else f"season-table:{season.pk}:{number}"


def season_detail(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = _season(slug, number, count_entries=True)
    depends(request, *season_scopes(season))
    is_master = is_league_master(request.user, season.league)
    # the master's panel (the schedule's runs, the playoffs' and the simulations' forms) alone reads
    # the bracket and the runs: a member's or a visitor's page reads neither
    panel = is_master and not season.is_finished
    bracket = list(season.bracket_slots.values_list("round_number", "winner_id")) if panel else []  # a few rows
    # The whole ranking is read at most once a request, by whichever of the table's page and the
    # member's line is not in the cache (both need every row's position).
    ranking = functools.cache(lambda: selectors.table_ranking(season))
    # past the last page: the last (the entries counted with the season, no query more)
    page = 1 if season.is_finished else selectors.clamp_page(table_page_asked(request), season.entry_count)
    context = {
        "season": season,
        "league": season.league,
        "is_master": is_master,
        "table": None
        if season.is_finished
        else fragment(
            table_fragment_key(season, page),
            lambda: _table_html(season, page, ranking()),
            season_scopes(season),
            request,
        ),
        "table_lines": _own_table_lines(season, page, ranking, request)
        if request.user.is_authenticated and not season.is_finished
        else [],
        "archived": season.final_table if season.is_finished else None,
        "final_table": _final_table_html(season) if season.is_finished else "",
        "tie_breakers": [
            tie_breaker_choices(season.league.game).get(t, TIE_BREAKER_CHOICES.get(t, t))
            for t in season.tie_breaker_list
        ],
        "runs": list(season.schedule_runs.order_by("-id")[:5]) if panel else [],
        "has_bracket": bool(bracket),
    }
    if panel:
        context["schedule_forms"] = _schedule_forms(season)
        if bracket and not _final_decided(bracket):  # after the final: nothing to advance
            context["advance_form"] = SimpleActionForm(
                label="Advance the playoffs",
                css="btn-outline-primary",
                action=reverse("league:playoffs_advance", kwargs={"slug": slug, "number": number}),
            )
    if season.format == Season.Format.SELF_ARRANGED and not season.is_finished and request.user.is_authenticated:
        context["can_arrange"] = is_master or season.entries.filter(team__owner=request.user).exists()
    return render(request, "league/season_detail.html", context)


def _table_page_url(season: Season, number: int) -> str:
    """A page of the season's table, host-relative (the first is the season's own address)."""
    url = season.get_absolute_url()
    return f"{url}#table" if number == 1 else f"{url}?table={number}#table"


def _table_html(season: Season, page: int = 1, ranking: list | None = None) -> str:
    """A page of the running season's table with each team's next fixture (the same for every
    reader), in its game's columns (``Game.table_columns``: league/table_layout.py), and the pager
    under it when the table has more than one page (``_table_pages.html``). The ranking is the
    whole table's; the next fixtures and what a row shows are read for the page's rows alone."""
    shown = selectors.table_page(season, page, ranking=ranking)
    # a table of one page holds every entrant: the season's prefix, with no filter by team
    nexts = selectors.next_fixtures(season, [row.team.pk for row in shown.rows], subset=shown.count > 1)
    site, game = season.league.game_site, season.league.game_info
    html = table_layout.render_table(
        site.columns(season),
        [(row, nexts.get(row.team.pk)) for row in shown.rows],
        entrant=game.entrant,
        system=game.strength_system,
        scrolls=site.team_scrolls,
        show_next=True,
    )
    if shown.count > 1:
        html += render_to_string(
            "league/includes/_table_pages.html",
            {
                "page": shown,
                "entrants": game.entrants,
                "links": [
                    (n, _table_page_url(season, n)) if n else (None, "")
                    for n in _page_window(shown.number, shown.count)
                ],
                "previous_url": _table_page_url(season, shown.number - 1) if shown.has_previous else "",
                "next_url": _table_page_url(season, shown.number + 1) if shown.has_next else "",
                "size": shown.size,
            },
        )
    return html


def _page_window(number: int, count: int, around: int = 2) -> list[int | None]:
    """The page numbers a pager lists: the first, the last and ``around`` either side of
    ``number``, a gap (None) where it skips some; a phone wraps the short list."""
    keep = sorted({1, count, *range(max(1, number - around), min(count, number + around) + 1)})
    out: list[int | None] = []
    for n in keep:
        if out and n - out[-1] > 1:
            out.append(None)
        out.append(n)
    return out


def _own_table_lines(season: Season, page: int, ranking, request) -> list[dict]:
    """For a member with an entry in the season: where each of theirs stands when it is on another
    page than the one shown ("Your team Herons: position 70, page 2"). Where every entry stands is
    a fragment of its own (``season-table-places:<pk>``: owner, entry, position and name, JSON;
    empty for a table of one page), under the table's versions: a warm page reads no ranking for
    the line, and no query."""

    def render() -> str:
        places = selectors.table_places(ranking())
        return json.dumps(places) if len(places) > selectors.TABLE_PAGE_SIZE else ""

    text = fragment(f"season-table-places:{season.pk}", render, season_scopes(season), request)
    lines = []
    for owner, _team, position, name in json.loads(str(text)) if text else ():
        if owner != request.user.pk or (on := selectors.page_of(position)) == page:
            continue
        lines.append({"name": name, "position": position, "page": on, "url": _table_page_url(season, on)})
    return lines


def _final_table_html(season: Season) -> str:
    """A finished season's archived table (``Season.final_table``) in the columns its game keeps."""
    site, game = season.league.game_site, season.league.game_info
    rows = (season.final_table or {}).get("rows", [])
    return table_layout.render_table(
        site.columns(season, archived=True),
        [(row, None) for row in rows],
        entrant=game.entrant,
        system=game.strength_system,
        testid="final-table",
    )


@login_required
@require_safe
def season_desk(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """The master's desk: the season's rounds at a glance and what waits for the master."""
    season = _season(slug, number)
    require_master(request.user, season.league)
    if season.is_finished:
        raise Http404("This season is finished: its desk is closed.")
    return render(
        request,
        "league/season_desk.html",
        {"season": season, "league": season.league, "is_master": True, "desk": dashboard.master_desk(season)},
    )


def season_fixtures(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = _season(slug, number)
    depends(request, *season_scopes(season))
    # A page of whole rounds; without ?page= the one the season is playing (or page 1 when every
    # fixture is decided): a club night opens on its round, not on round 1 of 63.
    asked = table_page_asked(request, "page") if "page" in request.GET else None
    page = selectors.fixtures_page(season, asked)
    choosable = {m.pk for r in page.rounds for m in r.matches if can_set_challenge(request.user, m)}
    return render(
        request,
        "league/season_fixtures.html",
        {
            "season": season,
            "league": season.league,
            "rounds": page.rounds,
            "page": page,
            "size": selectors.FIXTURES_PAGE_SIZE,
            "pager": [
                (n, f"{_fixtures_url(season)}?page={n}", *page.titles[n - 1]) if n else (None, "", "", "")
                for n in _page_window(page.number, page.count)
            ]
            if page.count > 1
            else [],
            "choosable": choosable,
            "is_master": is_league_master(request.user, season.league),
        },
    )


def season_bracket(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = _season(slug, number)
    depends(request, *season_scopes(season))
    rounds = selectors.bracket(season)
    total = len(rounds[0]).bit_length() if rounds else 0  # rounds in a full bracket
    return render(
        request,
        "league/season_bracket.html",
        {
            "season": season,
            "league": season.league,
            "rounds": rounds,
            "total_rounds": total,
            "is_master": is_league_master(request.user, season.league),
        },
    )


@login_required
def season_rollover(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = _season(slug, number)
    require_master(request.user, season.league)
    if season.is_finished:
        raise Http404("This season is already finished.")
    form = RolloverForm(
        request.POST if request.method == "POST" else None,
        initial={"format": season.format, "swiss_rounds": season.swiss_rounds, "playoff_teams": season.playoff_teams},
        game=season.league.game,
    )
    done = submit_form(
        request,
        form,
        lambda data: services.season_rollover(season=season, **_season_plan(data)),
        lambda new: (
            f"{season.name} is archived. {new.name} is open with {_entrants(season.league, new.entries.count())}."
        ),
    )
    if done:
        return redirect(done.result)
    return render(
        request,
        "league/form.html",
        {
            "form": form,
            "title": f"Finish {season.name}",
            "league": season.league,
            "intro": "The final table is archived as it stands; accepted teams carry over with their rosters, "
            "treasuries and any downtime absences."
            if season.league.game_site.team_scrolls
            else f"The final table is archived as it stands; accepted {season.league.game_info.entrants} carry over.",
        },
    )


# --- schedules -----------------------------------------------------------------------------------


def _dispatch(run: ScheduleRun) -> DispatchResult:
    """Send the task after commit; with the broker down it waits in the outbox (sent again later)."""
    return dispatch_on_commit(
        schedule_generate_task, args=[run.pk], task_id=run.task_id, description=f"Generate fixtures: {run}"
    )


@login_required
@require_POST
def schedule_generate(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = _season(slug, number)
    require_master(request.user, season.league)
    form = ScheduleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "That schedule request was not understood.")
        return redirect(season)
    data = form.cleaned_data
    dispatched = None
    try:
        with transaction.atomic():
            run = services.schedule_request(
                season=season,
                kind=data["kind"],
                round_number=data["round_number"],
                challenge=data.get("challenge"),
                actor=request.user,
                starts_on=data.get("starts_on"),
                deadline=data.get("deadline"),
                interval_days=data.get("interval_days") or 7,
            )
            if run.status == ScheduleRun.Status.PENDING:
                dispatched = _dispatch(run)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect(season)
    if dispatched is not None and dispatched.failed:
        messages.error(request, f"The fixtures could not be generated: {dispatched.error}")
    elif dispatched is not None and dispatched.delayed:
        messages.warning(
            request, "The task runner is unreachable just now: the fixtures will be generated as soon as it is back."
        )
    return redirect(run)


def schedule_run(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(ScheduleRun.objects.select_related("season", "season__league"), pk=pk)
    progress = progress_of(jobs.kind_of(ScheduleRun), run)
    return render(
        request,
        "league/schedule_run.html",
        {"run": run, "season": run.season, "league": run.season.league, "progress": progress},
    )


@login_required
@require_POST
def playoffs_advance(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = _season(slug, number)
    require_master(request.user, season.league)
    made = services.playoffs_advance(season=season)
    if made:
        messages.success(request, f"{len(made)} playoff fixture{'s' if len(made) != 1 else ''} created.")
    else:
        messages.info(
            request, "Nothing to advance: the current playoff round is not complete (or the final is played)."
        )
    return redirect("league:season_bracket", slug=slug, number=number)


# --- fixtures ------------------------------------------------------------------------------------


@login_required
def fixture_create(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """A self-arranged game: a player puts one of their teams against another team of the season."""
    season = _season(slug, number)
    if season.format != Season.Format.SELF_ARRANGED or season.is_finished:
        raise Http404("Fixtures of this season are scheduled by the master.")
    entered = Team.objects.filter(season_entries__season=season)
    is_master = is_league_master(request.user, season.league)
    own = entered if is_master else entered.filter(owner=request.user)
    if not own.exists():
        raise PermissionDenied("You have no team in this season.")
    data = request.POST if request.method == "POST" else None
    tables = season.league.game_site.tables
    if tables:  # a table of 3 to 5 (issue 28, part 4)
        form = TableArrangeForm(data, season=season, own_teams=own)
    else:
        form = FixtureArrangeForm(data, season=season, own_teams=own)

    def arrange(data):
        sides = data["sides"] if tables else [data["home"], data["away"]]
        if not can_arrange_fixture(request.user, season, *sides):
            raise PermissionDenied("You may arrange games only for your own team.")
        if tables:
            return services.fixture_arrange(season=season, sides=sides, date=data.get("date"))
        return services.fixture_arrange(
            season=season, home=data["home"], away=data["away"], challenge=data.get("challenge"), date=data.get("date")
        )

    def arranged(match) -> str:
        names = [side.team.name for side in match.sides.select_related("team").order_by("slot")]
        return f"{', '.join(names[:-1])} {'and' if tables else 'v'} {names[-1]} is on the fixture list."

    if done := submit_form(request, form, arrange, arranged):
        return redirect(_fixtures_url(season, done.result))  # the page listing the new game
    return render(
        request, "league/form.html", {"form": form, "title": f"Arrange a game — {season.name}", "league": season.league}
    )


@login_required
def fixture_challenge(request: HttpRequest, pk: int) -> HttpResponse:
    match = get_object_or_404(
        Match.objects.select_related("league", "season__league", "challenge").prefetch_related(
            Prefetch("sides", queryset=MatchTeam.objects.select_related("team", "team__owner").order_by("slot"))
        ),
        pk=pk,
    )
    if refusal := challenge_refusal(request.user, match):
        raise PermissionDenied(refusal)
    form = FixtureChallengeForm(
        request.POST if request.method == "POST" else None, initial={"challenge": match.challenge_id}
    )
    if submit_form(
        request,
        form,
        lambda data: services.fixture_set_challenge(match=match, challenge=data["challenge"]),
        lambda _: f"The challenge is {match.challenge.name}.",
    ):
        if match.season_id:
            return redirect(_fixtures_url(match.season, match))
        return redirect("home")
    return render(
        request, "league/fixture_challenge.html", {"match": match, "form": form, "sides": list(match.sides.all())}
    )


# --- the round life cycle: dates, rescheduling, pairings, forfeits, replays (issue 13) ----------


def _fixture(pk: int) -> Match:
    return get_object_or_404(
        Match.objects.select_related("league", "season", "season__league", "challenge").prefetch_related(
            Prefetch("sides", queryset=MatchTeam.objects.select_related("team", "team__owner").order_by("slot"))
        ),
        pk=pk,
    )


def _managed_fixture(request: HttpRequest, pk: int) -> Match:
    match = _fixture(pk)
    if not can_manage_fixture(request.user, match):
        raise PermissionDenied("Only the league's ninja master may change a fixture.")
    return match


def _fixtures_url(season: Season, match: Match | None = None) -> str:
    """The season's fixtures (the page the season is playing); with ``match``, the page listing it."""
    url = reverse("league:season_fixtures", kwargs={"slug": season.league.slug, "number": season.number})
    return url if match is None else f"{url}?page={selectors.fixtures_page_of(season, match)}"


def _action_page(request: HttpRequest, match: Match, title: str, **context) -> HttpResponse:
    return render(
        request,
        "league/fixture_action.html",
        {
            "match": match,
            "sides": list(match.sides.all()),
            "season": match.season,
            "league": match.season.league,
            "title": title,
            "back": _fixtures_url(match.season),
            **context,
        },
    )


@login_required
def round_dates(request: HttpRequest, slug: str, number: int, round_number: int, playoff: bool = False) -> HttpResponse:
    """The master sets (or clears) a round's start and deadline."""
    season = _season(slug, number)
    require_master(request.user, season.league)
    stage = playoff_stage(round_number) if playoff else REGULAR_STAGE
    current = Round.objects.filter(season=season, stage=stage, round_number=round_number).first()
    initial = {"starts_on": current.starts_on, "deadline": current.deadline} if current else {}
    form = RoundDatesForm(request.POST if request.method == "POST" else None, initial=initial)
    title = f"{'Playoffs, round' if playoff else 'Round'} {round_number}: dates"
    refusal = "The season is over." if season.is_finished else None
    if submit_form(
        request,
        form,
        lambda data: services.round_set_dates(
            season=season,
            stage=stage,
            round_number=round_number,
            starts_on=data.get("starts_on"),
            deadline=data.get("deadline"),
        ),
        f"The dates of {title.split(':')[0].lower()} are saved.",
        allowed=not refusal,
    ):
        return redirect(_fixtures_url(season))
    return render(
        request,
        "league/fixture_action.html",
        {
            "season": season,
            "league": season.league,
            "title": title,
            "refusal": refusal,
            "form": None if refusal else form,
            "facts": ["Its fixtures inherit these dates unless they have their own."],
            "back": _fixtures_url(season),
        },
    )


@login_required
def fixture_reschedule(request: HttpRequest, pk: int) -> HttpResponse:
    match = _managed_fixture(request, pk)
    refusal = services.reschedule_refusal(match)
    form = FixtureRescheduleForm(
        request.POST if request.method == "POST" else None,
        initial={"date": match.date, "deadline": match.deadline, "place": match.place},
    )
    if submit_form(
        request,
        form,
        lambda data: services.fixture_reschedule(
            match=match, date=data.get("date"), deadline=data.get("deadline"), place=data["place"], actor=request.user
        ),
        "The fixture is rescheduled.",
        allowed=not refusal,
    ):
        return redirect(_fixtures_url(match.season))
    return _action_page(
        request,
        match,
        "Reschedule the fixture",
        refusal=refusal,
        form=None if refusal else form,
        facts=["Empty dates fall back on the round's start and deadline."],
    )


@login_required
def fixture_pairing(request: HttpRequest, pk: int) -> HttpResponse:
    """Edit a pairing in two steps: choose the teams, then read what changes (and which rules of
    the schedule it breaks) and confirm."""
    match = _managed_fixture(request, pk)
    refusal = services.pairing_refusal(match)
    sides = list(match.sides.all())
    title = "Edit the pairing"
    if refusal:
        return _action_page(request, match, title, refusal=refusal)
    initial = {"home": sides[0].team_id, "away": sides[1].team_id} if len(sides) == 2 else {}
    form = FixturePairingForm(request.POST if request.method == "POST" else None, season=match.season, initial=initial)
    if request.method != "POST" or not form.is_valid():
        return _action_page(request, match, title, form=form)
    home, away = form.cleaned_data["home"], form.cleaned_data["away"]
    try:
        plan = services.pairing_plan(match=match, home=home, away=away)
    except ValidationError as exc:
        add_service_errors(form, exc)
        return _action_page(request, match, title, form=form)
    if form.cleaned_data["confirm"]:
        try:
            services.fixture_edit_pairing(
                match=match,
                home=home,
                away=away,
                accept_violations=form.cleaned_data["accept_violations"],
                actor=request.user,
            )
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, " ".join(plan.changes))
            return redirect(_fixtures_url(match.season))
    confirm = FixturePairingForm(
        initial={"home": home.pk, "away": away.pk, "confirm": True}, season=match.season, prefix=None
    )
    confirm.fields["home"].widget = confirm.fields["away"].widget = forms.HiddenInput()
    if plan.violations:
        confirm.fields["accept_violations"].widget = forms.CheckboxInput()
        confirm.fields["accept_violations"].required = True
        confirm.submit_label, confirm.submit_class = "Apply it anyway", "btn-danger"
    else:
        confirm.submit_label = "Apply the change"
    confirm._setup_helper()
    return _action_page(
        request, match, "Confirm the new pairing", changes=plan.changes, violations=plan.violations, form=confirm
    )


@login_required
def fixture_forfeit(request: HttpRequest, pk: int) -> HttpResponse:
    match = _managed_fixture(request, pk)
    refusal = services.forfeit_refusal(match)
    sides = list(match.sides.all())
    season = match.season
    form = FixtureForfeitForm(
        request.POST if request.method == "POST" else None,
        sides=sides,
        allow_double=not match.stage.startswith("playoff-"),
        scrolls=season.league.game_site.team_scrolls,
    )
    if submit_form(
        request,
        form,
        lambda data: services.fixture_forfeit(
            match=match, forfeiting=form.forfeiting_ids(), reason=data["reason"], actor=request.user
        ),
        "The forfeit is recorded.",
        allowed=not refusal,
    ):
        return redirect(match)
    if season.league.game_site.team_scrolls:
        facts = [
            f"The winner of a walkover scores {season.forfeit_win_points} league points and earns "
            f"{season.forfeit_win_revenue} koban; the side that forfeits scores {season.forfeit_loss_points} "
            f"points and earns nothing (the season's house rules).",
            "No post-game sequence runs: no XP, no upkeep, no downtime, no advancement rolls; absences still to "
            "serve stay as they are.",
            "A forfeit recorded by mistake can be voided from the match page (the koban go back), then replayed.",
        ]
    else:  # a players' game: league points only (issue 28, part 3)
        facts = [
            f"The winner of a walkover scores {season.forfeit_win_points} league points; the player who "
            f"forfeits scores {season.forfeit_loss_points} (the season's house rules).",
            "A forfeit recorded by mistake can be voided from the match page, then replayed.",
        ]
    return _action_page(
        request, match, "Record a forfeit", refusal=refusal, form=None if refusal else form, facts=facts
    )


@login_required
def table_dropout(request: HttpRequest, pk: int) -> HttpResponse:
    """A player dropped out of a table (issue 28, part 4), in two steps: who and when (and, for a
    table left too small, replay or dissolve), then what it does, confirmed. The master only."""
    match = _managed_fixture(request, pk)
    refusal = services.dropout_refusal(match)
    title = "A player dropped out"
    season = match.season
    rule = (
        f"A player who drops out takes {match.league.game_site.dropout_scores(season)[1].lower()}; the table plays on with "
        "the players present, who score their places (the season's house rules)."
    )
    if refusal:
        return _action_page(request, match, title, refusal=refusal)
    sides = list(match.sides.all())
    form = TableDropoutForm(
        request.POST if request.method == "POST" else None, sides=sides, below_minimum=services.BELOW_MINIMUM
    )
    if request.method != "POST" or not form.is_valid():
        return _action_page(request, match, title, form=form, facts=[rule])
    team, when, below = form.team(), form.cleaned_data["when"], form.cleaned_data["below_minimum"]
    try:
        plan = services.dropout_plan(match=match, team=team, when=when, below_minimum=below)
    except ValidationError as exc:
        add_service_errors(form, exc)
        return _action_page(request, match, title, form=form, facts=[rule])
    if form.cleaned_data["confirm"]:
        try:
            services.table_dropout(match=match, team=team, when=when, below_minimum=below, actor=request.user)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, " ".join(plan.facts[:1]))
            return redirect(_fixtures_url(season))
    confirm = TableDropoutForm(
        initial={"player": team.pk, "when": when, "below_minimum": below, "confirm": True},
        sides=sides,
        below_minimum=services.BELOW_MINIMUM,
    )
    for name in ("player", "when", "below_minimum"):
        confirm.fields[name].widget = forms.HiddenInput()
    confirm.submit_label, confirm.submit_class = "Record the drop-out", "btn-danger"
    confirm._setup_helper()
    return _action_page(request, match, "Confirm the drop-out", changes=plan.facts, form=confirm)


@login_required
def table_dropout_undo(request: HttpRequest, pk: int) -> HttpResponse:
    """A drop-out recorded by mistake, undone (the player is back at the table) in two steps: whose,
    then what it does, confirmed. The master only, while the table has no result."""
    match = _managed_fixture(request, pk)
    refusal = services.dropout_undo_refusal(match)
    title = "Undo a drop-out"
    if refusal:
        return _action_page(request, match, title, refusal=refusal)
    sides = list(match.sides.all())
    form = DropoutUndoForm(request.POST if request.method == "POST" else None, sides=sides)
    if request.method != "POST" or not form.is_valid():
        return _action_page(request, match, title, form=form)
    team = form.team()
    try:
        facts = services.dropout_undo_facts(match, team)
    except ValidationError as exc:
        add_service_errors(form, exc)
        return _action_page(request, match, title, form=form)
    if form.cleaned_data["confirm"]:
        try:
            services.table_dropout_undo(match=match, team=team, actor=request.user)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, facts[0])
            return redirect(_fixtures_url(match.season))
    confirm = DropoutUndoForm(initial={"player": team.pk, "confirm": True}, sides=sides)
    confirm.fields["player"].widget = forms.HiddenInput()
    confirm.submit_label, confirm.submit_class = "Undo the drop-out", "btn-primary"
    confirm._setup_helper()
    return _action_page(request, match, "Confirm: undo the drop-out", changes=facts, form=confirm)


@login_required
def round_seating(request: HttpRequest, slug: str, number: int, round_number: int) -> HttpResponse:
    """The master moves players between the tables of a round before it starts (issue 28, part 4):
    seat each player, read what changes and the repeat meetings it adds, confirm."""
    season = _season(slug, number)
    require_master(request.user, season.league)
    tables = services.round_tables(season, round_number)
    refusal = services.seating_refusal(season, round_number, tables)
    context = {"season": season, "league": season.league, "round_number": round_number, "tables": tables}
    if refusal:
        return render(request, "league/round_seating.html", {**context, "refusal": refusal})
    form = RoundSeatingForm(request.POST if request.method == "POST" else None, tables=tables)
    if request.method != "POST" or not form.is_valid():
        return render(request, "league/round_seating.html", {**context, "form": form})
    seating = form.seating()
    try:
        plan = services.seating_plan(season=season, round_number=round_number, seating=seating)
    except ValidationError as exc:
        add_service_errors(form, exc)
        return render(request, "league/round_seating.html", {**context, "form": form})
    if form.cleaned_data["confirm"]:
        try:
            services.tables_reseat(season=season, round_number=round_number, seating=seating, actor=request.user)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, " ".join(plan.changes))
            return redirect(_fixtures_url(season))
    confirm = RoundSeatingForm(
        initial={"confirm": True, **{f"seat_{pk}": str(table) for pk, table in seating.items()}}, tables=tables
    )
    for name in confirm.players:
        confirm.fields[f"seat_{name}"].widget = forms.HiddenInput()
    confirm.submit_label = "Apply the seating"
    confirm._setup_helper()
    return render(request, "league/round_seating.html", {**context, "form": confirm, "plan": plan})


@login_required
def fixture_replay(request: HttpRequest, pk: int) -> HttpResponse:
    match = _managed_fixture(request, pk)
    refusal = services.replay_refusal(match)
    form = SimpleActionForm(request.POST if request.method == "POST" else None, label="Create the replay")
    if request.method == "POST" and not refusal and form.is_valid():
        try:
            replay = services.fixture_replay(match=match, actor=request.user)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
            return redirect(_fixtures_url(match.season))
        messages.success(request, "The replay is on the fixture list.")
        return redirect(replay)
    facts = [
        f"Voided: {match.void_reason or '—'}.",
        "A new fixture between the same teams, in the same round and slots, with the same challenge"
        + (" (and in the voided game's place in the bracket)." if match.stage else "."),
    ]
    return _action_page(
        request, match, "Replay the voided fixture", refusal=refusal, form=None if refusal else form, facts=facts
    )


# --- invitations (issue 14, part 5) -------------------------------------------------------------


@login_required
def invitations(request: HttpRequest, slug: str) -> HttpResponse:
    """The master's links: make one, see each one's state and uses, revoke one."""
    league = _league(slug)
    require_master(request.user, league)
    form = InvitationCreateForm(request.POST if request.method == "POST" else None)
    done = submit_form(
        request,
        form,
        lambda data: services.invitation_create(
            league=league, actor=request.user, days=data["days"], max_uses=data["max_uses"]
        ),
        "A new invitation link is ready: share it with the players you invite.",
    )
    if done:
        return redirect("league:invitations", slug=league.slug)
    links = [
        (invitation, invitation.refusal(), request.build_absolute_uri(invitation.get_absolute_url()))
        for invitation in league.invitations.all()[:50]
    ]
    return render(request, "league/invitations.html", {"league": league, "form": form, "links": links})


@login_required
@require_POST
def invitation_revoke(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    league = _league(slug)
    require_master(request.user, league)
    invitation = get_object_or_404(LeagueInvitation, pk=pk, league=league)
    services.invitation_revoke(invitation=invitation)
    messages.info(request, "The invitation link is revoked: it no longer works.")
    return redirect("league:invitations", slug=league.slug)


@login_required
def invitation_join(request: HttpRequest, code: str) -> HttpResponse:
    """What an invitation link opens: the league, and a choice of the player's teams to apply with.
    A GET writes nothing; a link that no longer works says why (410)."""
    invitation = get_object_or_404(LeagueInvitation.objects.select_related("league", "league__master"), code=code)
    league = invitation.league
    refusal = invitation.refusal()
    data = request.POST if request.method == "POST" and not refusal else None
    if league.game_site.team_scrolls:
        form = InvitationApplyForm(data, user=request.user)
    else:
        form = PlayerApplyForm(data)
    done = submit_form(
        request,
        form,
        lambda data: services.invitation_apply(
            invitation=invitation,
            team=data.get("team"),
            user=request.user,
            display_name=data.get("display_name", ""),
        ),
        lambda team: f"{team.name} has applied to {league.name}; the ninja master will answer.",
        allowed=not refusal,
    )
    if done:
        return redirect(done.result)
    context = {"invitation": invitation, "league": league, "form": form, "refusal": refusal}
    return render(request, "league/invitation_join.html", context, status=410 if refusal else 200)
