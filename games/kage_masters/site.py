"""Kage Masters' Django side: its :class:`games.protocol.Game` (registered from MOONLIGHT_GAMES).
The code is its own modules (games/kage_masters/: forms, results, statistics, newsletter, api) and what
any game of players shares (games.players)."""

from __future__ import annotations

from games import kage_masters
from games.kage_masters import api, forms, house_rules, newsletter, results, statistics
from games.kage_masters.demo import DEMO
from games.kage_masters.simulation import strength_record
from games.kage_masters.views import RULES_URLS
from games.players import simulation, sites
from games.protocol import Game, SimulatePanel
from league.readmodel import side_points

GAME_SITE = Game(
    info=kage_masters.GAME,
    tables=True,
    result_form=forms.KageMastersResultForm,
    bind_result_form=forms.bind_result_form,
    validate_result=results.check,
    side_results=results.side_results,
    result_summary=results.summary,
    result_table=results.kage_table,
    dropout_line=lambda name, when, season: results.dropout_line(name, when, house_rules.DROPOUT.of(season)),
    dropout_rule=house_rules.dropout_rule,
    api_result_input=api.KageResultInput,
    points=side_points,
    table_columns=results.table_columns,
    career_record=results.career_record,
    points_word="treasure",
    house_rules=house_rules.HOUSE_RULES,
    league_rules_template="games/kage_masters/_league_rules.html",
    season_rules_template="games/kage_masters/_season_rules.html",
    simulator=simulation.simulate_match,
    simulate_batch=simulation.simulate_batch,
    strength_record=strength_record,
    simulation_context=sites.simulation_context,
    simulate_panel=SimulatePanel(sites.STRENGTH_PANEL_MATCH, sites.STRENGTH_PANEL_SEASON),
    statistics=statistics.kage_statistics,
    statistics_template="games/kage_masters/_statistics.html",
    newsletter_report=newsletter.kage_report,
    rules_urls=RULES_URLS,
    rules_nav=(("Kage Masters", "rules:kage_masters"),),
    demo=DEMO,
)
