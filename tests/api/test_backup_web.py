"""A member imports a league's backup from the site (issue 27, finding 12): upload, a preview of
what would be created (nothing written), then a confirmation that checks the kept upload again
and creates a new league of the member's."""

from __future__ import annotations

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from api.backup import league_export_json
from api.web import IMPORT_SESSION_KEY
from league.models import League
from tests.api.test_backup_checks import counts

pytestmark = pytest.mark.usefixtures("catalog")
URL = "/exports/import/"


def test_the_address():
    assert reverse("exports:league_import") == URL


def _file(data: bytes, name: str = "lantern.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/json")


@pytest.fixture
def staff_client(world, client):
    client.force_login(world.users["staff"])
    return client


def test_the_page_is_linked_where_the_master_exports_and_on_the_leagues(world, client):
    client.force_login(world.users["master"])
    detail = client.get(reverse("league:detail", kwargs={"slug": "lantern"})).content.decode()
    assert reverse("exports:league_export", kwargs={"slug": "lantern"}) in detail and URL in detail
    assert URL in client.get(reverse("league:list")).content.decode()


def test_only_members_and_the_form_bounds_the_file(world, client, staff_client, django_assert_max_num_queries):
    anonymous = Client()
    assert anonymous.get(URL)["Location"].startswith(reverse("login"))
    with django_assert_max_num_queries(6):
        resp = staff_client.get(URL)
    html = resp.content.decode()
    assert resp.status_code == 200 and 'type="file"' in html and 'enctype="multipart/form-data"' in html
    assert "at most 10,240 KB" in html and "csrfmiddlewaretoken" in html


def test_upload_preview_then_confirm(world, staff_client, django_assert_max_num_queries):
    data = league_export_json(world.league)
    document = json.loads(data)
    before = counts()
    with django_assert_max_num_queries(30):
        resp = staff_client.post(URL, {"document": _file(data), "name": "Lanterns Again", "slug": "lanterns-again"})
    html = resp.content.decode()
    assert resp.status_code == 200 and 'data-testid="import-preview"' in html, html
    assert f"<strong>{len(document['matches'])}</strong> matches" in html
    assert f"<strong>{len(document['teams'])}</strong> teams" in html and "<strong>1</strong> season" in html
    assert 'value="lanterns-again"' in html and "Create the league" in html
    assert counts() == before  # the preview writes nothing (but the session)
    assert IMPORT_SESSION_KEY in staff_client.session

    with django_assert_max_num_queries(50):
        resp = staff_client.post(URL, {"confirm": "1", "name": "Lanterns Again", "slug": "lanterns-again"})
    league = League.objects.get(slug="lanterns-again")
    assert resp.status_code == 302 and resp["Location"] == league.get_absolute_url()
    assert league.master == world.users["staff"] and league.name == "Lanterns Again"
    assert league.matches.count() + sum(s.matches.count() for s in league.seasons.all()) >= len(document["matches"])
    assert IMPORT_SESSION_KEY not in staff_client.session


def test_a_name_or_address_taken_is_asked_again(world, staff_client):
    data = league_export_json(world.league)
    resp = staff_client.post(URL, {"document": _file(data)})  # the backup's own name and address: taken
    html = resp.content.decode()
    assert "already exists" in html and 'data-testid="import-preview"' in html
    assert not League.objects.filter(master=world.users["staff"]).exists()
    resp = staff_client.post(URL, {"confirm": "1", "name": "Lantern League", "slug": "lantern-2"})
    assert "already exists" in resp.content.decode() and not League.objects.filter(slug="lantern-2").exists()
    resp = staff_client.post(URL, {"confirm": "1", "name": "Second Lantern", "slug": "lantern-2"})
    assert resp.status_code == 302 and League.objects.get(slug="lantern-2").master == world.users["staff"]


def test_a_bad_document_is_refused_with_one_sentence(world, staff_client):
    document = json.loads(league_export_json(world.league))
    document["treasury_entries"] *= 2
    before = counts()
    resp = staff_client.post(URL, {"document": _file(json.dumps(document).encode()), "slug": "copied"})
    html = resp.content.decode()
    assert 'data-testid="import-refusal"' in html and "treasury entries, row" in html
    assert 'data-testid="import-preview"' not in html and 'type="file"' in html
    assert counts() == before and IMPORT_SESSION_KEY not in staff_client.session


def test_a_slug_that_is_a_path_is_asked_again(world, staff_client):
    document = json.loads(league_export_json(world.league))
    document["league"][0]["slug"] = "../../etc"
    before = counts()
    resp = staff_client.post(URL, {"document": _file(json.dumps(document).encode()), "name": "Copied Lanterns"})
    html = resp.content.decode()
    assert "league: its slug: Enter a valid" in html and 'data-testid="import-preview"' in html
    assert counts() == before
    resp = staff_client.post(URL, {"confirm": "1", "name": "Copied Lanterns", "slug": "../../etc"})
    assert "Enter a valid" in resp.content.decode() and counts() == before
    resp = staff_client.post(URL, {"confirm": "1", "name": "Copied Lanterns", "slug": "copied"})
    assert resp.status_code == 302 and League.objects.get(slug="copied").name == "Copied Lanterns"


