"""The client's address, from the proxy depth the deployment declares (issue 27, item 15).

``TRUSTED_PROXY_COUNT`` (league/settings.py, the README's configuration table) is how many proxies
of our own stand in front of the site, each appending the address it saw to ``X-Forwarded-For``.
0, the default, ignores the header: the socket's ``REMOTE_ADDR`` is the client. With n, the n-th
address from the right is the one the outermost proxy of ours appended; everything left of it is
the client's to write and is never read. The same rule as DRF's ``NUM_PROXIES`` (set from the same
setting), used by every limiter of the site: the API's throttles, django-axes
(``AXES_CLIENT_IP_CALLABLE``), sign-up and the account mails.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings


def client_address(request) -> str:
    """The client's address ("" when the request has none), normalised; never a value the client
    chose unless the declared proxies put it there, and never anything but an address (a garbage or
    scoped value where the address belongs gives the socket's address)."""
    if request is None:
        return ""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    depth = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0) or 0)
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if depth <= 0 or not forwarded:
        return remote
    hops = forwarded.rsplit(",", depth)  # at most depth + 1 pieces: linear, whatever the header's length
    candidate = hops[-min(depth, len(hops))].strip()
    try:
        address = ipaddress.ip_address(candidate)
    except ValueError:
        return remote
    if getattr(address, "scope_id", None):
        return remote
    return str(address)
