"""Settings come from the environment; production refuses the development secret."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import PROJECT_DIR

PROBE = """
import json
from django.conf import settings
from cranfield.celery import app
print(json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "name": str(settings.DATABASES["default"]["NAME"]),
    "debug": settings.DEBUG,
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "broker": app.conf.broker_url,
    "serializer": app.conf.task_serializer,
    "accept": app.conf.accept_content,
    "acks_late": app.conf.task_acks_late,
    "reject_on_worker_lost": app.conf.task_reject_on_worker_lost,
    "time_limit": app.conf.task_time_limit,
    "soft_time_limit": app.conf.task_soft_time_limit,
    "allowed_hosts": settings.ALLOWED_HOSTS,
    "session_cookie_secure": settings.SESSION_COOKIE_SECURE,
    "static_storage": settings.STORAGES["staticfiles"]["BACKEND"],
}))
"""

CONFIG_VARS = {
    "DATABASE_URL",
    "REDIS_URL",
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "CELERY_TASK_ALWAYS_EAGER",
    "LOCAL_TRIAL",
}


def load_settings(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS}
    clean.update(env, DJANGO_SETTINGS_MODULE="cranfield.settings")
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()\n" + PROBE],
        cwd=PROJECT_DIR,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_no_environment_means_sqlite_eager_tasks_and_debug():
    result = load_settings()
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    assert config["engine"] == "django.db.backends.sqlite3"
    assert config["name"] == str(PROJECT_DIR / "cranfield.sqlite3")
    assert config["eager"] is True
    assert config["debug"] is True


def test_database_and_redis_urls_switch_to_postgres_and_a_broker():
    result = load_settings(
        DATABASE_URL="postgres://cranfield:pw@db.example:5433/gold",
        REDIS_URL="redis://cache.example:6380/2",
        SECRET_KEY="a-real-production-secret-of-some-length",
        ALLOWED_HOSTS="cranfield.example.org",
    )
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    assert config["engine"] == "django.db.backends.postgresql"
    assert config["name"] == "gold"
    assert config["eager"] is False
    assert config["broker"] == "redis://cache.example:6380/2"
    assert config["debug"] is False
    assert config["allowed_hosts"] == ["cranfield.example.org"]


def test_a_local_trial_serves_the_embedded_default_with_debug_off_over_plain_http():
    """``dev.py run``: the site's own error pages (DEBUG off), cookies over http://127.0.0.1, static
    files from the apps (no collectstatic), still SQLite and in-process tasks."""
    result = load_settings(LOCAL_TRIAL="true", SECRET_KEY="a-trial-secret-made-by-dev-py-0123456789")
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    assert (config["debug"], config["engine"], config["eager"]) == (False, "django.db.backends.sqlite3", True)
    assert config["allowed_hosts"] == ["localhost", "127.0.0.1", "[::1]", "testserver"]
    assert config["session_cookie_secure"] is False
    assert config["static_storage"] == "django.contrib.staticfiles.storage.StaticFilesStorage"
    # DEBUG asked for by name wins; a trial with the development secret is refused like production.
    assert json.loads(load_settings(LOCAL_TRIAL="true", DEBUG="true").stdout)["debug"] is True
    assert load_settings(LOCAL_TRIAL="true").returncode != 0


def test_local_trial_means_nothing_outside_the_embedded_default():
    result = load_settings(
        LOCAL_TRIAL="true",
        DATABASE_URL="postgres://u@h/db",
        SECRET_KEY="a-real-production-secret-of-some-length",
    )
    config = json.loads(result.stdout)
    assert config["allowed_hosts"] == [] and config["session_cookie_secure"] is True
    assert config["static_storage"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"


def test_celery_is_configured_for_safe_redelivery():
    config = json.loads(load_settings().stdout)
    assert config["serializer"] == "json"
    assert config["accept"] == ["json"]
    assert config["acks_late"] is True
    assert config["reject_on_worker_lost"] is True
    assert 0 < config["soft_time_limit"] < config["time_limit"]


def test_production_mode_refuses_the_development_secret():
    from cranfield.settings import DEVELOPMENT_SECRET_KEY

    result = load_settings(DATABASE_URL="postgres://u@h/db", DEBUG="false", SECRET_KEY=DEVELOPMENT_SECRET_KEY)
    assert result.returncode != 0
    assert "development secret is refused" in result.stderr


def test_production_mode_refuses_a_missing_secret():
    result = load_settings(DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_a_malformed_boolean_is_an_error_naming_the_variable():
    result = load_settings(DEBUG="maybe")
    assert result.returncode != 0
    assert "DEBUG must be a boolean" in result.stderr


# The production environment the README's "Production deployment" describes, behind an HTTPS proxy.
PRODUCTION = {
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/cranfield",  # not connected to by the check
    "DEBUG": "false",
    "SECRET_KEY": "a-long-random-secret-for-the-deploy-check-only-0123456789abcdefghijklmnop",
    "ALLOWED_HOSTS": "cranfield.example.org",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
}


def deploy_check(**env: str) -> subprocess.CompletedProcess:
    # Only what a deployment's environment has: nothing the test run set (the browser tests set
    # DJANGO_ALLOW_ASYNC_UNSAFE, which the deploy check rightly refuses).
    clean = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=PROJECT_DIR,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_check_deploy_is_clean_with_the_production_settings():
    result = deploy_check(**PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
    # Without HTTPS enforced, Django's check says what is missing (the defaults suit a plain-HTTP trial).
    plain = deploy_check(**{k: v for k, v in PRODUCTION.items() if not k.startswith("SECURE_")})
    assert plain.returncode != 0 and "SECURE_HSTS_SECONDS" in plain.stderr + plain.stdout
