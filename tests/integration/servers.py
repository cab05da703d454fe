"""Whole Cranfield installs for integration tests: ``manage.py`` run in a child process and gunicorn
serving it, each with the environment a deployment would give it (not the test run's)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest
import requests

from tests.conftest import PROJECT_DIR


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def deployment_environment(**settings: str) -> dict[str, str]:
    """This process's environment without the test run's Django, Celery and Redis settings, plus
    ``settings``."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "CELERY_", "REDIS", "DATABASE_URL", "SQLITE_PATH"))
    }
    environment.update(settings)
    return environment


def manage(environment: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=PROJECT_DIR, env=environment, capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


class Gunicorn:
    """gunicorn serving ``cranfield.wsgi`` on a free port until ``stop()``, with the production
    settings (``cranfield/gunicorn.py``, as ``docker/entrypoint.sh`` runs it) and what ``options``
    change (``--timeout``, ``--worker-class``, …)."""

    def __init__(
        self, environment: dict, log_path: Path, *, workers: int = 2, threads: int = 2, options: tuple = ()
    ) -> None:
        self.log_path = log_path
        self.log: IO[str] = open(log_path, "w")  # noqa: SIM115 - lives as long as the server
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [str(Path(sys.executable).parent / "gunicorn"), "cranfield.wsgi",
             "-c", "python:cranfield.gunicorn", "-b", f"127.0.0.1:{port}", "-w", str(workers),
             "--threads", str(threads), "--timeout", "120", "--access-logfile", "/dev/null", *options],
            cwd=PROJECT_DIR, env=environment, stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        for _ in range(300):
            try:
                if requests.get(self.base + "/accounts/login/", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                time.sleep(0.1)
        self.stop()
        pytest.fail("gunicorn did not start: " + log_path.read_text()[-3000:])

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()
