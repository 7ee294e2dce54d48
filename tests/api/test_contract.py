"""The API keeps its own contract (issue 27): what the schema says of a query parameter is what the
code accepts, the schema says which operations need no token, and every error answer (400, 401,
403, 404, 405, 413, 415, 429) fits the schema documented for its operation and status."""

from __future__ import annotations

import json
import re

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from jsonschema import Draft202012Validator

from tests.api.schema import check_response, document, operation_for

pytestmark = pytest.mark.usefixtures("catalog")

#: (path template, parameter, raw values): each value is sent alone, as a client writes it.
QUERY_VALUES = [
    ("/api/v1/ninjas/", "page_size", ["null", "", "abc", "0", "1", "200", "201", "1.0", " 1", "-1", "1_0", "٣"]),
    ("/api/v1/ninjas/", "page", ["last", "0", "1", "1.5", "", "99999"]),
    ("/api/v1/teams/{id}/ledger/", "page_size", ["null", "2", "201"]),
    ("/api/v1/matches/", "season", ["0", "1", "-1", str(2**62), str(2**62 + 1), "1.0", "1e3", ""]),
    ("/api/v1/matches/", "team", ["0", "1", "x"]),
    ("/api/v1/matches/", "round", ["0", "-1", "10000", "10001"]),
    ("/api/v1/matches/", "status", ["", "confirmed", "nope", "CONFIRMED"]),
    ("/api/v1/matches/", "league", ["", "x" * 100, "x" * 101, " "]),
    ("/api/v1/seasons/", "status", ["", "open", "closed"]),
    ("/api/v1/newsletters/", "season", ["0", "1", ""]),
    ("/api/v1/rules/profiles/", "kind", ["", "ronin", "samurai"]),
    ("/api/v1/teams/{id}/", "games", ["all", "", "some", "ALL"]),
    ("/api/v1/ratings/", "system", ["", "glicko2", "elo"]),
    ("/api/v1/ratings/", "kind", ["", "coach", "player"]),
    ("/api/v1/ratings/", "game", ["", "ninjutsu", "kage_masters", "chess", "NINJUTSU"]),
    ("/api/v1/ratings/club/", "order", ["", "games", "name", "ninjutsu", "chess"]),
    ("/api/v1/ratings/club/", "league", ["", "no-such-league", "bad slug"]),
    ("/api/v1/leaderboards/", "board", ["", "xp", "nope"]),
    ("/api/v1/leaderboards/", "limit", ["0", "1", "100", "101", ""]),
    ("/api/v1/leaderboards/", "league", ["", "no-such-league", "bad slug"]),
    ("/api/v1/leaderboards/", "game", ["", "ninjutsu", "chess"]),
]

WHOLE_NUMBER = re.compile(r"-?[0-9]+")


def _parameter(template: str, name: str) -> dict:
    operation = document()["paths"][template]["get"]
    return next(p for p in operation["parameters"] if p["name"] == name and p["in"] == "query")


def _fits(schema: dict, raw: str) -> bool:
    """Whether the schema allows the raw query value (an integer parameter takes digits only)."""
    value: object = raw
    if schema.get("type") == "integer":
        if not WHOLE_NUMBER.fullmatch(raw):
            return False
        value = int(raw)
    elif schema.get("type") == "number":
        try:
            value = float(raw)
        except ValueError:
            return False
    return Draft202012Validator(schema).is_valid(value)


def _url(world, template: str) -> str:
    return template.replace("{id}", str(world.team_a.pk))


@pytest.mark.parametrize(("template", "name", "values"), QUERY_VALUES, ids=[f"{t}?{n}" for t, n, _ in QUERY_VALUES])
def test_every_query_value_is_refused_exactly_when_the_schema_refuses_it(world, api, template, name, values):
    """Schema and code come from one definition (api/queries.py): a value the schema allows is never
    a 400, a value it does not allow always is. Fails before: ``season=0``, ``page_size=201``,
    ``round=-1`` refused with no minimum or maximum in the schema; ``page_size=null``, ``page=last``,
    ``?status=``, ``games=some`` and ``system=`` accepted."""
    reader = api("player")
    wrong = []
    schema = _parameter(template, name)["schema"]
    for raw in values:
        resp = reader.get(_url(world, template), **{name: raw})
        if (resp.status_code == 400) == _fits(schema, raw):
            wrong.append(f"{template}?{name}={raw!r}: {resp.status_code}, schema {json.dumps(schema)}")
        if resp.status_code == 400:
            assert name in resp.json(), (template, name, raw, resp.json())  # the refusal names it
    assert not wrong, "\n".join(wrong)


def test_a_parameter_given_twice_is_refused(world, api):
    reader = api()
    for url, name in (
        ("/api/v1/matches/", "season"),
        ("/api/v1/ninjas/", "page_size"),
        ("/api/v1/ratings/", "system"),
        (f"/api/v1/teams/{world.team_a.pk}/", "games"),
    ):
        resp = reader.get(url, **{name: ["1", "all"] if name == "games" else ["1", "2"]})
        assert resp.status_code == 400 and resp.json()[name] == ["Give this parameter once."], (url, resp.json())


