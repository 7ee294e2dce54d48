"""Hostile JSON at every write of the API: too large (413), nested too deep, not JSON, wrong types,
huge numbers, long strings, NUL bytes and lone surrogates (400), never a 500, and nothing written."""

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
#: A confirmation reads only ``upkeep`` (the confirmer's own ronin): a body of other fields confirms.
_NOT_CONFIRM = _NOT_REJECT | {"NUL in a reason", "reason long"}
VALID_ELSEWHERE = {
    "draft": _NOT_DRAFT,
    "reject": _NOT_REJECT,
    "confirm": _NOT_CONFIRM,
    "result": set(),
    "schedule": set(),
    "settle": set(),
    "upkeep": set(),
    "dropout": set(),
    "seating": set(),
}


def test_the_depth_scan():
    assert json_depth(b"{}") == 1
    assert json_depth(b'{"a": [1, {"b": "[[[["}]}') == 3
    assert json_depth(b'"\\"[[["') == 0
    assert json_depth(b"[" * 10 + b"]" * 10) == 10


#: Every API write that reads a body (tests/trust/test_hostile_input.py counts on this list).
WRITE_NAMES = (
    "api:match-draft",
    "api:match-result",
    "api:match-reject",
    "api:season-schedule",
    "api:match-settle",
    "api:match-confirm",
    "api:match-upkeep",
    "api:match-dropout",
    "api:season-seating",
)
#: Who posts to each of WRITE_NAMES.
WRITE_ROLES = (
    "player",
    "player",
    "other_player",
    "other_master",
    "master",
    "other_player",
    "other_player",
    "master",
    "master",
)


def _writes(world) -> list[str]:
    objects = [
        world.open_match,
        world.open_match,
        world.submitted,
        world.other_season,
        world.extra["disputed"],
        world.submitted,
        world.extra["upkeep_waits"],
        world.extra["kage_round_table"],
        world.extra["kage_tables_season"],
    ]
    return [reverse(name, kwargs={"pk": obj.pk}) for name, obj in zip(WRITE_NAMES, objects, strict=True)]


def test_hostile_json_is_refused_cleanly_at_every_write(world, api, settings):
    settings.DEBUG_PROPAGATE_EXCEPTIONS = True
    clients = {
        "player": api("player"),
        "other_player": api("other_player"),
        "other_master": api("other_master"),
        "master": api("master"),
    }
    who = dict(zip(_writes(world), WRITE_ROLES, strict=True))
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


# --- strings no field may hold (issue 27, item 16) --------------------------------------------------

#: A lone surrogate cannot be encoded: a choice field echoed it into its error and the answer was a
#: 500. A NUL byte cannot be stored (PostgreSQL's text): a slug lookup sent it to the database, a
#: DataError. Both are refused where the body is parsed, in a key or a value, at any depth.
POISON = {"a lone high surrogate": "\\ud800", "a lone low surrogate": "\\udfff", "a NUL": "\\u0000"}


