"""Limits on guessing passwords and on making accounts (issue 11, finding 8).

* Log-in: django-axes counts failures per username *and* address (``AXES_FAILURE_LIMIT``, 5) and
  per address alone (``AXES_FAILURE_LIMIT_PER_ADDRESS``, 20): a password spray over many usernames
  from one address is stopped too, while a club sharing one address is not locked out by one
  player's typos. :class:`LeagueAxesHandler` is axes' database handler with the two limits, and a
  successful log-in clears only that username's count at the address (axes' own handler would
  clear the whole address, so a sprayer could reset it by logging in to an account of their own).
* Password change: a wrong old password counts as a failed log-in of that user from that address
  (the form asks Django's ``authenticate``, which goes through axes), so it is throttled the same.
* Sign-up: at most ``SIGNUP_RATE_LIMIT`` attempts (posted forms) per address per
  ``SIGNUP_RATE_WINDOW`` seconds, counted in the cache (Redis in production, shared by every
  worker; a process's memory without it).
"""

from __future__ import annotations

from axes.conf import settings as axes_settings
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_failure_limit, get_lockout_parameters
from django.conf import settings
from django.core.cache import cache
from django.db.models import Sum

from common.addresses import client_address as _client_address


def _is_address_only(parameter) -> bool:
    return parameter == "ip_address" or (not isinstance(parameter, str) and list(parameter) == ["ip_address"])


class LeagueAxesHandler(AxesDatabaseHandler):
    """axes' database handler with a limit of its own for the address-only count."""

    def get_failures(self, request, credentials=None) -> int:
        """The worst count, the address-only one scaled so that reaching AXES_FAILURE_LIMIT_PER_ADDRESS
        counts as reaching AXES_FAILURE_LIMIT (axes compares one number with one limit)."""
        limit = get_failure_limit(request, credentials)
        per_address = max(getattr(settings, "AXES_FAILURE_LIMIT_PER_ADDRESS", limit), 1)
        worst = 0
        parameters = get_lockout_parameters(request, credentials)
        for parameter, attempts in zip(parameters, self.get_user_attempts(request, credentials)):
            failures = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            if _is_address_only(parameter):
                failures = failures * limit // per_address
            worst = max(worst, failures)
        return worst

    def reset_user_attempts(self, request, credentials=None) -> int:
        """On a successful log-in, clear the counts that name the user, never the address's own."""
        count = 0
        parameters = get_lockout_parameters(request, credentials)
        for parameter, attempts in zip(parameters, self.filter_user_attempts(request, credentials)):
            if not _is_address_only(parameter):
                count += attempts.delete()[0]
        return count


def client_address(request) -> str:
    """The client's address, as axes sees it too (``TRUSTED_PROXY_COUNT``, common/addresses.py)."""
    return _client_address(request) or "unknown"


def _within_limit(key: str, limit: int, window: int) -> bool:
    """Count one attempt under ``key``; False once there were more than ``limit`` in ``window`` seconds."""
    if not axes_settings.AXES_ENABLED:  # the test suite's switch for every log-in limit
        return True
    cache.add(key, 0, timeout=window)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window)
        count = 1
    return count <= limit


def signup_allowed(request) -> bool:
    """Count this sign-up attempt for its address; False once the address is over its limit."""
    return _within_limit(
        f"signup-attempts:{client_address(request)}", settings.SIGNUP_RATE_LIMIT, settings.SIGNUP_RATE_WINDOW
    )


def account_mail_allowed(request, email: str) -> bool:
    """Count a request that mails an account (password reset, email change) for its address and
    for the email address: False once either is over ``ACCOUNT_MAIL_RATE_LIMIT`` an hour, so the
    forms can neither flood one mailbox nor be used to probe many."""
    limit, window = settings.ACCOUNT_MAIL_RATE_LIMIT, settings.ACCOUNT_MAIL_RATE_WINDOW
    by_address = _within_limit(f"account-mail:ip:{client_address(request)}", limit, window)
    by_email = _within_limit(f"account-mail:to:{email.strip().lower()[:254]}", limit, window)
    return by_address and by_email
