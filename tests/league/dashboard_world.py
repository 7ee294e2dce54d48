"""A hand-built world for the dashboard and desk tests (issue 14): a round robin season in which
one player's team has fixtures in every state, built through the services (kick-off, submissions,
rejections), plus history, applications and advancement rolls. Two sizes of it give the same
pages the same queries.

Round ``r``'s deadline is ``today + (r - OVERDUE_ROUND - 1)`` days from ``OVERDUE_ROUND + 1`` on,
and every earlier round's deadline has passed: the rounds played in history are done, and the
round after them holds the player's overdue fixture.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.utils import timezone

from league import services as league_services
from league.models import League, ScheduleRun, Season
from matches import services as match_services
from matches.models import Match
from teams.models import AdvancementRoll, Ninja, Team
from tests.factories import LeagueFactory, UserFactory, make_team
from tests.league.helpers import add_team, generate, legalise, make_season, play_round
from tests.support import record_for


@dataclass
class DashWorld:
    season: Season
    league: League
    master: object
    player: object
    team: Team  # the player's team in the season
    today: dt.date
    fixtures: dict[str, list[Match]] = field(default_factory=dict)  # the player's fixtures by state
    rolls: list[AdvancementRoll] = field(default_factory=list)
    applications: list[Team] = field(default_factory=list)  # other players' pending applications
    player_applications: dict[str, list[Team]] = field(default_factory=dict)


def _sides(match: Match) -> tuple[Team, Team]:
    home, away = (s.team for s in match.sides.select_related("team", "team__owner").order_by("slot"))
    return home, away


def dash_world(
    *,
    teams: int,
    history: int,
    to_confirm: int,
    disputed: int,
    rejected: int,
    in_play: int = 1,
    rolls: int = 1,
    applications: int = 1,
    extra_teams: int = 0,
) -> DashWorld:
    """``teams`` teams (even) in a round robin; ``history`` rounds played by everyone; then the
    player's fixtures, round after round: one overdue, ``to_confirm`` entered by the opponent,
    ``disputed`` with two different records, ``rejected`` sent back by the player, ``in_play``
    kicked off; the rest are still to play. ``rolls`` advancement rolls to choose for the player's
    ninja, ``applications`` pending applications to the league by other players, and
    ``extra_teams`` more teams of the player in no league."""
    player = UserFactory()
    season = make_season(teams - 1, with_ninja=True)
    team = add_team(season.league, owner=player, with_ninja=True)
    generate(season, ScheduleRun.Kind.ROUND_ROBIN)
    season.refresh_from_db()
    today = timezone.localdate()
    overdue_round = history + 1
    for number in range(1, teams):
        deadline = today + dt.timedelta(days=number - overdue_round - 1)
        league_services.round_set_dates(season=season, stage="", round_number=number, deadline=deadline)
    for number in range(1, history + 1):
        play_round(season, number)
    mine = list(
        Match.objects.filter(season=season, sides__team=team, round_number__gt=history).order_by("round_number")
    )
    world = DashWorld(
        season=season, league=season.league, master=season.league.master, player=player, team=team, today=today
    )
    world.fixtures["overdue"] = [mine.pop(0)]
    states = (("to_confirm", to_confirm), ("disputed", disputed), ("rejected", rejected), ("in_play", in_play))
    for state, count in states:
        world.fixtures[state] = [mine.pop(0) for _ in range(count)]
    world.fixtures["next"] = mine
    for match in [m for state, _ in states for m in world.fixtures[state]]:
        for side in match.sides.select_related("team__clan"):
            legalise(side.team)  # an illegal roster cannot kick off
        match_services.match_kick_off(match=match)
    team.refresh_from_db()  # its treasury after the recruits
    for state in ("to_confirm", "disputed", "rejected"):
        for match in world.fixtures[state]:
            home, away = _sides(match)
            opponent = away if home == team else home
            record = record_for(match, {home.pk: 2, away.pk: 1})
            match_services.match_submit_result(match=match, record=record, actor=opponent.owner)
            if state == "disputed":
                record = record_for(match, {home.pk: 1, away.pk: 2})
                match_services.match_submit_result(match=match, record=record, actor=player)
            elif state == "rejected":
                match_services.match_reject(match=match, actor=player, reason="Wrong score")
    ninja = team.ninjas.filter(status=Ninja.Status.ACTIVE).first()
    # Written around the services (as a post-game sequence would leave them), after the kick-offs
    # they would have blocked.
    world.rolls = [AdvancementRoll.objects.create(ninja=ninja, level=2, faces=["Fire", "Water"]) for _ in range(rolls)]
    world.applications = [make_team(owner=UserFactory(), league=season.league) for _ in range(applications)]
    elsewhere = LeagueFactory()
    world.player_applications = {
        "pending": [make_team(owner=player, league=elsewhere)],
        "refused": [league_services.application_refuse(team=make_team(owner=player, league=elsewhere))],
    }
    for _ in range(extra_teams):
        make_team(owner=player)
    for matches in world.fixtures.values():
        for match in matches:
            match.refresh_from_db()
    return world


def small_world() -> DashWorld:
    return dash_world(teams=8, history=1, to_confirm=1, disputed=1, rejected=1)


def large_world() -> DashWorld:
    """More teams, more history, and more of everything than a list shows."""
    return dash_world(
        teams=24, history=3, to_confirm=6, disputed=2, rejected=6, in_play=1, rolls=7, applications=7, extra_teams=12
    )
