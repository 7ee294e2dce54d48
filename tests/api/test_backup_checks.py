"""An import trusts nothing in its document (issue 27, finding 12): a bad document is refused with
one sentence naming the section and the row, before anything is written (the row counts of every
table are the same after each refusal), and a good one is copied into a new league of its
importer's."""

from __future__ import annotations

import copy
import json
import time

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model

from api.backup import ImportRefused, league_check, league_document_read, league_export_json, league_import
from league.models import League, LeagueInvitation
from newsletters.models import Newsletter
from teams.models import Team

pytestmark = pytest.mark.usefixtures("catalog")


def counts() -> dict[str, int]:
    return {
        model._meta.label: model._base_manager.count()
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and model._meta.app_label not in ("sessions", "admin")
    }


@pytest.fixture
def document(world) -> dict:
    return json.loads(league_export_json(world.league))


def refused(document, match: str, **kw) -> str:
    """Import ``document`` as a copy for the staff member; assert it is refused with ``match`` and
    that nothing was written."""
    before = counts()
    owner = kw.pop("owner", None) or get_user_model().objects.get(username="trust-staff")
    with pytest.raises(ImportRefused, match=match) as caught:
        league_import(document, owner=owner, name=kw.pop("name", "Copied Lanterns"), slug=kw.pop("slug", "copied"))
    assert counts() == before
    assert len(caught.value.messages) == 1
    return caught.value.messages[0]


def test_a_copy_becomes_a_new_league_of_the_importer(world, document):
    staff = world.users["staff"]
    league = league_import(document, owner=staff, name="Copied Lanterns", slug="copied")
    assert league.master == staff and league.slug == "copied" and league.name == "Copied Lanterns"
    assert set(Team.objects.filter(league=league).values_list("owner__username", flat=True)) == {"trust-staff"}
    assert League.objects.get(slug="lantern").master == world.users["master"]  # the original is untouched
    # the copy's invitation links are its own
    original = set(LeagueInvitation.objects.filter(league=world.league).values_list("code", flat=True))
    copied = set(LeagueInvitation.objects.filter(league=league).values_list("code", flat=True))
    assert copied and not copied & original
    assert league.seasons.count() == 1 and league.newsletters.count() == 2


def test_newsletter_html_is_made_again_through_the_sanitiser(world, document):
    """The document's HTML is not read: the editorial's is made from its Markdown, the sections'
    from the sections by the build's template, both through the newsletters' sanitiser (a chart's
    drawing is the one piece of the sections laid out unescaped)."""
    document["newsletters"][0]["editorial"] = "Hello <script>alert(1)</script> **there**"
    document["newsletters"][0]["editorial_html"] = "<script>alert(2)</script>"
    document["newsletters"][0]["content_html"] = '<p onclick="x()">Results<script>alert(3)</script></p>'
    document["newsletters"][0]["sections"] = {
        "charts": [
            {"title": "Points", "svg": '<svg onload="alert(4)"><script>alert(5)</script><rect x="1"></rect></svg>'}
        ]
    }
    league = league_import(document, owner=world.users["staff"], name="Copied Lanterns", slug="copied")
    html = " ".join(
        a + b for a, b in Newsletter.objects.filter(league=league).values_list("editorial_html", "content_html")
    )
    assert "<script" not in html and "onclick" not in html and "onload" not in html and "alert" not in html
    assert "<strong>there</strong>" in html and '<rect x="1"></rect>' in html and "Results" not in html


def test_a_document_of_version_1_imports_with_its_html_sanitised(world, document):
    """A backup made before ids inside JSON fields were places (version 1) still imports, its JSON
    fields as they were and its sections' HTML through the sanitiser."""
    document["version"] = 1
    document["newsletters"][0]["content_html"] = '<p onclick="x()">Results<script>alert(3)</script></p>'
    league = league_import(document, owner=world.users["staff"], name="Copied Lanterns", slug="copied")
    html = " ".join(Newsletter.objects.filter(league=league).values_list("content_html", flat=True))
    assert "<p>Results</p>" in html and "alert" not in html and "onclick" not in html


def test_an_id_inside_a_json_field_must_be_a_row_of_the_document(world, document):
    [record] = [m for m in document["matches"] if m["status"] == "submitted"][:1]
    record["submitted_record"]["teams"][0]["team_id"] = 99
    refused(document, r"matches, row \d+: its submitted_record names teams row 99, which the document does not have")


@pytest.mark.parametrize("slug", ["../../etc", "Lantern/..", "a b", ""])
def test_a_slug_that_is_not_a_slug(world, document, slug):
    refused(document, "league: its slug", slug=slug)


@pytest.mark.parametrize("name", ["Lantern League", "LANTERN  league", "Lаntern League", "Ｌantern League"])
def test_a_name_that_looks_like_another_leagues(world, document, name):
    """The same name, or one the site's name key makes the same (case, spaces, a Cyrillic a, a
    full-width L): refused as the league form refuses it."""
    refused(document, "already exists", name=name)


def test_the_slug_of_another_league(world, document):
    refused(document, "league: its slug: League with this Slug already exists", slug="lantern")


def test_users_no_row_names(world, document):
    document["users"] = sorted([*document["users"], *(f"ghost{i}" for i in range(200_000))])
    start = time.perf_counter()
    message = refused(document, "is named by no row")
    assert time.perf_counter() - start < 10 and "users: 'ghost" in message


