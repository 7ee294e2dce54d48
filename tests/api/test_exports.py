"""CSV downloads, and the league export that round-trips byte for byte."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from api.backup import league_export_json, league_import
from league.models import League
from matches.models import Match
from teams.models import Team

pytestmark = pytest.mark.usefixtures("catalog")


def _rows(resp) -> list[list[str]]:
    assert resp.status_code == 200 and resp["Content-Type"].startswith("text/csv")
    assert "attachment" in resp["Content-Disposition"]
    return list(csv.reader(io.StringIO(resp.content.decode())))


def test_the_table_csv_is_the_pages_table(world, client):
    from league.selectors import league_table

    url = reverse("exports:table_csv", kwargs={"slug": "lantern", "number": 1})
    assert url in client.get(reverse("league:season_detail", kwargs={"slug": "lantern", "number": 1})).content.decode()
    rows = _rows(client.get(url))
    assert rows[0][:3] == ["position", "team", "owner"]
    expected = league_table(world.season)
    assert [r[1] for r in rows[1:]] == [row.team.name for row in expected]
    # played 2, won 2: the confirmed win and the walkover of the forfeited fixture (tests/trust/world.py)
    assert rows[1][1:6] == ["Tigers", "trust-player", "Tora", "2", "2"]


def test_the_roster_csv_lists_the_active_roster(world, client):
    url = reverse("exports:roster_csv", kwargs={"pk": world.team_a.pk})
    assert url in client.get(world.team_a.get_absolute_url()).content.decode()
    rows = _rows(client.get(url))
    names = sorted(r[0] for r in rows[1:])
    assert names == sorted(world.team_a.ninjas.filter(status="active").values_list("name", flat=True))


def test_a_name_that_looks_like_a_formula_is_quoted(world, client):
    from api.exports import _cell

    assert _cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and _cell("@SUM") == "'@SUM" and _cell("Tigers") == "Tigers"
    Team.objects.filter(pk=world.team_a.pk).update(name="=1+1")
    rows = _rows(client.get(reverse("exports:table_csv", kwargs={"slug": "lantern", "number": 1})))
    assert "'=1+1" in [r[1] for r in rows]


def _wipe() -> None:
    """Everything but the rules catalog: the database an import expects."""
    from django.apps import apps
    from django.contrib.auth import get_user_model

    for label in ("newsletters", "league", "matches", "teams"):
        for model in reversed(list(apps.get_app_config(label).get_models(include_auto_created=True))):
            model._base_manager.all()._raw_delete(model._base_manager.db)
    get_user_model().objects.all().delete()


def test_export_import_export_is_byte_identical(world, tmp_path, settings):
    league = world.league
    from league.models import Round

    Round.objects.create(  # round dates travel with the league (issue 13)
        season=world.season, stage="", round_number=1, starts_on=dt.date(2026, 3, 2), deadline=dt.date(2026, 3, 9)
    )
    first = league_export_json(league)
    document = json.loads(first)
    assert [(r["round_number"], r["deadline"]) for r in document["rounds"]] == [(1, "2026-03-09")]
    # confirmed, submitted, open, disputed, forfeited, rescheduled and voided (tests/trust/world.py)
    assert len(document["matches"]) == 7 and {"Tigers", "Squids"} <= {t["name"] for t in document["teams"]}
    assert any(m["status"] == "confirmed" for m in document["matches"])
    assert document["treasury_entries"] and document["xp_events"] and document["dice_rolls"] is not None
    assert document["newsletters"] and "trust-player" in document["users"]

    path = tmp_path / "lantern.json"
    call_command("export_league", "lantern", "-o", str(path))
    assert path.read_bytes() == first

    _wipe()
    assert not League.objects.exists() and not Match.objects.exists()
    call_command("import_league", str(path))
    again = league_export_json(League.objects.get(slug="lantern"))
    assert again == first
    # the imported league is a league: its table and scrolls read as before
    imported = League.objects.get(slug="lantern")
    assert imported.master.username == "trust-master" and not imported.master.has_usable_password()
    tigers = Team.objects.get(name="Tigers")
    assert tigers.treasury == document["teams"][[t["name"] for t in document["teams"]].index("Tigers")]["treasury"]
    assert tigers.treasury == sum(tigers.ledger.values_list("amount", flat=True))


def test_import_refuses_a_database_that_is_not_empty(world):
    from django.core.exceptions import ValidationError

    document = json.loads(league_export_json(world.league))
    with pytest.raises(ValidationError, match="empty database"):
        league_import(document)
    with pytest.raises(ValidationError, match="Not a moonlight"):
        league_import({"format": "something else"})


@pytest.mark.parametrize("poison", ["\x00", "\ud800"])
def test_import_refuses_a_nul_or_a_lone_surrogate_anywhere(world, poison):
    """Issue 27, item 16: the import is a JSON boundary too; PostgreSQL refuses a NUL, UTF-8 a lone
    surrogate. Refused before anything else is looked at, so nothing is written."""
    from django.core.exceptions import ValidationError

    document = json.loads(league_export_json(world.league))
    document["users"] = [*document["users"][:-1], f"trust{poison}"]
    with pytest.raises(ValidationError, match="no field may hold"):
        league_import(document)


def test_the_masters_download(world, client):
    client.force_login(world.users["master"])
    url = reverse("exports:league_export", kwargs={"slug": "lantern"})
    assert url in client.get(reverse("league:detail", kwargs={"slug": "lantern"})).content.decode()
    resp = client.get(url)
    assert resp.status_code == 200 and resp["Content-Type"] == "application/json"
    assert resp.content == league_export_json(world.league)
    client.force_login(world.users["player"])
    assert client.get(reverse("exports:league_export", kwargs={"slug": "lantern"})).status_code == 403


def test_a_league_that_replayed_a_voided_fixture_round_trips(world, tmp_path):
    """Issue 27, finding 11: a match's ``replay_of`` points at another match of the same section,
    which the import had not created yet (``KeyError: Match``). Export, import into an empty
    database and export again: the same bytes, the replay still pointing at the voided fixture."""
    from league import services as league_services

    voided = world.extra["voided"]
    replay = league_services.fixture_replay(match=voided, actor=world.users["master"])
    first = league_export_json(world.league)
    document = json.loads(first)
    [replayed] = [m for m in document["matches"] if m["replay_of"] is not None]
    assert document["matches"][replayed["replay_of"] - 1]["status"] == voided.status

    path = tmp_path / "lantern.json"
    path.write_bytes(first)
    _wipe()
    call_command("import_league", str(path))
    imported = League.objects.get(slug="lantern")
    assert league_export_json(imported) == first
    again = Match.objects.get(replay_of__isnull=False)
    assert again.replay_of.status == voided.status and again.pairing_reason == replay.pairing_reason


def test_an_export_holds_the_leagues_teams_not_its_applicants(world):
    """Issue 27, finding 8: the export carried the teams whose application waited or was refused,
    with their rosters and ledgers; a league's document holds its members and the teams that
    played in it."""
    states = world.extra["team_states"]
    document = json.loads(league_export_json(world.league))
    names = {t["name"] for t in document["teams"]}
    assert {world.team_a.name, world.team_b.name} <= names
    assert states["pending"].name not in names and states["refused"].name not in names
    ninjas = {n["name"] for n in document["ninjas"]}
    assert not ninjas & {n.name for n in world.extra["state_ninjas"].values()} - {
        n.name for n in world.team_b.ninjas.all()
    }