def _operation_urls(w) -> list[tuple[str, str, str]]:
    """(method, template, URL) for every operation of the schema, on the world's objects."""
    values = {
        "slug": {"clans": "tora", "profiles": "tora-kaiken", "challenges": "brawl", "leagues": w.league.slug},
        "id": {
            "seasons": w.season.pk,
            "matches": w.submitted.pk,
            "teams": w.team_a.pk,
            "ninjas": w.ninja_a.pk,
            "newsletters": w.extra["published"].pk,
        },
    }
    out = []
    for template, item in document()["paths"].items():
        collection = template.removeprefix("/api/v1/").removeprefix("rules/").split("/")[0]
        url = template
        for name, table in values.items():
            if "{" + name + "}" in url:
                url = url.replace("{" + name + "}", str(table[collection]))
        for method in item:
            if method in ("get", "post"):
                out.append((method, template, url))
    return out


def test_the_schema_says_which_operations_need_no_token(world):
    """An operation whose ``security`` holds ``{}`` answers a visitor; every other answers 401.
    Fails before: the newsletters, public as their pages, were documented as needing a token."""
    visitor = Client(raise_request_exception=True)
    wrong = []
    operations = _operation_urls(world)
    assert len(operations) >= 32
    for method, template, url in operations:
        public = {} in document()["paths"][template][method].get("security", [])
        if method == "get":
            resp = visitor.get(url, HTTP_ACCEPT="application/json")
        else:
            resp = visitor.post(url, "{}", content_type="application/json", HTTP_ACCEPT="application/json")
        check_response(resp, method)
        if (resp.status_code == 401) == public:
            wrong.append(f"{method.upper()} {template}: {resp.status_code}, documented public: {public}")
    assert not wrong, "\n".join(wrong)
    writes = [t for m, t, _ in operations if m == "post"]
    assert writes and all({} not in document()["paths"][t]["post"]["security"] for t in writes)


def test_each_operation_documents_the_statuses_it_answers():
    """403 only where a permission guards; 404 only with a parameter; 413 and 415 only with a body."""
    for template, item in document()["paths"].items():
        for method, operation in item.items():
            codes = set(operation["responses"])
            assert {"400", "401", "405", "429"} <= codes, (method, template)
            assert ("413" in codes) == ("415" in codes) == (method == "post"), (method, template)
            assert ("404" in codes) == bool(operation.get("parameters")), (method, template)
            public = {} in operation.get("security", [])
            if not public:
                assert "403" in codes, (method, template)
            for code in codes - {"200", "202"}:
                ref = operation["responses"][code]["content"]["application/json"]["schema"]["$ref"]
                assert ref == ("#/components/schemas/Error" if code == "400" else "#/components/schemas/Message")


def _client(world, role: str | None) -> Client:
    headers = {"Authorization": f"Token {world.extra['tokens'][role]}"} if role else {}
    return Client(headers=headers, raise_request_exception=False)


@pytest.mark.throttle
def test_every_error_answer_fits_the_schema_of_its_operation_and_status(world, settings):
    """Each error status built for real, its body validated against what the schema documents for
    that operation and status (tests/api/schema.py, Draft 2020-12)."""
    settings.API_THROTTLE_RATES = {"anon": "1000/min", "user": "1000/min", "write": "1000/min"}
    cache.clear()
    draft = reverse("api:match-draft", kwargs={"pk": world.open_match.pk})
    schedule = reverse("api:season-schedule", kwargs={"pk": world.season.pk})
    other_schedule = reverse("api:season-schedule", kwargs={"pk": world.other_season.pk})
    kage_result = reverse("api:match-result", kwargs={"pk": world.extra["kage_open"].pk})
    body = {"content_type": "application/json"}
    cases = [
        (400, None, "get", reverse("api:match-list"), {"data": {"season": "0"}}),
        (400, None, "get", reverse("api:ninja-list"), {"data": {"page_size": "null"}}),
        (400, None, "get", reverse("api:league-list") + "?x=%00", {}),
        (400, "master", "post", schedule, {**body, "data": {"kind": "nope"}}),
        (400, "player", "post", draft, {**body, "data": {"sides": {"a": 1}}}),
        (400, "player", "post", kage_result, {**body, "data": {"game": "ninjutsu"}}),
        (400, "player", "post", draft, {**body, "data": "{nope"}),
        (401, None, "post", draft, {**body, "data": {}}),
        (401, "bad", "get", reverse("api:league-list"), {}),
        (403, "player", "post", other_schedule, {**body, "data": {"kind": "round_robin"}}),
        (403, "player", "get", reverse("api:newsletter-detail", kwargs={"pk": world.extra["draft"].pk}), {}),
        (404, None, "get", reverse("api:match-detail", kwargs={"pk": 10**9}), {}),
        (404, None, "get", reverse("api:ninja-list"), {"data": {"page": "9999"}}),
        (404, "player", "post", reverse("api:match-draft", kwargs={"pk": 10**9}), {**body, "data": {}}),
        (405, None, "delete", reverse("api:league-list"), {}),
        (405, "player", "get", draft, {}),
        (413, "player", "post", draft, {**body, "data": '{"a": "' + "x" * 70_000 + '"}'}),
        (415, "player", "post", draft, {"data": "a=1", "content_type": "text/plain"}),
    ]
    world.extra["tokens"]["bad"] = "0" * 40
    for status, role, method, url, kwargs in cases:
        resp = getattr(_client(world, role), method)(url, **kwargs, HTTP_ACCEPT="application/json")
        assert resp.status_code == status, (status, method, url, resp.status_code, resp.content[:200])
        documented = None
        if status == 405:
            documented = next(m for m in ("get", "post") if m != method and _has(url, m))
        check_response(resp, method, documented_as=documented)

    settings.API_THROTTLE_RATES = {"anon": "1/min", "user": "1/min", "write": "1/min"}
    cache.clear()
    for role, method, url, kwargs in ((None, "get", reverse("api:league-list"), {}), ("player", "post", draft, body)):
        client = _client(world, role)
        answers = [getattr(client, method)(url, **kwargs, HTTP_ACCEPT="application/json") for _ in range(2)]
        assert answers[1].status_code == 429 and answers[1]["Retry-After"]
        check_response(answers[1], method)