def test_the_confirmation_checks_the_kept_upload_again(world, staff_client):
    """What the confirmation imports is the kept file, checked again whole: a file swapped in the
    session (with its digest) is refused like any bad document, one kept without its digest is gone."""
    import base64
    import hashlib
    import zlib

    data = league_export_json(world.league)
    staff_client.post(URL, {"document": _file(data), "name": "Lanterns Again", "slug": "lanterns-again"})
    bad = json.loads(data)
    bad["treasury_entries"] *= 2
    raw = json.dumps(bad).encode()
    session = staff_client.session
    session[IMPORT_SESSION_KEY] = {
        "data": base64.b64encode(zlib.compress(raw)).decode(),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "filename": "x.json",
    }
    session.save()
    before = counts()
    resp = staff_client.post(URL, {"confirm": "1", "name": "Lanterns Again", "slug": "lanterns-again"})
    assert "its balance after" in resp.content.decode() and counts() == before

    session = staff_client.session
    session[IMPORT_SESSION_KEY] = {**session[IMPORT_SESSION_KEY], "sha256": "0" * 64}
    session.save()
    resp = staff_client.post(URL, {"confirm": "1", "name": "Lanterns Again", "slug": "lanterns-again"})
    assert "upload it again" in resp.content.decode() and counts() == before


def test_a_confirmation_without_an_upload(world, staff_client):
    resp = staff_client.post(URL, {"confirm": "1", "name": "X League", "slug": "x"})
    assert resp.status_code == 200 and "upload it again" in resp.content.decode()
    assert not League.objects.filter(slug="x").exists()


def test_a_file_over_the_limit(world, staff_client, settings):
    settings.LEAGUE_IMPORT_MAX_BYTES = 1024
    resp = staff_client.post(URL, {"document": _file(b" " * 2048)})
    assert "at most 1 KB" in resp.content.decode() and IMPORT_SESSION_KEY not in staff_client.session


def test_the_import_page_alone_takes_a_body_as_large_as_a_backup(settings):
    from league.middleware import body_limit

    settings.REQUEST_BODY_MAX_SIZE = 2 * 1024 * 1024
    settings.LEAGUE_IMPORT_MAX_BYTES = 4 * 1024 * 1024
    assert body_limit(URL) == 4 * 1024 * 1024 + 64 * 1024
    assert body_limit("/leagues/new/") == 2 * 1024 * 1024


def test_a_post_needs_its_csrf_token(world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.users["staff"])
    assert client.post(URL, {"confirm": "1", "name": "X League", "slug": "x"}).status_code == 403


@hypothesis_settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_hostile_file_is_refused_without_a_server_error(world, staff_client, data):
    """Random bytes, random JSON and the world's backup with one value replaced by a random one:
    a refusal or a preview, never a server error, nothing written."""
    base = json.loads(league_export_json(world.league))
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=12,
    )
    kind = data.draw(st.sampled_from(["bytes", "json", "mutated"]))
    if kind == "bytes":
        raw = data.draw(st.binary(max_size=300))
    elif kind == "json":
        raw = json.dumps(data.draw(json_values)).encode()
    else:
        document = copy.deepcopy(base)
        section = data.draw(st.sampled_from(sorted(k for k, v in document.items() if isinstance(v, list) and v)))
        rows = document[section]
        place = data.draw(st.integers(0, len(rows) - 1))
        if isinstance(rows[place], dict):
            key = data.draw(st.sampled_from(sorted(rows[place])))
            rows[place][key] = data.draw(json_values)
        else:
            rows[place] = data.draw(json_values)
        raw = json.dumps(document).encode()
    before = counts()
    resp = staff_client.post(URL, {"document": _file(raw), "slug": "hostile-copy", "name": "Hostile Copy"})
    assert resp.status_code == 200
    assert counts() == before


def test_only_the_import_page_takes_a_file_and_only_one(world, staff_client, settings):
    data = league_export_json(world.league)
    settings.REQUEST_BODY_MAX_SIZE = 10 * 1024  # smaller than the backup: the import page's own limit holds
    resp = staff_client.post(URL, {"document": _file(data), "name": "Lanterns Again", "slug": "lanterns-again"})
    assert resp.status_code == 200 and 'data-testid="import-preview"' in resp.content.decode()
    assert staff_client.post(reverse("league:create"), {"name": "x", "f": _file(data)}).status_code == 413
    settings.REQUEST_BODY_MAX_SIZE = 2 * 1024 * 1024
    assert staff_client.post(reverse("league:create"), {"name": "x", "f": _file(b"{}")}).status_code == 400
    two = {"document": [_file(data), _file(data, "again.json")], "slug": "two"}
    assert staff_client.post(URL, two).status_code == 400


def test_a_players_league_is_counted_in_players(world, staff_client):
    data = league_export_json(world.extra["ninjutsu_league"])
    resp = staff_client.post(URL, {"document": _file(data), "name": "Dojo Again", "slug": "dojo-again"})
    html = resp.content.decode()
    assert "<strong>2</strong> players" in html and " teams" not in html.split("What the import creates")[1][:400]
