"""The test suite's settings: the site's own (league/settings.py) and the few things a test run changes.

pyproject.toml points pytest-django here. Everything else is production's, read from the same
environment, so the suite tests what runs.

- A fast password hasher. Django's PBKDF2 costs about 0.3 s a hash on this machine, and the suite
  makes thousands of users; a strong hash proves nothing a test checks. Production keeps Django's
  default (tests/test_settings.py::test_production_hashes_passwords_with_a_strong_hasher).
- One Redis database per pytest-xdist worker, so that two workers never share a broker queue, a
  result or a cache (a test that empties the cache, or a real Celery worker taking tasks, sees its
  own worker's only). The worker's REDIS_URL is also put in the environment, for the subprocesses a
  test starts (gunicorn, celery). Each database is PostgreSQL's or SQLite's per worker already:
  pytest-django names them ``test_<name>_gw0``, ``_gw1``...
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

from league.settings import *  # noqa: F403
from league.settings import CACHES, REDIS_URL

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# A worker's index (gw0 -> 0, gw1 -> 1; 0 without xdist) and the Redis databases it takes, counted
# from REDIS_URL's: the suite's own, the production-path test's and the Redis page-cache test's.
# Redis has 16 databases: at most 5 workers can share one server.
WORKER_INDEX = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
TEST_REDIS_ROLES = ("suite", "production_path", "page_cache")


def _worker_redis_url(url: str, role: str) -> str:
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0) + WORKER_INDEX * len(TEST_REDIS_ROLES) + TEST_REDIS_ROLES.index(role)
    if number > 15:
        raise RuntimeError(f"Redis database {number} does not exist: run at most 5 xdist workers against one Redis")
    return urlunsplit(parts._replace(path=f"/{number}"))


# The Redis database of each role for this worker (empty without REDIS_URL).
TEST_REDIS_URLS = {role: _worker_redis_url(REDIS_URL, role) if REDIS_URL else "" for role in TEST_REDIS_ROLES}

if REDIS_URL:
    REDIS_URL = TEST_REDIS_URLS["suite"]
    os.environ["REDIS_URL"] = REDIS_URL
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CACHES = {**CACHES, "default": {**CACHES["default"], "LOCATION": REDIS_URL}}
