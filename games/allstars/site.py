"""Ninja All-Stars' Django side: its :class:`games.protocol.Game`. Its code stays where the design
card puts it (rules/, teams/, matches/, stats.selectors.balance); this module only adapts it to the
protocol (registered from MOONLIGHT_GAMES)."""

from __future__ import annotations

from django.utils.safestring import mark_safe

from games import allstars
from games.allstars.demo import DEMO
from games.protocol import STRENGTH, Column, Game, SimulatePanel
from league.models import HouseRules
from league.readmodel import side_points
from matches import forms as match_forms
from matches import services as match_services
from matches import simulation as match_simulation
from stats.selectors.balance import balance

#: Its league table: the won, drawn and lost, the points scored and conceded and their difference,
#: the team rating, the strength rating, the league points.
COLUMNS = (
    Column("played", "P", "Played"),
    Column("won", "W", "Won"),
    Column("drawn", "D", "Drawn"),
    Column("lost", "L", "Lost"),
    Column("points_for", "For", "Points scored", hide_below="sm"),
    Column("points_against", "Ag.", "Points conceded", hide_below="sm"),
    Column("points_difference", "+/−", "Difference"),
    Column("rating", "TR", "Team rating", hide_below="md"),
    STRENGTH,
    Column("points", "Pts", "League points", strong=True),
)


GAME_SITE = Game(
    info=allstars.GAME,
    team_scrolls=True,
    challenges=True,
    result_form=match_forms.ResultForm,
    validate_result=match_services.validate_record,
    points=side_points,
    table_columns=lambda _season: COLUMNS,
    scores=True,
    house_rule_fields=HouseRules.ALLSTARS_ONLY_FIELDS,
    simulator=match_simulation.simulate_match,
    simulate_batch=match_simulation.simulate_batch,
    simulate_panel=SimulatePanel(
        mark_safe(
            "The simulator plays the challenge with the rosters as they stand; the result goes through the post-game sequence at once and is marked simulated. Ronin upkeep is paid while the treasury covers it. The policy takes only the advancement rolls this match earns; a roll left to the players by another match stays theirs, and a team with one cannot kick off until it is chosen."
        ),
        mark_safe(
            "Simulated results go through the post-game sequence at once and are marked simulated. Ronin upkeep is paid while the treasury covers it; advancement rolls are taken by the stated policy (+1 Attack, Defense, Movement, an affinity, then combat keywords) or left to the players. The policy takes only the rolls of the matches the simulation plays: a roll left to the players stays theirs, and a team with one cannot kick off, so the simulation stops at its next fixture until the roll is chosen."
        ),
        policies=True,
    ),
    statistics=balance,
    demo=DEMO,
)
