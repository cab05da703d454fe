"""A real Celery worker process on Redis, writing to the same PostgreSQL test database."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import kombu.pools
import pytest
import redis

from tests.conftest import PROJECT_DIR


@dataclass
class WorkerProcess:
    process: subprocess.Popen
    log_path: Path

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_text(self) -> str:
        return self.log_path.read_text()


def forget_broker_connections(app) -> None:
    """Drop cached connection and producer pools so the next send uses the current broker_url."""
    kombu.pools.reset()  # closes every pooled connection and forgets the pools, keyed by broker URL
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def celery_worker_process(postgres_required, redis_url, transactional_db, tmp_path):
    """Start ``celery worker`` against the test database; route this process's tasks through Redis."""
    from django.db import connection

    from cranfield.celery import app

    redis.Redis.from_url(redis_url).flushdb()
    database = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}"
            f"/{database['NAME']}"
        ),
        "REDIS_URL": redis_url,
        "DEBUG": "false",
        "SECRET_KEY": "integration-test-secret-not-the-development-one",
    }
    log_path = tmp_path / "worker.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed below, after the process ends
    celery = Path(sys.executable).with_name("celery")
    worker = subprocess.Popen(
        [
            str(celery),
            "-A",
            "cranfield",
            "worker",
            "--pool=solo",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            "itest@%h",
        ],
        cwd=PROJECT_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    previous = {key: app.conf[key] for key in ("task_always_eager", "broker_url")}
    app.conf.update(task_always_eager=False, broker_url=redis_url)
    forget_broker_connections(app)
    try:
        deadline = time.monotonic() + 60
        while "ready." not in log_path.read_text():
            if worker.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"celery worker did not start:\n{log_path.read_text()}")
            time.sleep(0.2)
        yield WorkerProcess(worker, log_path)
    finally:
        app.conf.update(**previous)
        forget_broker_connections(app)
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        log.close()