def _has(url: str, method: str) -> bool:
    try:
        operation_for(url, method)
    except AssertionError:
        return False
    return True


# --- what the fuzzer found (tests/api/test_fuzz.py), one test each ----------------------------------


def _component(name: str) -> dict:
    return document()["components"]["schemas"][name]


def test_a_list_of_documents_states_its_bounds_and_the_code_keeps_them(world, api):
    """``sides`` holds at most MAX_SIDES entries: the code refused a sixth side that the schema
    allowed (drf-spectacular drops a ``many=True`` serializer's ``max_length``)."""
    from api.serializers import MAX_NINJAS, MAX_SIDES

    draft = _component("DraftInputRequest")["properties"]
    assert draft["sides"]["maxItems"] == MAX_SIDES and draft["ninjas"]["maxItems"] == MAX_NINJAS
    assert (
        _component("KageResultInputRequest")["properties"]["seats"] | {"minItems": 1, "maxItems": MAX_SIDES}
        == (_component("KageResultInputRequest")["properties"]["seats"])
    )
    url = reverse("api:match-draft", kwargs={"pk": world.open_match.pk})
    too_many = api("player").post(url, {"sides": [{"slot": 1, "points": 0}] * (MAX_SIDES + 1)})
    assert too_many.status_code == 400 and "sides" in too_many.json()


def test_a_result_needs_its_document():
    """No body is refused (``sides`` or ``game`` is required), and the schema says the body is required."""
    operation = document()["paths"]["/api/v1/matches/{id}/result/"]["post"]
    assert operation["requestBody"]["required"] is True
    assert document()["paths"]["/api/v1/seasons/{id}/schedule/"]["post"]["requestBody"]["required"] is True


def test_a_document_of_another_game_is_refused_as_a_whole(world, api):
    """The schema offers each game's result document; posting another game's than the match's is
    one message naming the match's game (it was a field error of a document the client never sent:
    ``{"sides": ["This field is required."]}`` for a Kage Masters record on an All-Stars match)."""
    player = api("player")
    kage = {"game": "kage_masters", "seats": [{"slot": 1, "kage_master": "Spy", "coins": 3}]}
    on_all_stars = player.post(reverse("api:match-result", kwargs={"pk": world.open_match.pk}), kage)
    assert on_all_stars.status_code == 400
    assert on_all_stars.json() == {
        "detail": ['This match is of Ninja All-Stars: its result has "sides", and no "game".']
    }
    on_kage = player.post(reverse("api:match-result", kwargs={"pk": world.extra["kage_open"].pk}), {"sides": []})
    assert on_kage.status_code == 400 and list(on_kage.json()) == ["detail"]
    assert '"game": "kage_masters"' in on_kage.json()["detail"][0]


def test_a_strict_document_says_it_takes_no_other_key_and_each_refusal_is_a_list(world, api):
    """A players' game's record refuses a key it does not have: the schema now says so
    (``additionalProperties: false``, and ``game`` is an enum of the one game), and the refusal is a
    list of messages as every field's is (it was a bare string, which no documented shape allowed)."""
    for name, game in (("KageResultInputRequest", "kage_masters"), ("NinjutsuResultInputRequest", "ninjutsu")):
        component = _component(name)
        assert component["additionalProperties"] is False, name
        ref = component["properties"]["game"]["allOf"][0]["$ref"]
        assert _component(ref.rsplit("/", 1)[-1])["enum"] == [game]
    assert _component("KageSeatInputRequest")["additionalProperties"] is False
    url = reverse("api:match-result", kwargs={"pk": world.extra["kage_open"].pk})
    resp = api("player").post(url, {"game": "kage_masters", "seats": [], "extra": 1})
    assert resp.status_code == 400 and resp.json() == {"extra": ["Not a field of this record."]}
