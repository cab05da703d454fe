"""Redis down does not take the web side down: with a Redis of this test's own stopped mid-session,
annotators still log in, open the judging page and submit, and every judgement is in the database.

The machine's Redis is never touched: the test starts its own ``redis-server`` on a free port.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest
from django.urls import reverse

from annotation.models import Assignment, Judgement
from tests.annotation.factories import make_project
from tests.conftest import missing

pytestmark = pytest.mark.django_db


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_redis(port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    pytest.fail(f"redis-server did not start on port {port}")


@pytest.fixture
def own_redis(settings):
    if shutil.which("redis-server") is None:
        missing("this test starts its own redis-server, which is not installed")
    port = free_port()
    server = start_redis(port)
    settings.CACHES = {
        "default": {
            "BACKEND": "cranfield.cache.ForgivingRedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    state = {"server": server, "port": port}
    yield state
    state["server"].kill()
    state["server"].wait()


def judge_one(client, project, annotator) -> int:
    page = client.get(reverse("judge", args=[project.pk]))
    assert page.status_code == 200
    client.post(reverse("claim", args=[project.pk]))
    lease = Assignment.objects.get(annotator=annotator, status=Assignment.Status.ACTIVE)
    response = client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": "1"})
    assert response.status_code == 302
    return Judgement.objects.filter(annotator=annotator).count()


def test_annotators_log_in_judge_and_submit_while_redis_is_down(client, researcher, annotators, own_redis):
    from django.core.cache import cache

    project = make_project(researcher, annotators, k=3, pool_depth=2)
    first, second = annotators[0], annotators[1]
    response = client.post(reverse("login"), {"username": first.username, "password": "annotator1-password"})
    assert response.status_code == 302
    assert judge_one(client, project, first) == 1
    cache.set("probe", 1)
    assert cache.get("probe") == 1  # Redis is the cache while it runs

    own_redis["server"].kill()
    own_redis["server"].wait()
    assert cache.get("probe") is None  # a miss, not an error

    # The session that was in Redis is read from the database; the judging goes on.
    assert judge_one(client, project, first) == 2
    # A fresh login writes its session to the database alone.
    other = type(client)()
    response = other.post(reverse("login"), {"username": second.username, "password": "annotator2-password"})
    assert response.status_code == 302
    assert judge_one(other, project, second) == 1

    own_redis["server"] = start_redis(own_redis["port"])
    cache.set("probe", 2)
    assert cache.get("probe") == 2  # back in use once Redis returns
    assert judge_one(client, project, first) == 3
