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
