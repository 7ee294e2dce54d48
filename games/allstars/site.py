"""Ninja All-Stars' Django side: its :class:`games.protocol.Game`. Its code stays where the design
card puts it (rules/, teams/, matches/, stats.selectors.balance); this module only adapts it to the
protocol (registered from MOONLIGHT_GAMES)."""

from __future__ import annotations

from games import allstars
from games.protocol import Game, SimulatePanel
from league.models import HouseRules
from league.readmodel import side_points
from matches import forms as match_forms
from matches import services as match_services
from matches import simulation as match_simulation
from stats.selectors.balance import balance
from teams.models import StrengthRating

GAME_SITE = Game(
    info=allstars.GAME,
    team_scrolls=True,
    challenges=True,
    result_form=match_forms.ResultForm,
    validate_result=match_services.validate_record,
    points=side_points,
    house_rule_fields=HouseRules.ALLSTARS_ONLY_FIELDS,
    simulator=match_simulation.simulate_match,
    simulate_batch=match_simulation.simulate_batch,
    simulate_panel=SimulatePanel(
        "The rules engine plays the match: rosters, ronin upkeep and advancement rolls as the policy says.",
        "The rules engine plays each fixture, a round at a time, with the post-game sequence.",
        policies=True,
    ),
    statistics=balance,
    rating_system=StrengthRating.System.GLICKO2,
)
