from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.api.schema import check_response
from tests.trust.world import seed_world
from tests.worlds import shared_world

#: The trust world (tests/trust/world.py), built once per module and rolled back between tests.
world_built, world = shared_world(seed_world)


class Api:
    """A client of the API as one role (its token), every answer checked against the schema."""

    def __init__(self, world, role: str | None):
        headers = {}
        if role is not None and role != "anonymous":
            headers["Authorization"] = f"Token {world.extra['tokens'][role]}"
        self.client = Client(headers=headers, raise_request_exception=True)

    def get(self, url: str, **params):
        resp = self.client.get(url, params, HTTP_ACCEPT="application/json")
        check_response(resp, "GET")
        return resp

    def post(self, url: str, data=None, *, raw: bytes | str | None = None, content_type="application/json"):
        body = raw if raw is not None else json.dumps(data if data is not None else {})
        resp = self.client.post(url, body, content_type=content_type, HTTP_ACCEPT="application/json")
        check_response(resp, "POST")
        return resp


@pytest.fixture
def api(world):
    return lambda role=None: Api(world, role)
