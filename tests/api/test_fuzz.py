"""A schema-driven fuzzer over every operation of the API (schemathesis, issue 27): as a player and
as the league's master, schema-valid and schema-violating input, a bounded number of examples per
operation, seeded. Every answer must be no server error, a documented status with a documented
content type and a body that fits the documented schema; schema-valid input is never refused with
a 400, and schema-violating input is never accepted.

The requests go through Django's test client, inside the test's transaction (a write the fuzzer
makes is rolled back with it). Path parameters are drawn two in three from the world's objects (so
the fuzzer reaches the views behind the lookups), the rest from the schema.

What no schema can state is not held against the code: a write refused by the match's state or
the game's rules (a ``{"detail": ...}`` 400, never a field's), leaderboard parameters that do not
go together, a reference to an object that does not exist (``_refused_by_a_rule``). Found on its
first run (issue 27): 15 failures, each fixed, each with its test in tests/api/test_contract.py."""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
import requests
import schemathesis
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.core.failures import FailureGroup
from schemathesis.core.transport import Response
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from api.serializers import LeaderboardQuery
from tests.api.schema import document

pytestmark = pytest.mark.usefixtures("catalog")

EXAMPLES = 12  # per operation, per mode (schema-valid, schema-violating), per role
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    positive_data_acceptance,
    negative_data_rejection,
]


def _schema():
    # The role's token is sent by the client; no NUL in strings (refused everywhere, as the document's
    # description says: a rule of the whole API, not of each string's schema).
    config = SchemathesisConfig.from_dict({"generation": {"with-security-parameters": False, "allow-x00": False}})
    return schemathesis.openapi.from_dict(document(), config=config)


def _objects(w) -> dict[str, list[str]]:
    """Real values for each path template's parameter, from the trust world."""
    extra = w.extra
    matches = [w.confirmed, w.submitted, w.open_match, w.other_match, extra["disputed"]]
    matches += [extra[k] for k in ("forfeited", "voided", "ninjutsu_open", "ninjutsu_submitted", "kage_open")]
    matches += [extra["kage_round_table"]]
    seasons = [w.season, w.other_season, extra["ninjutsu_season"], extra["kage_tables_season"]]
    return {
        "/api/v1/rules/clans/{slug}/": ["tora", "ika"],
        "/api/v1/rules/profiles/{slug}/": ["tora-kaiken"],
        "/api/v1/rules/challenges/{slug}/": ["brawl"],
        "/api/v1/leagues/{slug}/": [w.league.slug, w.other_league.slug],
        "/api/v1/seasons/{id}/": [str(s.pk) for s in seasons],
        "/api/v1/matches/{id}/": [str(m.pk) for m in matches],
        "/api/v1/teams/{id}/": [str(w.team_a.pk), str(w.team_b.pk)],
        "/api/v1/ninjas/{id}/": [str(w.ninja_a.pk)],
        "/api/v1/newsletters/{id}/": [str(extra["published"].pk), str(extra["draft"].pk)],
    }


def _real_values(objects: dict[str, list[str]], path: str) -> list[str]:
    for template, values in objects.items():
        if path.startswith(template.removesuffix("/")):
            return values
    return []


def _send(client: Client, case) -> Response:
    """The case through Django's test client, answered as schemathesis reads a response."""
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    prepared = requests.Request(
        method=kwargs["method"],
        url=kwargs["url"],
        headers=kwargs.get("headers"),
        params=kwargs.get("params"),
        json=kwargs.get("json"),
        data=kwargs.get("data"),
    ).prepare()
    parts = urlsplit(prepared.url)
    headers = {k: v for k, v in prepared.headers.items() if k.lower() not in ("content-type", "content-length")}
    body = prepared.body or b""
    started = time.perf_counter()
    answer = client.generic(
        prepared.method,
        f"{parts.path}?{parts.query}" if parts.query else parts.path,
        data=body.encode() if isinstance(body, str) else body,
        content_type=prepared.headers.get("Content-Type", "application/octet-stream"),
        headers=headers,
        HTTP_ACCEPT="application/json",
    )
    return Response(
        status_code=answer.status_code,
        headers={key: [value] for key, value in answer.headers.items()},
        content=answer.content,
        request=prepared,
        elapsed=time.perf_counter() - started,
        verify=True,
        message=answer.reason_phrase,
    )


def _messages(entry) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, dict):
        entry = list(entry.values())
    return [message for item in entry for message in _messages(item)]


