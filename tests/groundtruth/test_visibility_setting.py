"""The broker's visibility timeout (how soon a dead worker's job goes to another) is configurable."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import PROJECT_DIR

PROBE = """
import json, django
django.setup()
from cranfield.celery import app
print(json.dumps({"options": app.conf.broker_transport_options, "limit": app.conf.task_time_limit}))
"""


def celery_config(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CELERY_")}
    clean.update(env, DJANGO_SETTINGS_MODULE="cranfield.settings")
    for name in ("DATABASE_URL", "REDIS_URL"):
        clean.pop(name, None)
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=PROJECT_DIR, env=clean, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_by_default_it_outlasts_the_longest_job_by_a_minute():
    config = celery_config()
    assert config["options"]["visibility_timeout"] == config["limit"] + 60 == 720


def test_it_follows_the_time_limit_when_only_that_is_set():
    assert celery_config(CELERY_TASK_TIME_LIMIT="100")["options"]["visibility_timeout"] == 160


def test_celery_visibility_timeout_sets_it():
    assert celery_config(CELERY_VISIBILITY_TIMEOUT="5")["options"]["visibility_timeout"] == 5
