"""The master's simulate buttons, for the match page and the season page.

`{% simulate_fixture_panel match %}` and `{% simulate_season_panel season %}` render nothing for
anyone but the league's master (the permission helpers decide, not the template)."""

from __future__ import annotations

from django import template
from django.urls import reverse

from games import registry as games
from league.models import Season
from league.services import simulations as simulation
from league.simulation_forms import SimulateForm
from matches import services
from matches.models import Match, SimulationJob, SimulationRun
from teams.permissions import is_league_master

register = template.Library()


def _panel(league):
    """The simulate panel's words: the league's game's (games.protocol.SimulatePanel); a friendly
    outside any league is the default game's."""
    return (league.game_site if league is not None else games.game_of(games.DEFAULT)).simulate_panel


@register.inclusion_tag("league/includes/_simulate_fixture.html", takes_context=True)
def simulate_fixture_panel(context, match: Match) -> dict:
    """The simulate button (the master, a scheduled fixture) or, for a simulated match, how the
    simulator played it (seed, policy, dice summary, the log)."""
    if match.simulated:
        run = SimulationRun.objects.filter(match=match).first()
        return {"show": False, "run": run, "scrolls": match.league is None or match.league.game_site.team_scrolls}
    user = context["request"].user
    if match.status != Match.Status.SCHEDULED or not services.is_master_of(user, match):
        return {"show": False}
    if match.league_id is not None and (unavailable := simulation.simulation_unavailable(match.league)):
        return {"show": True, "unavailable": unavailable}
    scrolls = match.league is None or match.league.game_site.team_scrolls
    form = SimulateForm(
        label="Simulate this fixture",
        action=reverse("simulation:simulate", kwargs={"pk": match.pk}),
        prefix_id="sim-match",
        scrolls=scrolls,
    )
    return {
        "show": True,
        "form": form,
        "scrolls": scrolls,
        "panel": _panel(match.league),
        "job": match.simulation_jobs.filter(status__in=simulation.OPEN).first(),
    }


@register.inclusion_tag("league/includes/_simulate_season.html", takes_context=True)
def simulate_season_panel(context, season: Season) -> dict:
    user = context["request"].user
    if season.is_finished or not is_league_master(user, season.league):
        return {"show": False}
    if unavailable := simulation.simulation_unavailable(season.league):
        return {"show": True, "unavailable": unavailable}
    kwargs = {"slug": season.league.slug, "number": season.number}
    scrolls = season.league.game_site.team_scrolls
    current = simulation.next_round(season)
    weekly = simulation.default_weekly_rounds(season) if season.format == Season.Format.RANDOM_WEEKLY else None
    round_label = "Simulate this round"
    if current is not None:
        stage, number = current
        if stage:
            round_label = f"Simulate the playoffs, round {number}"
        else:
            round_label = f"Simulate {'round ' + str(number) if number else 'the arranged fixtures'}"
    return {
        "show": True,
        "panel": _panel(season.league),
        "current": current,
        "round_form": SimulateForm(
            label=round_label,
            action=reverse("simulation:simulate_round", kwargs=kwargs),
            prefix_id="sim-round",
            scrolls=scrolls,
        ),
        "regular_form": SimulateForm(
            label="Simulate the rest of the regular season",
            action=reverse("simulation:simulate_regular_season", kwargs=kwargs),
            weekly_rounds=weekly,
            prefix_id="sim-regular",
            css="btn-outline-danger",
            scrolls=scrolls,
        )
        if simulation.offers_regular_season(season, bracket=context.get("has_bracket"))
        else None,
        "season_form": SimulateForm(
            label="Simulate the rest of the season" + (", the playoffs too" if season.playoff_teams >= 2 else ""),
            action=reverse("simulation:simulate_season", kwargs=kwargs),
            weekly_rounds=weekly,
            prefix_id="sim-season",
            css="btn-outline-danger",
            scrolls=scrolls,
        ),
        "scrolls": scrolls,
        "entrants": season.league.game_info.entrants,
        "job": SimulationJob.objects.filter(season=season, status__in=simulation.OPEN).first(),
    }
