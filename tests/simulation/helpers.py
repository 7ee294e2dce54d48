"""Helpers for the simulation tests."""

from __future__ import annotations

from teams.models import Ninja, Team, XpEvent
from tests.factories import UserFactory, make_team, recruit


def on_the_edge_of_a_level(teams, xp: int = 7) -> None:
    """Give every model ``xp`` XP (as an XpEvent, so the scroll stays consistent): any XP earned
    in the next game reaches the next level and earns an advancement roll."""
    ninjas = list(Ninja.objects.filter(team__in=teams, status=Ninja.Status.ACTIVE))
    XpEvent.objects.bulk_create([XpEvent(ninja=n, amount=xp, reason="test: earlier games") for n in ninjas])
    Ninja.objects.filter(pk__in=[n.pk for n in ninjas]).update(xp=xp)


def roster_team(league, clan: str, picks: list[tuple[str, int]], *, name: str) -> Team:
    team = make_team(clan, owner=UserFactory(), name=name, league=league)
    for slug, count in picks:
        recruit(team, slug, count)
    team.refresh_from_db()
    return team
