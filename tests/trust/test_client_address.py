"""Client addresses come from the proxy depth the deployment declares (issue 27, item 15).

The anonymous API throttle keyed on the whole ``X-Forwarded-For`` header (DRF's ``NUM_PROXIES``
unset), so each forged value got a fresh allowance and a new Redis key; the log-in and sign-up
limits read ``REMOTE_ADDR`` only, so behind a proxy every client was the proxy. One setting,
``TRUSTED_PROXY_COUNT`` (0: ignore the header), now decides for every limiter
(``common.addresses.client_address``).
"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from tests.factories import PASSWORD, UserFactory

PROXY = "10.0.0.1"


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _leagues(forwarded: str, remote: str = PROXY) -> int:
    return (
        Client(REMOTE_ADDR=remote)
        .get(reverse("api:league-list"), HTTP_ACCEPT="application/json", HTTP_X_FORWARDED_FOR=forwarded)
        .status_code
    )


def test_the_default_depth_is_no_proxy(settings):
    from league import settings as site

    assert site.TRUSTED_PROXY_COUNT == 0 and site.REST_FRAMEWORK["NUM_PROXIES"] == 0
    assert site.AXES_CLIENT_IP_CALLABLE == "common.addresses.client_address"


@pytest.mark.throttle
def test_forged_forwarded_for_values_share_one_anonymous_allowance_with_no_proxy(db, settings):
    settings.TRUSTED_PROXY_COUNT = 0
    settings.API_THROTTLE_RATES = {"anon": "2/min", "user": "1000/min", "write": "1000/min"}
    answers = [_leagues(f"198.51.100.{i}", remote="203.0.113.5") for i in range(4)]
    assert answers == [200, 200, 429, 429]
    assert [k for k in _throttle_keys() if "198.51.100" in k] == []
    # another client (its own socket address) has its own allowance
    assert _leagues("198.51.100.1", remote="203.0.113.6") == 200


@pytest.mark.throttle
def test_behind_one_proxy_the_address_it_appended_counts(db, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.API_THROTTLE_RATES = {"anon": "2/min", "user": "1000/min", "write": "1000/min"}
    # the client forges a header; the proxy appends the address it saw
    answers = [_leagues(f"192.0.2.{i}, 203.0.113.20") for i in range(3)]
    assert answers == [200, 200, 429]
    # another client behind the same proxy is not throttled with the first
    assert _leagues("192.0.2.1, 203.0.113.21") == 200


def _throttle_keys() -> list[str]:
    """The throttle's cache keys, where the cache can list them (the local memory cache)."""
    store = getattr(cache, "_cache", None)
    return [str(k) for k in store] if isinstance(store, dict) else []


@pytest.mark.parametrize(
    ("depth", "forwarded", "expected"),
    [
        (0, "198.51.100.1", "203.0.113.5"),
        (1, "198.51.100.1, 192.0.2.7", "192.0.2.7"),
        (2, "198.51.100.1, 192.0.2.7, 10.0.0.9", "192.0.2.7"),
        (1, "", "203.0.113.5"),  # no header: the socket's address
        (1, "not-an-address", "203.0.113.5"),  # garbage where an address belongs: the socket's
        (1, "fe80::1%eth0", "203.0.113.5"),  # a scoped address is no client address
        (1, "2001:DB8::1", "2001:db8::1"),
    ],
)
def test_client_address_reads_the_declared_depth(rf, settings, depth, forwarded, expected):
    from common.addresses import client_address

    settings.TRUSTED_PROXY_COUNT = depth
    request = rf.get("/", REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_address(request) == expected


@pytest.mark.axes
def test_behind_one_proxy_a_sprayer_is_paused_and_other_clients_are_not(db, settings):
    """Before, with the proxy's address for everyone, the spray paused the whole site."""
    settings.TRUSTED_PROXY_COUNT = 1
    settings.AXES_FAILURE_LIMIT = 5
    settings.AXES_FAILURE_LIMIT_PER_ADDRESS = 4
    for i in range(5):
        UserFactory(username=f"player{i}")
    url = reverse("login")
    sprayer = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="203.0.113.7")
    for i in range(4):
        sprayer.post(url, {"username": f"player{i}", "password": "Summer2025!"})
    assert sprayer.post(url, {"username": "player4", "password": PASSWORD}).status_code == 429
    # the sprayer's forged values are not a way out: the proxy's appended address still counts
    forged = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="198.51.100.99, 203.0.113.7")
    assert forged.post(url, {"username": "player4", "password": PASSWORD}).status_code == 429
    other = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="198.51.100.4")
    assert other.post(url, {"username": "player4", "password": PASSWORD}).status_code == 302


@pytest.mark.axes
def test_sign_up_counts_the_proxied_client_address(db, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.SIGNUP_RATE_LIMIT = 1
    body = {"email": "", "password1": "Moonlit-Path-2468!", "password2": "Moonlit-Path-2468!"}
    first = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert first.post(reverse("signup"), {**body, "username": "bot0"}).status_code == 302
    again = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="192.0.2.1, 203.0.113.9")
    assert again.post(reverse("signup"), {**body, "username": "bot1"}).status_code == 429
    other = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="198.51.100.5")
    assert other.post(reverse("signup"), {**body, "username": "person"}).status_code == 302
