"""watch_writes (tests/trust/world.py): the page walks' check that a request wrote nothing, which
fingerprints the database only when the request ran a statement that may write."""

from __future__ import annotations

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.db import transaction

from teams.models import Team
from tests.factories import UserFactory, make_team
from tests.trust import world as world_module
from tests.trust.world import watch_writes, writes_rows

pytestmark = pytest.mark.usefixtures("catalog")


def test_a_block_that_only_reads_costs_no_fingerprint(monkeypatch):
    make_team("tora", name="Readers")
    taken = []
    monkeypatch.setattr(world_module, "fingerprint", lambda: taken.append(1) or {})
    with watch_writes() as watched:
        assert Team.objects.filter(name="Readers").exists()
        list(Team.objects.select_for_update().all())
    assert watched.statement is None and watched.changed == [] and taken == []


def test_a_write_is_found_and_rolled_back():
    team = make_team("tora", name="Writers")
    with watch_writes() as watched:
        Team.objects.filter(pk=team.pk).update(name="Scribblers")
        UserFactory(username="watch-new-user")
    assert watched.statement.lstrip().upper().startswith("UPDATE")
    assert any(line.startswith("teams_team:") for line in watched.changed), watched.changed
    assert any(line.startswith("auth_user:") for line in watched.changed), watched.changed
    # the block's writes are gone: the caller sees the database as it was before the block
    assert Team.objects.get(pk=team.pk).name == "Writers"


def test_a_write_undone_inside_the_block_changes_nothing():
    team = make_team("tora", name="Undone")
    with watch_writes() as watched, transaction.atomic():
        Team.objects.filter(pk=team.pk).update(name="Changed")
        transaction.set_rollback(True)
    assert watched.statement is not None and watched.changed == []


def test_the_session_table_is_not_a_write_of_the_request():
    with watch_writes() as watched:
        session = SessionStore()
        session["seen"] = True
        session.save()
    assert watched.statement is None and watched.changed == []


@pytest.mark.parametrize(
    ("sql", "writes"),
    [
        ('SELECT "teams_team"."id" FROM "teams_team"', False),
        ("  select 1", False),
        ('SAVEPOINT "s1"', False),
        ('RELEASE SAVEPOINT "s1"', False),
        ('ROLLBACK TO SAVEPOINT "s1"', False),
        ('UPDATE "django_session" SET "session_data" = %s', False),
        ('INSERT INTO "teams_team" ("name") VALUES (%s)', True),
        ('UPDATE "teams_team" SET "name" = %s', True),
        ('DELETE FROM "teams_team" WHERE "id" = %s', True),
        ("WITH x AS (DELETE FROM teams_team RETURNING id) SELECT * FROM x", True),
        ('CREATE TABLE "t" ("id" integer)', True),
    ],
)
def test_which_statements_count_as_writes(sql, writes):
    assert writes_rows(sql) is writes
