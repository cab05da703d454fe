"""No Docker engine runs here, so check what can be checked: the files parse and say the right things."""

from __future__ import annotations

import re

import yaml

from tests.conftest import PROJECT_DIR

DOCKER = PROJECT_DIR / "docker"


def test_compose_file_names_web_worker_beat_postgres_and_redis_with_health_checks():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"web", "worker", "beat", "postgres", "redis"}
    for name, service in services.items():
        assert "healthcheck" in service, f"{name} has no health check"
    assert "postgres-data" in compose["volumes"]
    assert "postgres-data:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    for app_service in ("web", "worker", "beat"):
        environment = services[app_service]["environment"]
        assert environment["DATABASE_URL"].startswith("postgres://")
        assert environment["REDIS_URL"].startswith("redis://")
        assert services[app_service]["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_dockerfile_runs_as_a_non_root_user_through_an_existing_entry_point():
    dockerfile = (DOCKER / "Dockerfile").read_text()
    users = re.findall(r"^USER\s+(\S+)", dockerfile, flags=re.MULTILINE)
    assert users and users[-1] not in {"root", "0"}
    entrypoint = re.search(r'^ENTRYPOINT \["([^"]+)"\]', dockerfile, flags=re.MULTILINE).group(1)
    copied = re.search(rf"^COPY (\S+) /usr/local/bin/{entrypoint}$", dockerfile, flags=re.MULTILINE)
    assert copied, "the entry point is not copied into the image"
    script = PROJECT_DIR / copied.group(1)
    assert script.is_file()
    body = script.read_text()
    assert "gunicorn cranfield.wsgi:application" in body
    assert "celery -A cranfield worker" in body
    # Every path the Dockerfile copies exists in the repository.
    for source in re.findall(r"^COPY (\S+(?: \S+)*) \S+$", dockerfile, flags=re.MULTILINE):
        for path in source.split():
            assert (PROJECT_DIR / path).exists(), f"Dockerfile copies missing {path}"


def test_whitenoise_serves_static_files():
    from django.conf import settings

    assert "whitenoise.middleware.WhiteNoiseMiddleware" in settings.MIDDLEWARE


def test_beat_runs_the_scheduler_through_the_entry_point_once():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    beat = compose["services"]["beat"]
    assert beat["command"] == ["beat"]
    assert "deploy" not in beat or beat["deploy"].get("replicas", 1) == 1  # two would double every job
    entrypoint = (DOCKER / "entrypoint.sh").read_text()
    assert "beat)\n    exec celery -A cranfield beat" in entrypoint
    assert beat["image"] == compose["services"]["worker"]["image"]
