"""The per-game interface: what differs between the games a league can be for, one object a game.

Everything else (leagues, seasons, applications, schedules, byes, the table, playoffs, newsletters,
dashboards, the API) is the same for every game and asks :func:`game_of` for the rest:

* ``info``: the game's plain description from its package in ``games/`` (its key, name, players
  per match, whether entrants have team scrolls), standard library only;
* ``result_form`` and ``validate_result``: the form a side fills to enter a result, and the check a
  submitted result must pass;
* ``points``: the league points a side earns for an outcome under a season's frozen house rules;
* ``simulator``: simulating one fixture, and ``simulate_batch`` a round's fixtures (no entrant
  twice) in one transaction (what "simulate this round / the rest of the season" runs): All-Stars
  plays its rules engine (matches.simulation), the players' games a strength model from the
  players' ratings (matches.game_simulation);
* ``statistics``: the game's statistics; ``stats`` sits above this app in the import direction, so
  it registers its function here in ``StatsConfig.ready()`` (:func:`register_statistics`).

A hook left ``None`` is not available for the game yet: the pages that would use it say so instead
of reaching All-Stars-only code (issue 17, part 1; the other games' forms, points, statistics and
simulators are its later parts). Why this lives in ``league`` and not in ``games/``: the hooks are
Django (forms, querysets) and ``games`` is beneath every app and imports none of them
(tests/test_import_direction.py). Adding a game: its package in ``games/`` (listed in
``games.registry``) and its entry in ``GAMES`` below (docs/leagues.md, "Games").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from games import registry
from games.base import GameInfo
from league.readmodel import side_points
from matches import forms as match_forms
from matches import game_forms, game_results, game_simulation
from matches import services as match_services
from matches import simulation as match_simulation

if TYPE_CHECKING:
    from django import forms

    from league.models import League, Season


#: The games' statistics, by key: given by ``stats`` (above this app) through register_statistics.
_STATISTICS: dict[str, Callable[..., Any]] = {}


@dataclass(frozen=True)
class GameInterface:
    info: GameInfo
    result_form: type[forms.Form] | None = None
    validate_result: Callable[..., None] | None = None
    points: Callable[..., int] = side_points
    simulator: Callable[..., Any] | None = None
    simulate_batch: Callable[..., Any] | None = None

    @property
    def key(self) -> str:
        return self.info.key

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def has_team_scrolls(self) -> bool:
        return self.info.has_team_scrolls

    @property
    def min_players(self) -> int:
        return self.info.min_players

    @property
    def max_players(self) -> int:
        return self.info.max_players

    @property
    def statistics(self) -> Callable[..., Any] | None:
        return _STATISTICS.get(self.key)

    @property
    def can_enter_results(self) -> bool:
        """A result can be entered on the site (its form and its check exist)."""
        return self.result_form is not None and self.validate_result is not None

    @property
    def can_simulate(self) -> bool:
        return self.simulator is not None and self.simulate_batch is not None

    def season_points(self, season: Season, outcome: str, *, forfeited: bool = False) -> int:
        return self.points(season, outcome, forfeited=forfeited)


GAMES: dict[str, GameInterface] = {
    # Ninja All-Stars: what the site did before there were other games.
    registry.ALLSTARS: GameInterface(
        info=registry.get(registry.ALLSTARS),
        result_form=match_forms.ResultForm,
        validate_result=match_services.validate_record,
        points=side_points,
        simulator=match_simulation.simulate_match,
        simulate_batch=match_simulation.simulate_batch,
    ),
    # Ninjutsu: its result form and check (matches.game_forms, matches.game_results); its points
    # are the house rules' win/draw/loss, a game decided on time the time limit's (league_points);
    # simulated by the strength model (Glicko-2).
    registry.NINJUTSU: GameInterface(
        info=registry.get(registry.NINJUTSU),
        result_form=game_forms.NinjutsuResultForm,
        validate_result=game_results.check,
        points=side_points,
        simulator=game_simulation.simulate_match,
        simulate_batch=game_simulation.simulate_batch,
    ),
    # Kage Masters: a table's result form and check; each side's league points are its table's
    # (MatchTeam.league_points, under the season's ``kage_points``), which side_points counts;
    # simulated by the strength model (Plackett-Luce), confirmed through the entered results' path.
    registry.KAGE_MASTERS: GameInterface(
        info=registry.get(registry.KAGE_MASTERS),
        result_form=game_forms.KageMastersResultForm,
        validate_result=game_results.check,
        points=side_points,
        simulator=game_simulation.simulate_match,
        simulate_batch=game_simulation.simulate_batch,
    ),
}
assert set(GAMES) == set(registry.GAMES), "every game of games.registry has its interface here"


def game_of(league: League | str) -> GameInterface:
    """The interface of a league's game (or of a game's key)."""
    return GAMES[league if isinstance(league, str) else league.game]


def register_statistics(key: str, statistics: Callable[..., Any]) -> None:
    """An app above this one gives a game's statistics (called from its ``AppConfig.ready()``)."""
    if key not in GAMES:
        raise KeyError(f"No game {key!r}")
    _STATISTICS[key] = statistics
