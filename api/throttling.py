"""Throttles whose rates are read from settings when a request comes (``API_THROTTLE_RATES``), so
an environment variable (or a test) sets them without reloading DRF."""

from __future__ import annotations

import logging

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from common.addresses import client_address

logger = logging.getLogger(__name__)


class _SettingsRate:
    def get_rate(self):
        return settings.API_THROTTLE_RATES[self.scope]

    def get_ident(self, request):
        """The client's address from the declared proxy depth, never the whole X-Forwarded-For
        header (DRF's default without NUM_PROXIES: a fresh allowance for every forged value)."""
        return client_address(request) or "unknown"

    def allow_request(self, request, view):
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            return super().allow_request(request, view)
        except Exception:  # the cache (Redis) is unreachable: serve, as the page cache does
            logger.warning("API throttle: cache unreachable, request allowed")
            return True


class AnonThrottle(_SettingsRate, AnonRateThrottle):
    scope = "anon"


class MemberThrottle(_SettingsRate, UserRateThrottle):
    scope = "user"


class WriteThrottle(_SettingsRate, UserRateThrottle):
    """Writes (results, decisions, schedules) per member, on top of the member's overall rate."""

    scope = "write"
