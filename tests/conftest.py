"""Shared fixtures: real data sets, the three personas, and the external services.

Real data sets live in ../shared/data (never copied into the project). Integration tests need
PostgreSQL and Redis; without them they are skipped locally and *fail* when
CRANFIELD_REQUIRE_SERVICES=1 (set by ``dev.py test`` under CI=true).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import urlparse

import pytest

PROJECT_DIR = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT_DIR.parent / "shared" / "data"
REQUIRE_SERVICES = os.environ.get("CRANFIELD_REQUIRE_SERVICES") == "1"
os.environ.setdefault("MPLBACKEND", "Agg")  # no display here or in CI


def missing(reason: str) -> None:
    """Skip locally; fail in CI, where a missing service is never silently skipped."""
    if REQUIRE_SERVICES:
        pytest.fail(f"{reason} (required: CRANFIELD_REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        missing(f"real data sets not found at {SHARED_DATA}")
    return SHARED_DATA


def _reachable(url: str) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname, parsed.port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def postgres_required() -> None:
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        missing("this test needs PostgreSQL: run with DATABASE_URL=postgres://… (dev.py test sets it)")


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = os.environ.get("CRANFIELD_TEST_REDIS_URL", "")
    if not url or not _reachable(url):
        missing(
            "this test needs Redis: set CRANFIELD_TEST_REDIS_URL=redis://127.0.0.1:6379/15 (dev.py test does)"
        )
    return url


@pytest.fixture
def researcher(django_user_model):
    from django.contrib.auth.models import Group

    from annotation.permissions import RESEARCHERS_GROUP

    user = django_user_model.objects.create_user("owner", password="owner-password")
    user.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    return user


@pytest.fixture
def outsider_researcher(django_user_model):
    from django.contrib.auth.models import Group

    from annotation.permissions import RESEARCHERS_GROUP

    user = django_user_model.objects.create_user("outsider", password="outsider-password")
    user.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    return user


@pytest.fixture
def annotators(django_user_model):
    return [
        django_user_model.objects.create_user(f"annotator{i}", password=f"annotator{i}-password")
        for i in (1, 2, 3)
    ]


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Tests create many users; the production hasher's deliberate slowness would dominate the suite."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache: row ids repeat across tests, cached counts must not."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _ground_truth_jobs_wait_to_be_run(settings):
    """Without a worker, ground-truth jobs queue for ``embedded.run_queued()`` instead of starting
    on a timer thread that would outlive the test (tests of the thread runner switch it back)."""
    settings.GROUND_TRUTH_EMBEDDED_RUNNER = "manual"
    yield
    from evaluation.ground_truth import embedded

    embedded.discard_queued()
