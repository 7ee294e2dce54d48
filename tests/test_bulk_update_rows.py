"""common.bulk.update_rows: several rows, different values, one statement, on SQLite and PostgreSQL
(CI), for the column types the post-game sequence writes (integers, text, booleans, a timestamp,
a nullable column set and cleared, JSON)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from common.bulk import update_rows
from teams.models import Ninja, Team
from tests.factories import make_team, recruit

pytestmark = pytest.mark.django_db


def test_each_row_gets_its_own_values_in_one_statement(catalog):
    team = make_team("tora")
    ninjas = [recruit(team, "tora-kaiken") for _ in range(3)]
    other = make_team("ika")
    bystander = recruit(other, "ika-kaiken")
    when = dt.datetime(2026, 12, 1, 5, 30, tzinfo=dt.UTC)
    ninjas[0].xp, ninjas[0].status, ninjas[0].released_at = 7, Ninja.Status.RELEASED, when
    ninjas[1].xp, ninjas[1].starts_in_healing_house = 0, True
    ninjas[2].xp, ninjas[2].misses_games, ninjas[2].release_reason = 12, 2, "a name with 'quotes' and ; semicolons"
    with CaptureQueriesContext(connection) as queries:
        changed = update_rows(
            Ninja, ninjas, ["xp", "status", "released_at", "starts_in_healing_house", "misses_games", "release_reason"]
        )
    assert changed == 3
    assert len(queries) == 1
    rows = {n.pk: n for n in Ninja.objects.filter(pk__in=[n.pk for n in ninjas])}
    for ninja in ninjas:
        row = rows[ninja.pk]
        assert (row.xp, row.status, row.released_at, row.starts_in_healing_house, row.misses_games) == (
            ninja.xp,
            ninja.status,
            ninja.released_at,
            ninja.starts_in_healing_house,
            ninja.misses_games,
        )
        assert row.release_reason == ninja.release_reason
    bystander.refresh_from_db()
    assert bystander.xp == 0 and bystander.status == Ninja.Status.ACTIVE

    ninjas[0].released_at = None  # a nullable column cleared
    update_rows(Ninja, ninjas[:1], ["released_at"])
    assert Ninja.objects.get(pk=ninjas[0].pk).released_at is None


def test_json_and_foreign_key_columns(catalog):
    from matches.models import Match, MatchTeam

    home, away, third = make_team("tora"), make_team("ika"), make_team("tora")
    match = Match.objects.create()
    sides = [MatchTeam.objects.create(match=match, team=t, slot=i + 1) for i, t in enumerate((home, away))]
    sides[0].roster_snapshot = [{"id": 1, "name": "Kenji", "keywords": ["Stealth"], "nested": {"a": [1, 2]}}]
    sides[1].roster_snapshot = []
    sides[1].team = third  # a foreign key column
    assert update_rows(MatchTeam, sides, ["roster_snapshot", "team"]) == 2
    rows = {s.pk: s for s in MatchTeam.objects.filter(match=match)}
    assert rows[sides[0].pk].roster_snapshot == sides[0].roster_snapshot
    assert rows[sides[1].pk].roster_snapshot == []
    assert (rows[sides[0].pk].team_id, rows[sides[1].pk].team_id) == (home.pk, third.pk)


def test_nothing_to_write_sends_nothing_and_the_key_is_refused(catalog):
    team = make_team("tora")
    with CaptureQueriesContext(connection) as queries:
        assert update_rows(Ninja, [], ["xp"]) == 0
        assert update_rows(Team, [team], []) == 0
    assert len(queries) == 0
    with pytest.raises(ValueError):
        update_rows(Team, [team], ["id"])
