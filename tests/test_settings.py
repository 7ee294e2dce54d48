import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]


def _run_settings(env_extra: dict[str, str], code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}}
    env.update(env_extra)
    env["DJANGO_SETTINGS_MODULE"] = "league.settings"
    out = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings as s; " + code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_embedded_default_uses_sqlite_and_eager_celery():
    out = _run_settings(
        {}, "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER, s.DATABASES['default']['NAME'])"
    )
    engine, eager, name = out.split()
    assert engine == "django.db.backends.sqlite3"
    assert eager == "True"
    assert name == str(ROOT / "db.sqlite3")


def test_database_and_redis_urls_are_read_from_environment():
    out = _run_settings(
        {"DATABASE_URL": "postgres://u@db.example:5433/league", "REDIS_URL": "redis://cache:6379/2"},
        "d=s.DATABASES['default']; print(d['ENGINE'], d['HOST'], d['PORT'], d['NAME'], s.CELERY_BROKER_URL, s.CELERY_RESULT_BACKEND, s.CELERY_TASK_ALWAYS_EAGER)",
    )
    assert out.split() == [
        "django.db.backends.postgresql",
        "db.example",
        "5433",
        "league",
        "redis://cache:6379/2",
        "redis://cache:6379/2",
        "False",
    ]


def test_debug_off_requires_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update({"DEBUG": "0", "DJANGO_SETTINGS_MODULE": "league.settings"})
    proc = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert "SECRET_KEY" in proc.stderr


@pytest.mark.slow(reason="runs manage.py check --deploy in a process of its own")
def test_check_deploy_is_clean_with_production_settings():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(
        {
            "DEBUG": "0",
            "SECRET_KEY": "a-real-production-key-" + "x9Q2!kP7#mZ4@rT8$wL1^" * 3,
            "ALLOWED_HOSTS": "league.example.org",
        }
    )
    proc = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARNING" not in proc.stderr and "WARNINGS" not in proc.stdout
    assert "System check identified no issues" in proc.stdout


def test_https_redirect_is_a_setting():
    out = _run_settings(
        {"DEBUG": "0", "SECRET_KEY": "k" * 60, "SECURE_SSL_REDIRECT": "0"},
        "print(s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE)",
    )
    assert out.split() == ["False", "True"]


def test_suite_reports_its_services(record_property):
    # Printed in the CI log so it is visible which database and broker the suite used.
    vendor = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(f"database={vendor} redis={'yes' if settings.REDIS_URL else 'no (eager)'}")
    if os.environ.get("REQUIRE_SERVICES") == "1":
        assert vendor == "postgresql"
        assert settings.REDIS_URL


def test_production_hashes_passwords_with_a_strong_hasher():
    """The suite hashes with MD5 for speed (tests/settings.py); the site's own settings keep a strong
    hasher, at no fewer iterations than Django's current default."""
    out = _run_settings(
        {},
        "from django.contrib.auth.hashers import get_hasher, make_password; h = get_hasher(); "
        "print(h.algorithm, getattr(h, 'iterations', 0), make_password('correct horse battery').split('$')[0])",
    )
    algorithm, iterations, prefix = out.split()
    assert algorithm in {"pbkdf2_sha256", "argon2", "scrypt", "bcrypt_sha256"}, algorithm
    assert prefix == algorithm
    if algorithm == "pbkdf2_sha256":
        from django.contrib.auth.hashers import PBKDF2PasswordHasher

        assert int(iterations) >= PBKDF2PasswordHasher.iterations >= 1_000_000


def test_the_suite_hashes_passwords_with_the_fast_test_hasher():
    from django.contrib.auth.hashers import get_hasher, make_password

    assert os.environ["DJANGO_SETTINGS_MODULE"] == "tests.settings"
    assert get_hasher().algorithm == "md5"
    assert make_password("correct horse battery").startswith("md5$")
