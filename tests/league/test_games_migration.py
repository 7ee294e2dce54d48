"""Existing data migrates unchanged (issue 17, part 1): the leagues and teams made before there was
a game per league come out of migrations league.0013 and teams.0007 as All-Stars, every other
column as it was, and the new check constraint holds for them."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from league.models import League
from teams.models import Team


@pytest.mark.slow(reason="migrates the database back to an old state and forward again")
def test_existing_leagues_and_teams_are_all_stars_after_the_migration(transactional_db, catalog):
    before = [("league", "0012_league_invitations"), ("teams", "0006_team_life_colours_motto_retirement")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    User = apps.get_model("auth", "User")
    LeagueOld, TeamOld = apps.get_model("league", "League"), apps.get_model("teams", "Team")
    clan = apps.get_model("rules", "Clan").objects.get(slug="tora")
    master = User.objects.create(username="old-master")
    old_league = LeagueOld.objects.create(
        name="Old League", name_key="old league", slug="old-league", master=master, starting_koban=120
    )
    old_team = TeamOld.objects.create(
        name="Old Tigers", name_key="old tigers", owner=master, clan=clan, league=old_league, treasury=42
    )

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    league = League.objects.get(pk=old_league.pk)
    team = Team.objects.get(pk=old_team.pk)
    assert (league.game, league.name, league.starting_koban) == ("allstars", "Old League", 120)
    assert (team.game, team.clan.slug, team.league_id, team.treasury) == ("allstars", "tora", league.pk, 42)
    assert team.has_scroll and league.has_team_scrolls


@pytest.mark.slow(reason="migrates the database back to an old state and forward again")
def test_the_games_own_house_rules_move_into_game_rules_and_back(transactional_db, catalog):
    """league.0023-0024 (issue 28, part 1): Ninjutsu's time limit and Kage Masters' place points,
    once fields of the core's, move into each league's and season's ``game_rules`` (the game's own,
    games/<key>/house_rules.py) with their values, and back when migrated backwards; an All-Stars
    league keeps none."""
    before = [("league", "0022_game_rules")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    User = apps.get_model("auth", "User")
    LeagueOld, SeasonOld = apps.get_model("league", "League"), apps.get_model("league", "Season")
    master = User.objects.create(username="old-master")

    def league(name, game, **rules):
        return LeagueOld.objects.create(
            name=name, name_key=name.lower(), slug=name.lower(), master=master, game=game, **rules
        )

    timed = league("Clock", "ninjutsu", time_limit_minutes=45, points_time_win=2)
    tables = league(
        "Dice", "kage_masters", kage_points="fixed", kage_fixed_points="5,3,2,1,0", kage_dropout="forfeit_loss"
    )
    stars = league("Stars", "allstars", time_limit_minutes=30)  # unused by All-Stars: not carried
    SeasonOld.objects.create(league=timed, number=1, name="S1", time_limit_minutes=60)
    SeasonOld.objects.create(league=tables, number=1, name="S1", kage_points="winner_only")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert League.objects.get(pk=timed.pk).game_rules == {
        "time_limit_minutes": 45,
        "points_time_win": 2,
        "points_time_loss": None,
    }
    assert League.objects.get(pk=tables.pk).own_rules == {
        "kage_points": "fixed",
        "kage_fixed_points": "5,3,2,1,0",
        "kage_dropout": "forfeit_loss",
    }
    assert League.objects.get(pk=stars.pk).game_rules == {}
    assert League.objects.get(pk=timed.pk).seasons.get().own_rules["time_limit_minutes"] == 60
    assert League.objects.get(pk=tables.pk).seasons.get().own_rules["kage_points"] == "winner_only"

    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    back = apps.get_model("league", "League").objects.get(pk=tables.pk)
    assert (back.kage_points, back.kage_fixed_points, back.kage_dropout, back.game_rules) == (
        "fixed",
        "5,3,2,1,0",
        "forfeit_loss",
        {},
    )
    assert apps.get_model("league", "Season").objects.get(league_id=timed.pk).time_limit_minutes == 60
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