def test_a_ledger_that_is_not_the_treasury(world, document):
    document["treasury_entries"] = document["treasury_entries"] * 2
    refused(document, r"treasury entries, row \d+: its balance after")


def test_a_treasury_that_is_not_the_ledger(world, document):
    document["teams"][0]["treasury"] += 5
    refused(document, r"teams, row 1: its treasury \(\d+\) is not the sum of its ledger")


def test_two_leagues(world, document):
    document["league"] = document["league"] * 2
    refused(document, "exactly one league; this one holds 2")


def test_a_reference_outside_the_document(world, document):
    document["match_teams"][0]["match"] = 999
    refused(document, "match teams, row 1: its match points at matches row 999, which the document does not have")
    document["match_teams"][0]["match"] = "1"
    refused(document, "match teams, row 1: its match points at matches row 1,")


def test_a_missing_field(world, document):
    del document["match_teams"][0]["slot"]
    refused(document, "match teams, row 1: its slot is missing")


@pytest.mark.parametrize(
    "section, field, value, message",
    [
        ("teams", "treasury", "lots", "teams, row 1: its treasury is not a whole number"),
        ("teams", "name", "x" * 500, "teams, row 1: its name: Ensure this value has at most 80 characters"),
        ("teams", "name", {"a": 1}, "teams, row 1: its name is not text"),
        ("teams", "status", "king", "teams, row 1: its status: Value 'king' is not a valid choice"),
        ("match_teams", "slot", 2**70, "match teams, row 1: its slot: Ensure this value is less than or equal"),
        ("matches", "friendly", "yes", "matches, row 1: its friendly is not true or false"),
        ("matches", "created_at", "yesterday", "matches, row 1: its created_at"),
        ("teams", "clan", "dragons", "teams, row 1: its clan names clan 'dragons', which the rules catalog"),
        ("matches", "submitted_by", 7, "matches, row 1: its submitted_by is not a username"),
        ("league", "starting_koban", 9_200_000_000_000_000_000, "league: its starting_koban"),
    ],
)
def test_a_value_of_the_wrong_kind(world, document, section, field, value, message):
    document[section][0][field] = value
    refused(document, message.replace("(", r"\(").replace(")", r"\)"))


def test_a_row_repeated(world, document):
    document["match_teams"].append(copy.deepcopy(document["match_teams"][0]))
    refused(document, r"match teams, row \d+: its match and team repeats row 1's")


def test_an_unknown_section_or_field(world, document):
    refused({**document, "secrets": []}, "a section this site does not know: 'secrets'")
    document["teams"][0]["is_superuser"] = True
    refused(document, "teams, row 1: 'is_superuser' is not a field of this section")


def test_a_section_that_is_not_rows(world, document):
    refused({**document, "teams": {"a": 1}}, "The section teams is not a list of rows")
    refused({**document, "users": "everyone"}, "The section users is not a list of usernames")


def test_a_restore_refuses_a_username_the_site_has(world, document):
    from tests.api.test_backup_round_trip import wipe

    wipe()
    get_user_model().objects.create(username="trust-player")
    before = counts()
    with pytest.raises(ImportRefused, match="users: 'trust-player' already has an account on this site"):
        league_import(document)
    assert counts() == before


def test_deep_nesting_is_refused_before_parsing():
    with pytest.raises(ImportRefused, match="nests its lists and objects more than 32 deep"):
        league_document_read(b"[" * 200_000 + b"]" * 200_000)
    # brackets inside strings are text, not nesting
    assert league_document_read(json.dumps({"a": "[" * 1000}).encode()) == {"a": "[" * 1000}


def test_a_file_over_the_limit_is_refused_before_parsing(settings):
    settings.LEAGUE_IMPORT_MAX_BYTES = 1000
    with pytest.raises(ImportRefused, match="1,001 bytes long; a league's backup may be at most 1,000 bytes"):
        league_document_read(b" " * 1001)
    with pytest.raises(ImportRefused, match="not JSON"):
        league_document_read(b"{nope")
    with pytest.raises(ImportRefused, match="not text"):
        league_document_read(b"\xff\xfe")


def test_the_command_refuses_a_large_file_before_reading_it(tmp_path, settings):
    from django.core.management import CommandError, call_command

    settings.LEAGUE_IMPORT_MAX_BYTES = 10
    path = tmp_path / "big.json"
    path.write_bytes(b"{}" * 10)
    with pytest.raises(CommandError, match="20 bytes long; a league's backup may be at most 10 bytes"):
        call_command("import_league", str(path))


def test_the_check_writes_nothing_and_counts_what_it_would_make(world, document):
    before = counts()
    checked = league_check(document, owner=world.users["staff"], name="Copied Lanterns", slug="copied")
    assert counts() == before
    assert checked.summary == {
        "seasons": 1,
        "teams": len(document["teams"]),
        "matches": len(document["matches"]),
        "newsletters": 2,
        "users": len(document["users"]),
    }


def test_uniqueness_follows_the_constraints_conditions(world, document):
    """Two active ninjas of one team may not share a name (a partial unique index); a released one
    may share an active one's."""
    twin = copy.deepcopy(document["ninjas"][0])
    document["ninjas"].append(twin)
    refused(document, r"ninjas, row \d+: its team and name key repeats row 1's")
    twin["status"] = "released"
    league = league_import(document, owner=world.users["staff"], name="Copied Lanterns", slug="copied")
    assert league.slug == "copied"
