"""Simulation pages for the league's ninja master: simulate a fixture, a round or the rest of a
season as a Celery task, and follow it on a progress page.

Kept apart from league/views.py (seasons) and matches/views.py (result entry) so the two can change independently. Each view
validates its form and calls one service; who may do it is decided by the services' permission
helpers (the league's master only, 403 for everyone else).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from league.models import Season
from league.progress import simulation_next_url
from league.services import simulations as simulation
from league.simulation_forms import SimulateForm
from league.tasks import simulation_job_task
from matches import services
from matches.models import Match, SimulationJob
from outbox import jobs
from outbox.dispatch import dispatch_on_commit
from outbox.progress import progress_of
from teams.permissions import is_league_master


def _request_and_dispatch(request: HttpRequest, form: SimulateForm, **kwargs) -> SimulationJob:
    """Record the job and send its task after commit (stored in the outbox if the broker is down)."""
    with transaction.atomic():
        job, created = simulation.simulation_request(
            actor=request.user,
            policy=form.cleaned_data["policy"],
            max_rounds=form.cleaned_data.get("max_rounds"),
            **kwargs,
        )
        dispatched = None
        if created:
            dispatched = dispatch_on_commit(
                simulation_job_task, args=[job.pk], task_id=job.task_id, description=str(job)
            )
    if dispatched is not None and dispatched.failed:
        messages.error(request, f"The simulation stopped: {dispatched.error}")
    elif dispatched is not None and dispatched.delayed:
        messages.warning(request, "The task queue is unavailable: the simulation will start as soon as it is back.")
    elif not created:
        outcome = getattr(job, "request_outcome", "running")
        if outcome == "resumed":
            messages.warning(request, f"The earlier simulation here had stopped. {job.restart_note}")
        elif outcome == "waiting":
            messages.info(
                request,
                "A simulation is already asked for here: it waits for the task queue and starts as soon as it is back.",
            )
        else:
            messages.info(request, "A simulation is already under way here.")
    return job


@login_required
@require_POST
def simulate_fixture(request: HttpRequest, pk: int) -> HttpResponse:
    match = get_object_or_404(Match.objects.select_related("league", "season"), pk=pk)
    if not services.is_master_of(request.user, match):
        raise PermissionDenied("Only the league's ninja master may simulate a fixture.")
    form = SimulateForm(
        request.POST, label="Simulate", action="", scrolls=match.league is None or match.league.game_site.team_scrolls
    )
    if not form.is_valid():
        messages.error(request, "That simulation request was not understood.")
        return redirect(match)
    try:
        job = _request_and_dispatch(request, form, scope=SimulationJob.Scope.MATCH, match=match)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect(match)
    return redirect(job)


def _season_post(request: HttpRequest, slug: str, number: int, scope: str) -> HttpResponse:
    season = get_object_or_404(Season.objects.select_related("league"), league__slug=slug, number=number)
    if not is_league_master(request.user, season.league):
        raise PermissionDenied("Only the league's ninja master may simulate the season.")
    whole = scope in (SimulationJob.Scope.SEASON, SimulationJob.Scope.REGULAR)
    weekly = 1 if whole and season.format == Season.Format.RANDOM_WEEKLY else None
    form = SimulateForm(
        request.POST, label="Simulate", action="", weekly_rounds=weekly, scrolls=season.league.game_site.team_scrolls
    )
    if not form.is_valid():
        messages.error(request, "That simulation request was not understood.")
        return redirect(season)
    try:
        job = _request_and_dispatch(request, form, scope=scope, season=season)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect(season)
    return redirect(job)


@login_required
@require_POST
def simulate_round(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    return _season_post(request, slug, number, SimulationJob.Scope.ROUND)


@login_required
@require_POST
def simulate_season(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    return _season_post(request, slug, number, SimulationJob.Scope.SEASON)


@login_required
@require_POST
def simulate_regular_season(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    return _season_post(request, slug, number, SimulationJob.Scope.REGULAR)


def _job(**lookup) -> SimulationJob:
    return get_object_or_404(
        SimulationJob.objects.select_related("league", "season", "season__league", "match"), **lookup
    )


def simulation_job(request: HttpRequest, pk: int) -> HttpResponse:
    job = _job(pk=pk)
    return render(
        request,
        "league/simulation_job.html",
        {
            "job": job,
            "season": job.season,
            "league": job.league,
            "next_url": simulation_next_url(job),
            "progress": progress_of(jobs.kind_of(SimulationJob), job),
        },
    )
