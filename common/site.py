"""The site's own address, for the links that leave a request behind: emails and feeds.

``settings.SITE_URL`` (the ``SITE_URL`` environment variable, e.g. ``https://league.example.org``)
is the one source of the scheme and host of every link in an email or a feed (issue 27, finding
2). It is never taken from a request's ``Host`` header, so a mail sent by a worker, a shell or a
request to another allowed host links to the same site.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings


def site_url() -> str:
    """The site's address without a trailing slash, e.g. ``https://league.example.org``."""
    return settings.SITE_URL.rstrip("/")


def absolute_url(path: str) -> str:
    """``path`` (a site-relative address, "/leagues/...") on the site's own host."""
    return site_url() + path


def site_domain() -> tuple[str, bool]:
    """(host[:port], whether it is https): what Django's password reset mail wants."""
    parts = urlsplit(site_url())
    return parts.netloc, parts.scheme == "https"