#: Body fields a write's rule refuses by name, as the site's form names them, where no schema can
#: state the rule: whether the entry is at the table, whether the table left needs the master's
#: choice (a drop-out), how many players the round seats (a seating move).
RULE_FIELDS = {
    "/api/v1/matches/{id}/dropout/": {"player", "below_minimum"},
    "/api/v1/seasons/{id}/seating/": {"seating"},
}


def _refused_by_a_rule(case, response: Response) -> bool:
    """A 400 to a schema-valid request that a rule gives, which no schema can state: a write the
    match's state or the game's rules refuse (the service's ``{"detail": ...}``, never a field's
    shape), leaderboard parameters that do not go together (``LeaderboardQuery.COMBINATIONS``), or a
    reference to an object there is none of."""
    if response.status_code != 400 or not response.headers.get("content-type", [""])[0].startswith("application/json"):
        return False
    body = response.json()
    messages = _messages(body)
    if messages and all(m.endswith("does not exist.") for m in messages):
        return True  # a reference to an object there is none of (a challenge's slug): no schema lists them
    if case.method.upper() in ("POST", "PUT", "PATCH"):
        return bool(body) and set(body) <= {"detail"} | RULE_FIELDS.get(case.operation.path, set())
    if case.operation.path == "/api/v1/leaderboards/":
        return all(m in LeaderboardQuery.COMBINATIONS.values() for m in messages)
    return False


@dataclass
class Run:
    operations: int = 0
    requests: int = 0
    statuses: Counter = field(default_factory=Counter)
    failures: dict[tuple[str, str], str] = field(default_factory=dict)

    def check(self, label: str, case, response: Response) -> None:
        self.requests += 1
        self.statuses[response.status_code] += 1
        checks = (
            CHECKS
            if not _refused_by_a_rule(case, response)
            else [c for c in CHECKS if c is not positive_data_acceptance]
        )
        try:
            case.validate_response(response, checks=checks)
        except FailureGroup as group:
            for failure in group.exceptions:
                detail = f"{response.status_code} {failure.message[:400]}\n{case.as_curl_command()}\n{response.content[:300]!r}"
                self.failures.setdefault((label, failure.title), detail)


def _strategy(operation, mode: GenerationMode, real: list[str]):
    strategy = operation.as_strategy(generation_mode=mode)
    if not real:
        return strategy
    name = next(p.name for p in operation.path_parameters)
    on_objects = st.sampled_from(real).flatmap(
        lambda value: operation.as_strategy(generation_mode=mode, path_parameters={name: value})
    )
    return st.one_of(strategy, on_objects, on_objects)  # two in three on the world's objects


def _fuzz_operation(run: Run, client: Client, operation, strategy) -> None:
    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def one(case):
        run.check(operation.label, case, _send(client, case))

    one()


def _fuzz(world, role: str) -> Run:
    client = Client(headers={"Authorization": f"Token {world.extra['tokens'][role]}"}, raise_request_exception=False)
    objects = _objects(world)
    run = Run()
    for result in _schema().get_all_operations():
        operation = result.ok()
        run.operations += 1
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                _fuzz_operation(
                    run, client, operation, _strategy(operation, mode, _real_values(objects, operation.path))
                )
            except Unsatisfiable:  # nothing to violate: an operation without parameters or body
                assert mode is GenerationMode.NEGATIVE, operation.label
    return run


@pytest.fixture
def quiet_request_log():
    """The refusals are the point here: Django's request log would print each of them."""
    logger = logging.getLogger("django.request")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    yield
    logger.setLevel(level)


@pytest.mark.slow(reason="fuzzes every operation of the API as one role: about 700 requests")
@pytest.mark.parametrize("role", ["player", "master"])
def test_the_fuzzer_finds_nothing(world, role, quiet_request_log):
    started = time.perf_counter()
    run = _fuzz(world, role)
    seconds = time.perf_counter() - started
    statuses = ", ".join(f"{code}: {n}" for code, n in sorted(run.statuses.items()))
    print(f"\nfuzzer as {role}: {run.operations} operations, {run.requests} requests ({statuses}), {seconds:.1f} s")
    assert run.operations >= 32 and run.requests >= run.operations * EXAMPLES
    assert not run.failures, "\n\n".join(
        f"{label}: {title}\n{detail}" for (label, title), detail in run.failures.items()
    )
