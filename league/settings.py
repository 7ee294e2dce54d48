"""Moonlight League settings, read from the environment.

Embedded default (nothing set): SQLite file in the project folder, Celery tasks run eagerly.
Production: DATABASE_URL (PostgreSQL), REDIS_URL (Celery broker and results), SECRET_KEY,
DEBUG=0, ALLOWED_HOSTS, and optionally SECURE_SSL_REDIRECT=1 behind TLS.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF

from games import registry as _games_registry

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
_DEV_KEY = "django-insecure-moonlight-league-development-key-only-for-local-use"
SECRET_KEY = os.environ.get("SECRET_KEY") or _DEV_KEY
if not DEBUG and SECRET_KEY == _DEV_KEY:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("Set SECRET_KEY when DEBUG is off.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "crispy_forms",
    "crispy_bootstrap5",
    "django_celery_beat",
    "axes",
    "rules",
    "teams",
    "matches",
    "league.apps.LeagueConfig",
    "outbox",
    "newsletters",
    "notifications",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "api",
    "stats",
    # Last: registers each game of MOONLIGHT_GAMES once the core apps are ready (games/apps.py).
    "games.apps.GamesConfig",
]

#: The games a league can be for: each game's Django side, a module with a ``GAME_SITE``
#: (games.protocol.Game). A new game is its package and one line here (docs/architecture.md).
MOONLIGHT_GAMES = ["games.allstars.site", "games.ninjutsu.site", "games.kage_masters.site"]

MIDDLEWARE = [
    # Outermost, and answering nothing itself: an error under /api/ leaves as JSON (api/middleware.py).
    "api.middleware.JsonErrorsMiddleware",
    # The Host header is checked first, before anything (the page cache) may answer.
    "league.middleware.AllowedHostMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "league.middleware.RequestSizeLimitMiddleware",
    "league.middleware.RejectControlCharactersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Anonymous reads of public pages are answered here, before sessions and authentication.
    "common.pagecache.AnonymousPageCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "league.middleware.PrivatePagesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
]

# Login attempts are rate-limited by django-axes (teams/throttling.py): after AXES_FAILURE_LIMIT
# failures for a username from one address, or AXES_FAILURE_LIMIT_PER_ADDRESS failures from one
# address whatever the usernames (a password spray), that username or address is locked out for
# AXES_COOLOFF_TIME. A wrong old password on the password-change page counts as a failed log-in.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_ENABLED = env_bool("AXES_ENABLED", True)
AXES_HANDLER = "teams.throttling.LeagueAxesHandler"
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_FAILURE_LIMIT_PER_ADDRESS = int(os.environ.get("AXES_FAILURE_LIMIT_PER_ADDRESS", "20"))
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# Sign-up attempts (posted forms) per address per window (teams/throttling.py).
SIGNUP_RATE_LIMIT = int(os.environ.get("SIGNUP_RATE_LIMIT", "10"))
SIGNUP_RATE_WINDOW = 3600  # seconds
# Password reset and email change mails: per client address and per email address, an hour.
ACCOUNT_MAIL_RATE_LIMIT = int(os.environ.get("ACCOUNT_MAIL_RATE_LIMIT", "5"))
ACCOUNT_MAIL_RATE_WINDOW = 3600  # seconds
# How long a password reset or email change link stays valid (Django's default is three days).
PASSWORD_RESET_TIMEOUT = 60 * 60 * 24
EMAIL_CHANGE_TIMEOUT = 60 * 60 * 24

ROOT_URLCONF = "league.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "notifications.context_processors.unread",
                "league.context_processors.site_games",
            ],
        },
    },
]

WSGI_APPLICATION = "league.wsgi.application"
ASGI_APPLICATION = "league.asgi.application"

#: SQLite (the default) under concurrent requests: write-ahead logging (readers and the writer do
#: not block each other), a busy timeout (a request waits up to 20 s for the write lock instead of
#: failing), and transactions that take the write lock when they begin (BEGIN IMMEDIATE): a
#: deferred transaction that read first and then wanted to write, while another was writing, got
#: "database is locked" at once, whatever the timeout (issue 11, finding 10).
SQLITE_OPTIONS = {
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
}

DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # The league table's aggregate is cheap to run but costly to JIT-compile on every request.
        DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c jit=off"
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": BASE_DIR / "db.sqlite3",
            # The test database is a file (not SQLite's in-memory default) so that `pytest --reuse-db`
            # (pyproject.toml's addopts) keeps it between runs: a run skips the migrations and the
            # catalog's load. CI creates it afresh (.ci/run: --create-db).
            "TEST": {"NAME": BASE_DIR / ".test-db.sqlite3"},
        }
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "teams.passwords.LowVarietyPasswordValidator"},
]

# Request sizes: no page but the import of a league's backup takes a file, and no form needs more than a few hundred kilobytes (the
# longest is a newsletter's editorial). league.middleware.RequestSizeLimitMiddleware answers 413
# to any body over REQUEST_BODY_MAX_SIZE before it is read; Django's own limits stand behind it.
REQUEST_BODY_MAX_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000
DATA_UPLOAD_MAX_NUMBER_FILES = 1  # the import of a league's backup; every other page refuses files (league.middleware)
#: The largest league backup an import reads (the import page and `manage.py import_league`),
#: refused before it is parsed; the import page's request may be this much larger than
#: REQUEST_BODY_MAX_SIZE (league.middleware). docs/operations.md, "Backups".
LEAGUE_IMPORT_MAX_BYTES = int(os.environ.get("LEAGUE_IMPORT_MAX_BYTES", str(10 * 1024 * 1024)))

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")  # collectstatic writes here
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if not DEBUG
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

# Celery: no REDIS_URL means tasks run eagerly in-process (the embedded default).
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
    if REDIS_URL.split("://", 1)[0] in ("redis", "rediss"):
        # kombu's Redis transport, surviving a broker outage while a task runs (league/broker.py)
        CELERY_BROKER_TRANSPORT = "league.broker:Transport"
else:
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"
    CELERY_TASK_ALWAYS_EAGER = True
    CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_TRACK_STARTED = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = TIME_ZONE

# Recovery that runs by itself (beat; the entries are made by `migrate` and `setup_periodic_tasks`,
# league/periodic.py). Tasks stored in the outbox during a broker outage are sent again every
# OUTBOX_REDISPATCH_EVERY seconds. A long job (schedule run, simulation, newsletter build) whose
# worker shows no sign of life for JOB_STALE_SECONDS (doubled after each restart) is resumed by a
# check every JOB_RECOVERY_EVERY seconds, at most JOB_MAX_RESTARTS times (outbox/jobs.py).
OUTBOX_REDISPATCH_EVERY = int(os.environ.get("OUTBOX_REDISPATCH_EVERY", "60"))
JOB_RECOVERY_EVERY = int(os.environ.get("JOB_RECOVERY_EVERY", "60"))
JOB_STALE_SECONDS = float(os.environ.get("JOB_STALE_SECONDS", "120"))
JOB_HEARTBEAT_EVERY = float(os.environ.get("JOB_HEARTBEAT_EVERY", "5"))
JOB_MAX_RESTARTS = int(os.environ.get("JOB_MAX_RESTARTS", "3"))

# Cache: Redis when configured (shared by every process), else this process's memory.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "common.rediscache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "moonlight"),
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
#: Anonymous reads of public pages are cached, invalidated by the writes to what they show (common/invalidation.py).
#: On by default only with Redis: a per-process memory cache could not see another process's writes.
PAGE_CACHE_SECONDS = int(os.environ.get("PAGE_CACHE_SECONDS", "300" if REDIS_URL else "0"))
#: The heavy blocks of members' pages (common/fragments.py), under the same versions (common/invalidation.py).
FRAGMENT_CACHE_SECONDS = int(os.environ.get("FRAGMENT_CACHE_SECONDS", "300" if REDIS_URL else "0"))

#: Notifications (notifications/): fixtures are reminded of this many days before their deadline;
#: an email's unsubscribe link works for this many seconds.
NOTIFICATIONS_DEADLINE_DAYS = int(os.environ.get("NOTIFICATIONS_DEADLINE_DAYS", "2"))
NOTIFICATIONS_UNSUBSCRIBE_MAX_AGE = int(os.environ.get("NOTIFICATIONS_UNSUBSCRIBE_MAX_AGE", str(90 * 24 * 3600)))

EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Moonlight League <league@localhost>")
# The scheme and host of every link in an email or a feed (common/site.py), never a request's Host.
SITE_URL = os.environ.get("SITE_URL", "http://localhost:8000").rstrip("/")

# Security: strict by default when DEBUG is off; HTTPS redirect is its own switch.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp 4): scripts, styles, images and fonts from the site only; no
# inline script and no inline style anywhere (the pages' behaviour is in static/js, their look in
# static/css). One exception, made per page: a newsletter's sections carry inline styles so they
# read the same in an email, so its page allows style attributes (newsletters.views, csp_update).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],  # Bootstrap draws its small icons as data: SVGs
        "font-src": [SELF],
        "connect-src": [SELF],  # the progress bars' polling
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
# Permissions-Policy (django-permissions-policy): no page uses the camera, the microphone, the
# position or the other powerful features, so none may (nor may a page that frames ours).
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer",
        "autoplay",
        "browsing-topics",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "publickey-credentials-get",
        "screen-wake-lock",
        "usb",
        "xr-spatial-tracking",
    )
}
if env_bool("USE_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# How many proxies of ours stand in front of the site, each appending to X-Forwarded-For: 0 ignores
# the header (REMOTE_ADDR is the client). Every limiter reads the client's address through
# common.addresses.client_address, and DRF's NUM_PROXIES is the same number (issue 27, item 15).
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
if TRUSTED_PROXY_COUNT < 0:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("TRUSTED_PROXY_COUNT is a number of proxies: 0 or more.")
AXES_CLIENT_IP_CALLABLE = "common.addresses.client_address"

# The public REST API (api/, docs/api.md): token or session authentication, JSON only, bounded
# bodies and pages, throttled per address (anonymous) and per member.
API_MAX_BODY_BYTES = int(os.environ.get("API_MAX_BODY_BYTES", str(64 * 1024)))
API_MAX_JSON_DEPTH = 8
API_THROTTLE_RATES = {
    "anon": os.environ.get("API_THROTTLE_ANON", "120/min"),
    "user": os.environ.get("API_THROTTLE_USER", "600/min"),
    "write": os.environ.get("API_THROTTLE_WRITE", "60/min"),
}
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.AnonThrottle", "api.throttling.MemberThrottle"],
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,  # api.throttling reads common.addresses, which agrees
    "DEFAULT_SCHEMA_CLASS": "api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
#: The games the API serves leagues of, named alike (issue 28, part 6).
_GAME_NAMES = ", ".join(g.name for g in list(_games_registry.GAMES.values())[:-1]) + (
    f" and {list(_games_registry.GAMES.values())[-1].name}"
)

SPECTACULAR_SETTINGS = {
    "TITLE": "Moonlight League API",
    "DESCRIPTION": f"Leagues of {_GAME_NAMES}, each in its own terms (a league's game is on the league, its "
    "entries and its matches). Read the rules catalog, leagues, seasons, tables, fixtures, matches, entries (All-Stars "
    "teams with their ninjas, or players), leaderboards, strength ratings and newsletters; enter each game's results "
    "and trigger schedules with a token (docs/api.md). "
    "Every string, in the query and in a body, is refused (400) when it holds a NUL (U+0000) or, in a body, a "
    "lone surrogate (U+D800 to U+DFFF): no field may store one.",
    "VERSION": "1.0.0",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No deep links: Swagger UI puts each operation's link inside its expand button (axe: nested-interactive).
    "SWAGGER_UI_SETTINGS": {"deepLinking": False, "syntaxHighlight": False},
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.add_error_responses",
    ],
    "ENUM_NAME_OVERRIDES": {
        "SeasonStatusEnum": "league.models.Season.Status",
        "ScheduleRunStatusEnum": "league.models.ScheduleRun.Status",
        "ScheduleKindEnum": "league.models.ScheduleRun.Kind",
        "MatchStatusEnum": "matches.models.Match.Status",
        "TeamStatusEnum": "teams.models.Team.Status",
        "NinjaStatusEnum": "teams.models.Ninja.Status",
        "NewsletterStatusEnum": "newsletters.models.Newsletter.Status",
        "NewsletterKindEnum": "newsletters.models.Newsletter.Kind",
        "ProfileKindEnum": "rules.models.Profile.Kind",
        "ElementEnum": "rules.models.Element",
        "LeaderboardBoardEnum": "stats.selectors.leaderboards.BOARD_KEYS",
        "RatingSystemEnum": "teams.models.StrengthRating.System",
        "GameEnum": "games.registry.CHOICES",
        "NinjutsuGameEnum": ["ninjutsu"],
        "KageMastersGameEnum": ["kage_masters"],
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}
