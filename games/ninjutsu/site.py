"""Ninjutsu's Django side: its :class:`games.protocol.Game` (registered from MOONLIGHT_GAMES).
The code is its own modules (games/ninjutsu/: forms, results, statistics, newsletter, api) and what
any game of players shares (games.players)."""

from __future__ import annotations

from games import ninjutsu
from games.ninjutsu import api, forms, house_rules, newsletter, results, statistics
from games.ninjutsu.demo import DEMO
from games.ninjutsu.simulation import strength_record
from games.ninjutsu.views import RULES_URLS
from games.players import simulation, sites
from games.protocol import Game, SimulatePanel
from league.readmodel import side_points

GAME_SITE = Game(
    info=ninjutsu.GAME,
    result_form=forms.NinjutsuResultForm,
    bind_result_form=forms.bind_result_form,
    validate_result=results.check,
    side_results=results.side_results,
    result_line=results.result_line,
    result_line_keys=("winner", "ending"),
    result_summary=results.summary,
    api_result_input=api.NinjutsuResultInput,
    points=side_points,
    table_columns=results.table_columns,
    career_record=results.career_record,
    house_rules=house_rules.HOUSE_RULES,
    league_rules_template="games/ninjutsu/_league_rules.html",
    season_rules_template="games/ninjutsu/_season_rules.html",
    simulator=simulation.simulate_match,
    simulate_batch=simulation.simulate_batch,
    strength_record=strength_record,
    simulation_context=sites.simulation_context,
    simulate_panel=SimulatePanel(sites.STRENGTH_PANEL_MATCH, sites.STRENGTH_PANEL_SEASON),
    statistics=statistics.ninjutsu_statistics,
    statistics_template="games/ninjutsu/_statistics.html",
    newsletter_report=newsletter.ninjutsu_report,
    rules_urls=RULES_URLS,
    rules_nav=(("Ninjutsu battle odds", "rules:ninjutsu_odds"), ("Ninjutsu", "rules:ninjutsu")),
    demo=DEMO,
)
