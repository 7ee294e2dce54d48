"""What other apps do when the league writes something, without ``league`` importing them.

Apps above ``league`` register hooks in their ``AppConfig.ready()`` (as in matches/hooks.py). The
hooks run inside the transaction of the write, so one that fails rolls it back: a hook should only
write rows (and queue work after the commit).

* *fixtures created*: a schedule run wrote a round's fixtures, or two players arranged one;
* *application decided*: the master accepted or refused a team's application.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from league.models import League
    from matches.models import Match
    from teams.models import Team

_fixtures: dict[str, Callable[[Sequence[Match]], object]] = {}
_decided: dict[str, Callable[[Team, League, bool], object]] = {}


def on_fixtures_created(name: str, hook: Callable[[Sequence[Match]], object]) -> None:
    """Register ``hook(matches)``; registering a name again replaces it."""
    _fixtures[name] = hook


def fixtures_created(matches: Sequence[Match]) -> None:
    if not matches:
        return
    for hook in list(_fixtures.values()):
        hook(matches)


def on_application_decided(name: str, hook: Callable[[Team, League, bool], object]) -> None:
    """Register ``hook(team, league, accepted)``; registering a name again replaces it."""
    _decided[name] = hook


def application_decided(team: Team, league: League, *, accepted: bool) -> None:
    for hook in list(_decided.values()):
        hook(team, league, accepted)