def _poisoned(world) -> list[tuple[str, str, str, str]]:
    """(what, role, url, JSON text with ``{X}`` where the poison goes): every API write, with the
    poison in each choice field and slug lookup it reads, in a key, and deep in a list."""
    from tests.trust.world import KAGE_RECORD, NINJUTSU_RECORD

    def at(name: str, obj) -> str:
        return reverse(name, kwargs={"pk": obj.pk})

    ninjutsu = json.dumps({**NINJUTSU_RECORD, "ending": "{X}"})
    seats = [dict(seat) for seat in KAGE_RECORD["seats"]]
    seats[1]["kage_master"] = "{X}"
    kage = json.dumps({**KAGE_RECORD, "seats": seats})
    upkeep = '{"sides": [{"slot": 1, "points": 1}], "upkeep": [{"ninja": 1, "decision": "{X}"}]}'
    cases = [
        ("draft: decision", "player", at("api:match-draft", world.open_match), upkeep),
        ("result: decision", "player", at("api:match-result", world.open_match), upkeep),
        ("result: ending", "player", at("api:match-result", world.extra["ninjutsu_open"]), ninjutsu),
        ("result: kage_master", "player", at("api:match-result", world.extra["kage_open"]), kage),
        ("reject: reason", "other_player", at("api:match-reject", world.submitted), '{"reason": "{X}"}'),
        (
            "confirm: decision",
            "other_player",
            at("api:match-confirm", world.submitted),
            '{"upkeep": [{"ninja": 1, "decision": "{X}"}]}',
        ),
        (
            "upkeep: decision",
            "other_player",
            at("api:match-upkeep", world.extra["upkeep_waits"]),
            '{"upkeep": [{"ninja": 1, "decision": "{X}"}]}',
        ),
        ("schedule: kind", "other_master", at("api:season-schedule", world.other_season), '{"kind": "{X}"}'),
        (
            "schedule: challenge slug",
            "other_master",
            at("api:season-schedule", world.other_season),
            '{"kind": "round_robin", "challenge": "brawl{X}"}',
        ),
        ("settle: pick", "master", at("api:match-settle", world.extra["ninjutsu_disputed"]), '{"pick": "{X}"}'),
        ("settle: pick (All-Stars)", "master", at("api:match-settle", world.extra["disputed"]), '{"pick": "{X}"}'),
        (
            "dropout: when",
            "master",
            at("api:match-dropout", world.extra["kage_round_table"]),
            '{"player": 1, "when": "{X}"}',
        ),
        (
            "seating: a player's key",
            "master",
            at("api:season-seating", world.extra["kage_tables_season"]),
            '{"round_number": 1, "seating": {"{X}": 1}}',
        ),
    ]
    for name in WRITE_NAMES:  # a key, and a string deep in a list, at every write
        url = next(u for _, _, u, _ in cases if u.endswith(name.split("-")[-1] + "/"))
        role = next(r for _, r, u, _ in cases if u == url)
        cases.append((f"{name}: a key", role, url, '{"{X}": 1}'))
        cases.append((f"{name}: deep", role, url, '{"sides": [{"slot": 1, "points": 1, "x": [["{X}"]]}]}'))
    return cases


def test_lone_surrogates_and_nul_bytes_are_400_at_every_write_and_nothing_is_written(world, api, settings):
    settings.DEBUG_PROPAGATE_EXCEPTIONS = True
    failures = []
    for what, role, url, template in _poisoned(world):
        for poison_name, poison in POISON.items():
            body = template.replace("{X}", poison).encode()
            client = api(role)  # a client of its own: one whose request raised keeps the exception
            with transaction.atomic():
                try:
                    with watch_writes() as watched:
                        resp = client.post(url, raw=body)
                except Exception as exc:  # a 500, raised by the test client
                    failures.append(f"{what}, {poison_name}: {type(exc).__name__}: {str(exc)[:120]}")
                    transaction.set_rollback(True)
                    continue
                transaction.set_rollback(True)
            detail = resp.json().get("detail") if resp.status_code == 400 else None
            if not (isinstance(detail, str) and detail.startswith("The body holds")) or watched.changed:
                failures.append(f"{what}, {poison_name}: {resp.status_code} {resp.content[:160]!r}, {watched.changed}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    "address",
    [
        "/api/v1/leaderboards/?scope=league&league=lantern%00",
        "/api/v1/ratings/?league=%00",
        "/api/v1/matches/?status=%00",
        "/api/v1/teams/?league=lan%00tern",
        "/api/v1/rules/profiles/?clan=%00",
        "/api/v1/leagues/lantern%00/",
        "/api/v1/rules/clans/tora%00/",
        "/api/v1/rules/challenges/brawl%00/",
        "/api/v1/leaderboards/?scope=league&league=%ED%A0%80",  # a lone surrogate's UTF-8: not UTF-8
        "/api/v1/rules/clans/%ED%A0%80/",
    ],
)
def test_nul_in_a_query_string_or_a_path_lookup_is_400_or_404(world, api, settings, address):
    """Issue 27, item 16: NUL never reaches PostgreSQL from a query string or a path either (the
    control-character middleware, league/middleware.py), whatever the lookup."""
    settings.DEBUG_PROPAGATE_EXCEPTIONS = True
    resp = api().client.get(address, HTTP_ACCEPT="application/json")
    assert resp.status_code in (400, 404), (address, resp.status_code)
