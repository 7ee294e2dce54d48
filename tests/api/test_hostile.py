"""Hostile JSON at every write of the API: too large (413), nested too deep, not JSON, wrong types,
huge numbers, long strings, NUL bytes (400), never a 500, and nothing written."""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from django.urls import reverse

from api.parsers import json_depth
from tests.trust.world import watch_writes

pytestmark = pytest.mark.usefixtures("catalog")

HOSTILE: list[tuple[str, bytes | str, int]] = [
    ("huge body", b'{"sides": [' + b'{"slot": 1, "points": 1},' * 5000 + b"{}]}", 413),
    ("deep arrays", b"[" * 50_000 + b"]" * 50_000, 413),
    ("deep but small", b"[" * 2000 + b"]" * 2000, 400),
    ("deep objects", ('{"a":' * 500 + "1" + "}" * 500).encode(), 400),
    ("not json", b"{sides: nope", 400),
    ("not utf-8", b'{"reason": "\xff\xfe"}', 400),
    ("NaN", b'{"sides": [{"slot": 1, "points": NaN}]}', 400),
    ("a list", b"[1, 2, 3]", 400),
    ("a string", b'"hello"', 400),
    ("null", b"null", 400),
    ("sides a string", b'{"sides": "all of them"}', 400),
    ("points a string", b'{"sides": [{"slot": 1, "points": "three"}]}', 400),
    ("points huge", b'{"sides": [{"slot": 1, "points": 1e400}]}', 400),
    ("points big int", b'{"sides": [{"slot": 1, "points": ' + b"9" * 4000 + b"}]}", 400),
    ("points negative", b'{"sides": [{"slot": 1, "points": -1}]}', 400),
    ("slot out of range", b'{"sides": [{"slot": 99, "points": 1}]}', 400),
    ("too many sides", json.dumps({"sides": [{"slot": 1, "points": 1}] * 50}).encode(), 400),
    ("ninja id huge", json.dumps({"sides": [], "ninjas": [{"ninja": 2**80}]}).encode(), 400),
    ("ninja a dict", b'{"ninjas": [{"ninja": {"id": 1}}]}', 400),
    ("feats too many", json.dumps({"ninjas": [{"ninja": 1, "feats": {str(i): 1 for i in range(100)}}]}).encode(), 400),
    ("feat key long", json.dumps({"ninjas": [{"ninja": 1, "feats": {"k" * 5000: 1}}]}).encode(), 400),
    ("NUL in a reason", b'{"reason": "no\\u0000pe"}', 400),
    ("reason long", json.dumps({"reason": "x" * 10_000}).encode(), 400),
    ("kind unknown", b'{"kind": "' + b"x" * 3000 + b'"}', 400),
    ("round a list", b'{"kind": "round_robin", "round_number": [1]}', 400),
    ("challenge a number", b'{"kind": "round_robin", "challenge": 12}', 400),
]


#: Fields of the other endpoints: a draft ignores them (an empty draft is valid), a reject ignores
#: all but ``reason``. Everywhere else, and for every other body, only the expected answer will do.
_NOT_DRAFT = {"NUL in a reason", "reason long", "kind unknown", "round a list", "challenge a number"}
_NOT_REJECT = {label for label, _, code in HOSTILE if code == 400} - {
    "NUL in a reason",
    "reason long",
    "not json",
    "not utf-8",
    "NaN",
    "a list",
    "a string",
    "null",
    "deep but small",
    "deep objects",
}
VALID_ELSEWHERE = {"draft": _NOT_DRAFT, "reject": _NOT_REJECT, "result": set(), "schedule": set(), "settle": set()}


def test_the_depth_scan():
    assert json_depth(b"{}") == 1
    assert json_depth(b'{"a": [1, {"b": "[[[["}]}') == 3
    assert json_depth(b'"\\"[[["') == 0
    assert json_depth(b"[" * 10 + b"]" * 10) == 10


#: Every API write that reads a body (tests/trust/test_hostile_input.py counts on this list).
WRITE_NAMES = ("api:match-draft", "api:match-result", "api:match-reject", "api:season-schedule", "api:match-settle")


def _writes(world) -> list[str]:
    objects = [world.open_match, world.open_match, world.submitted, world.other_season, world.extra["disputed"]]
    return [reverse(name, kwargs={"pk": obj.pk}) for name, obj in zip(WRITE_NAMES, objects, strict=True)]


def test_hostile_json_is_refused_cleanly_at_every_write(world, api, settings):
    settings.DEBUG_PROPAGATE_EXCEPTIONS = True
    clients = {
        "player": api("player"),
        "other_player": api("other_player"),
        "other_master": api("other_master"),
        "master": api("master"),
    }
    who = dict(zip(_writes(world), ["player", "player", "other_player", "other_master", "master"], strict=True))
    failures = []
    for url, role in who.items():
        for label, body, expected in HOSTILE:
            with transaction.atomic():
                with watch_writes() as watched:
                    resp = clients[role].post(url, raw=body)
                written = watched.changed
                transaction.set_rollback(True)
            if resp.status_code == expected and not written:
                continue
            # A body meant for another endpoint may be valid here where its fields do not apply (a
            # reject without a reason): then it is answered as any valid request.
            endpoint = url.rstrip("/").rsplit("/", 1)[-1]
            if resp.status_code in (200, 202) and label in VALID_ELSEWHERE[endpoint]:
                continue
            failures.append(f"{label} at {url}: {resp.status_code} {resp.content[:200]!r}, wrote {written}")
    assert not failures, "\n".join(failures)


def test_a_body_that_is_not_json_is_415(world, api):
    resp = api("player").post(
        reverse("api:match-draft", kwargs={"pk": world.open_match.pk}),
        raw="s1_points=3",
        content_type="application/x-www-form-urlencoded",
    )
    assert resp.status_code == 415


def test_a_content_length_that_lies_is_still_bounded(world, api, settings):
    settings.API_MAX_BODY_BYTES = 1024
    resp = api("player").post(
        reverse("api:match-draft", kwargs={"pk": world.open_match.pk}), raw=b'{"a": "' + b"x" * 5000 + b'"}'
    )
    assert resp.status_code == 413


@pytest.mark.parametrize(
    "query",
    [
        "season=abc",
        "season=1e999",
        "season=" + "9" * 400,
        "status=nope",
        "round=-1",
        "page=abc",
        "page_size=-5",
        "team=1.5",
    ],
)
def test_hostile_query_strings_are_400_or_404(world, api, query):
    resp = api().client.get(reverse("api:match-list") + "?" + query, HTTP_ACCEPT="application/json")
    assert resp.status_code in (200, 400, 404), (query, resp.status_code)
    assert resp.status_code != 200 or query.startswith("page_size")


def test_hostile_ids_in_the_path_are_404(world, api):
    client = api().client
    for url in (
        "/api/v1/matches/abc/",
        "/api/v1/matches/" + "9" * 40 + "/",
        "/api/v1/teams/-1/",
        "/api/v1/leagues/%00/",
    ):
        assert client.get(url, HTTP_ACCEPT="application/json").status_code == 404, url
    assert client.get("/api/v1/matches/" + "9" * 18 + "/", HTTP_ACCEPT="application/json").status_code == 404
