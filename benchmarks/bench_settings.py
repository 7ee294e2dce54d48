"""Settings for benchmarks/pages.py: the project's settings (read from the environment as in
production), plus a URLconf with a minimal view to compare every page with, a temporary
STATIC_ROOT (collectstatic runs there), and quiet logging so the console does not slow the server."""

import os

from league.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.bench_urls"

if os.environ.get("BENCH_STATIC_ROOT"):
    STATIC_ROOT = os.environ["BENCH_STATIC_ROOT"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
