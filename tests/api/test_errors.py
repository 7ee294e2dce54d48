"""Every answer under /api/ is JSON, errors too, in the documented shape (docs/api.md, "Errors";
issue 27): the ones Django gives itself (an unknown path, a control character in the address, a NUL
in the query, a body over the site's limit, a server error) as well as DRF's."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.usefixtures("catalog")


def _client(world, role: str | None = None) -> Client:
    headers = {"Authorization": f"Token {world.extra['tokens'][role]}"} if role else {}
    return Client(headers=headers, raise_request_exception=False)


def _cases(world) -> list[tuple[str, str | None, str, str, dict, int]]:
    """(label, role, method, path, request keywords, expected status)."""
    draft = reverse("api:match-draft", kwargs={"pk": world.open_match.pk})
    schedule = reverse("api:season-schedule", kwargs={"pk": world.other_season.pk})
    ninjutsu_draft = reverse("api:match-draft", kwargs={"pk": world.extra["ninjutsu_open"].pk})
    json_body = {"data": "{}", "content_type": "application/json"}
    over_api = {**json_body, "data": '{"a": "' + "x" * 70_000 + '"}'}  # API_MAX_BODY_BYTES: 64 KB
    over_site = {**json_body, "data": "x" * (2 * 1024 * 1024 + 1)}  # REQUEST_BODY_MAX_SIZE: 2 MB
    return [
        ("unknown path", None, "get", "/api/v1/nothing-here/", {}, 404),
        ("unknown path outside v1", None, "get", "/api/v2/leagues/", {}, 404),
        ("unknown path under an object", None, "get", f"/api/v1/matches/{world.open_match.pk}/nope/", {}, 404),
        ("unknown id", None, "get", reverse("api:match-detail", kwargs={"pk": 10**9}), {}, 404),
        ("unknown slug", None, "get", reverse("api:league-detail", kwargs={"slug": "no-such-league"}), {}, 404),
        ("a control character in the path", None, "get", "/api/v1/leagues/%00/", {}, 404),
        ("a NUL in the query", None, "get", reverse("api:match-list") + "?status=%00", {}, 400),
        ("wrong method", None, "delete", reverse("api:league-list"), {}, 405),
        ("no token on a write", None, "post", draft, json_body, 401),
        ("a bad token on a write", "bad", "post", draft, json_body, 401),
        ("another master's season", "player", "post", schedule, json_body, 403),
        ("wrong content type", "player", "post", draft, {"data": "a=1", "content_type": "text/plain"}, 415),
        ("body over the API's limit", "player", "post", draft, over_api, 413),
        ("body over the site's limit", "player", "post", draft, over_site, 413),
        ("not JSON", "player", "post", draft, {**json_body, "data": "{nope"}, 400),
        ("a refusal in one message", "player", "post", ninjutsu_draft, json_body, 400),
    ]


def _documented_shape(body) -> bool:
    """``{"detail": "a message"}`` or ``{"detail": ["messages", ...]}`` (docs/api.md, "Errors")."""
    if not isinstance(body, dict) or not body.get("detail"):
        return False
    detail = body["detail"]
    return isinstance(detail, str) or (isinstance(detail, list) and all(isinstance(m, str) for m in detail))


@pytest.mark.parametrize("accept", ["application/json", "*/*", None])
def test_every_error_under_the_api_is_json_in_the_documented_shape(world, accept):
    world.extra["tokens"].setdefault("bad", "0" * 40)
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    failures = []
    for label, role, method, path, kwargs, expected in _cases(world):
        resp = getattr(_client(world, role), method)(path, **kwargs, **headers)
        kind = resp.get("Content-Type", "")
        body = resp.json() if kind.startswith("application/json") else None
        if resp.status_code != expected or not _documented_shape(body):
            failures.append(f"{label}: {method.upper()} {path[:60]} -> {resp.status_code} {kind} {resp.content[:99]!r}")
    assert not failures, "\n".join(failures)


@pytest.mark.throttle
def test_too_many_requests_is_json(world, settings):
    from django.core.cache import cache

    cache.clear()
    settings.API_THROTTLE_RATES = {"anon": "1/min", "user": "1000/min", "write": "1000/min"}
    client = _client(world)
    codes = [client.get(reverse("api:league-list")) for _ in range(2)]
    assert [r.status_code for r in codes] == [200, 429]
    assert codes[1]["Content-Type"] == "application/json" and codes[1].json()["detail"]
    assert codes[1]["Retry-After"]


def test_a_server_error_under_the_api_is_json(world, monkeypatch):
    from api import views

    def boom(self, request, *args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(views.LeagueViewSet, "list", boom)
    resp = _client(world).get(reverse("api:league-list"), HTTP_ACCEPT="application/json")
    assert resp.status_code == 500
    assert resp["Content-Type"] == "application/json"
    assert resp.json() == {"detail": "A server error occurred."}


def test_the_site_keeps_its_pages(world, client):
    """Outside /api/ an unknown page is still the site's page."""
    resp = client.get("/no-such-page/")
    assert resp.status_code == 404 and resp["Content-Type"].startswith("text/html")
