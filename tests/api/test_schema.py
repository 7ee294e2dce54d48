"""The OpenAPI document is valid OpenAPI 3, and every read endpoint answers what it says."""

from __future__ import annotations

import pytest
from django.urls import reverse
from openapi_spec_validator import validate

from tests.api.schema import document

pytestmark = pytest.mark.usefixtures("catalog")


def test_the_schema_is_valid_openapi_3():
    doc = document()
    assert doc["openapi"].startswith("3.")
    validate(doc)


def test_the_schema_endpoint_and_the_docs_page(client):
    resp = client.get(reverse("api:schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert resp.status_code == 200
    validate(resp.json())
    docs = client.get(reverse("api:docs"))
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "swagger-ui" in html and "<script>" not in html  # the start-up script is a file of its own
    policy = dict(part.strip().split(" ", 1) for part in docs["Content-Security-Policy"].split(";") if part.strip())
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"  # nothing inline, even here
    script = client.get(reverse("api:docs") + "?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert b"/api/v1/schema/" in script.content


def test_the_schema_documents_every_endpoint():
    paths = set(document()["paths"])
    for expected in (
        "/api/v1/rules/clans/",
        "/api/v1/rules/profiles/{slug}/",
        "/api/v1/rules/challenges/",
        "/api/v1/rules/tables/",
        "/api/v1/leagues/{slug}/",
        "/api/v1/seasons/{id}/table/",
        "/api/v1/seasons/{id}/fixtures/",
        "/api/v1/seasons/{id}/schedule/",
        "/api/v1/seasons/{id}/seating/",
        "/api/v1/matches/{id}/dropout/",
        "/api/v1/matches/{id}/",
        "/api/v1/matches/{id}/draft/",
        "/api/v1/matches/{id}/result/",
        "/api/v1/matches/{id}/confirm/",
        "/api/v1/matches/{id}/reject/",
        "/api/v1/teams/{id}/",
        "/api/v1/teams/{id}/ledger/",
        "/api/v1/ninjas/{id}/",
        "/api/v1/newsletters/{id}/",
    ):
        assert expected in paths
    security = document()["components"]["securitySchemes"]
    assert security["tokenAuth"]["in"] == "header"


def _read_urls(w) -> list[str]:
    """A URL for every GET path of the schema, with the seeded world's objects."""
    values = {
        "/api/v1/rules/clans/{slug}/": {"slug": "tora"},
        "/api/v1/rules/profiles/{slug}/": {"slug": "tora-kaiken"},
        "/api/v1/rules/challenges/{slug}/": {"slug": "brawl"},
        "/api/v1/leagues/{slug}/": {"slug": w.league.slug},
        "/api/v1/seasons/{id}/": {"id": w.season.pk},
        "/api/v1/seasons/{id}/table/": {"id": w.season.pk},
        "/api/v1/seasons/{id}/fixtures/": {"id": w.season.pk},
        "/api/v1/seasons/{id}/seating/": {"id": w.extra["kage_tables_season"].pk},
        "/api/v1/matches/{id}/": {"id": w.confirmed.pk},
        "/api/v1/teams/{id}/": {"id": w.team_a.pk},
        "/api/v1/teams/{id}/ledger/": {"id": w.team_a.pk},
        "/api/v1/ninjas/{id}/": {"id": w.ninja_a.pk},
        "/api/v1/newsletters/{id}/": {"id": w.extra["published"].pk},
    }
    urls = []
    for template, item in document()["paths"].items():
        if "get" not in item or template in ("/api/v1/schema/",):
            continue
        assert "{" not in template or template in values, f"no object for {template}: add one to _read_urls"
        urls.append(template.format(**values.get(template, {})))
    return urls


def test_every_read_endpoint_answers_what_the_schema_says(world, api):
    """As the team's player (who may read its ledger too), every GET path, each answer validated."""
    player = api("player")
    urls = _read_urls(world)
    assert len(urls) >= 24
    for url in urls:
        resp = player.get(url)
        assert resp.status_code == 200, (url, resp.status_code, resp.content[:300])


def test_every_status_of_every_match_fits_the_schema(world, api):
    reader = api()
    for match in (world.confirmed, world.submitted, world.open_match, world.other_match):
        body = reader.get(reverse("api:match-detail", kwargs={"pk": match.pk})).json()
        assert body["status"] == match.status
        if match.status != "confirmed":
            assert body["seed"] is None and body["outcomes"] is None  # the dice stay unforeseeable
    full = reader.get(reverse("api:match-detail", kwargs={"pk": world.confirmed.pk})).json()
    assert full["seed"] == world.confirmed.seed
    assert full["outcomes"]["treasury"], "a confirmed match shows the koban it earned"
    assert {side["team"] for side in full["sides"]} == {world.team_a.pk, world.team_b.pk}
    assert all(side["roster_snapshot"] for side in full["sides"])
    assert sum(n["all_star_awards"] for side in full["sides"] for n in side["ninjas"]) >= 2


def test_filters_narrow_the_lists(world, api):
    reader = api()
    url = reverse("api:match-list")
    everything = reader.get(url).json()["count"]
    in_season = reader.get(url, season=world.season.pk).json()
    assert 0 < in_season["count"] < everything
    assert all(m["season"] == world.season.pk for m in in_season["results"])
    confirmed = reader.get(url, season=world.season.pk, status="confirmed").json()["results"]
    assert [m["id"] for m in confirmed] == [world.confirmed.pk]
    teams = reader.get(reverse("api:team-list"), league=world.league.slug).json()["results"]
    assert {t["name"] for t in teams} >= {"Tigers", "Squids"} and "Foxes" not in {t["name"] for t in teams}
    ninjas = reader.get(reverse("api:ninja-list"), team=world.team_a.pk).json()["results"]
    assert ninjas and {n["team"] for n in ninjas} == {world.team_a.pk}
    seasons = reader.get(reverse("api:season-list"), league=world.other_league.slug).json()["results"]
    assert [x["id"] for x in seasons] == [world.other_season.pk]
    bad = reader.get(url, season="1.5")
    assert bad.status_code == 400


def test_pages_are_bounded(world, api):
    reader = api()
    body = reader.get(reverse("api:ninja-list"), page_size=2).json()
    assert len(body["results"]) == 2 and body["next"]
    assert len(reader.get(reverse("api:ninja-list"), page_size=200).json()["results"]) <= 200
    assert reader.get(reverse("api:ninja-list"), page_size=201).status_code == 400  # the schema's maximum
    assert reader.get(reverse("api:ninja-list"), page=99999).status_code == 404


def test_the_table_is_the_pages_table(world, api):
    from league.selectors import league_table

    body = api().get(reverse("api:season-table", kwargs={"pk": world.season.pk})).json()
    assert body["rows"] == [row.as_dict() for row in league_table(world.season)]
    # Tigers: the confirmed win and the walkover of the forfeited fixture (tests/trust/world.py)
    assert body["rows"][0]["team"] == "Tigers" and body["rows"][0]["won"] == 2


def test_only_published_newsletters_are_listed(world, api):
    titles = [n["title"] for n in api().get(reverse("api:newsletter-list")).json()["results"]]
    assert titles == ["Week 6 at the Lantern"]


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("api:match-list", lambda w: {}),
        ("api:team-list", lambda w: {}),
        ("api:ninja-list", lambda w: {}),
        ("api:league-list", lambda w: {}),
        ("api:season-list", lambda w: {}),
        ("api:newsletter-list", lambda w: {}),
        ("api:profile-list", lambda w: {}),
        ("api:match-detail", lambda w: {"pk": w.confirmed.pk}),
        ("api:team-detail", lambda w: {"pk": w.team_a.pk}),
        ("api:season-table", lambda w: {"pk": w.season.pk}),
        ("api:season-fixtures", lambda w: {"pk": w.season.pk}),
        ("api:league-detail", lambda w: {"slug": w.league.slug}),
    ],
)
def test_query_counts_are_bounded(world, api, django_assert_max_num_queries, name, kwargs):
    reader = api()
    url = reverse(name, kwargs=kwargs(world))
    with django_assert_max_num_queries(14):
        assert reader.get(url).status_code == 200
