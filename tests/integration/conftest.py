"""A real Celery worker process on Redis, writing to the same PostgreSQL test database."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import kombu.pools
import pytest
import redis

from tests.conftest import PROJECT_DIR


@dataclass
class WorkerProcess:
    process: subprocess.Popen
    log_path: Path
    log: IO[str]

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_text(self) -> str:
        return self.log_path.read_text()

    def kill(self) -> None:
        """SIGKILL: the worker dies mid-job, without acknowledging or handing back its messages."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def forget_broker_connections(app) -> None:
    """Drop cached connection and producer pools so the next send uses the current broker_url."""
    kombu.pools.reset()  # closes every pooled connection and forgets the pools, keyed by broker URL
    app._pool = None
    app.amqp._producer_pool = None


def process_environment(redis_url: str, extra_env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a worker or beat process: the test database, the given Redis, DEBUG off."""
    from django.db import connection

    database = connection.settings_dict
    return {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}"
            f"/{database['NAME']}"
        ),
        "REDIS_URL": redis_url,
        "DEBUG": "false",
        "SECRET_KEY": "integration-test-secret-not-the-development-one",
        **(extra_env or {}),
    }


def start_celery(arguments: list[str], env: dict[str, str], log_path: Path, ready: str) -> WorkerProcess:
    """``celery -A cranfield <arguments>`` in the project folder; return once its log shows ``ready``."""
    log = open(log_path, "w")  # noqa: SIM115 - closed by WorkerProcess.stop
    celery = Path(sys.executable).with_name("celery")
    process = subprocess.Popen(
        [str(celery), "-A", "cranfield", *arguments],
        cwd=PROJECT_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    started = WorkerProcess(process, log_path, log)
    deadline = time.monotonic() + 60
    while ready not in log_path.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            started.stop()
            pytest.fail(f"celery {arguments[0]} did not start:\n{log_path.read_text()}")
        time.sleep(0.1)
    return started


def start_worker(
    redis_url: str, log_path: Path, name: str, extra_env: dict[str, str] | None = None, pool: str = "solo"
) -> WorkerProcess:
    """Start ``celery worker`` (solo pool, or ``prefork`` with one child as in production) on the test
    database and Redis; return once it is ready."""
    arguments = [
        "worker",
        f"--pool={pool}",
        *(["--concurrency=1"] if pool == "prefork" else []),
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "-n",
        f"{name}@%h",
    ]
    return start_celery(arguments, process_environment(redis_url, extra_env), log_path, "ready.")


def start_beat(redis_url: str, log_path: Path, extra_env: dict[str, str] | None = None) -> WorkerProcess:
    """Start ``celery beat`` (its schedule file beside its log), as production runs it."""
    arguments = ["beat", "--loglevel=INFO", "-s", str(log_path.with_suffix(".schedule"))]
    return start_celery(arguments, process_environment(redis_url, extra_env), log_path, "Starting...")


@contextlib.contextmanager
def sending_to(app, broker_url: str) -> Iterator[None]:
    """This process's tasks go to ``broker_url`` (not run eagerly) until the block ends."""
    previous = {key: app.conf[key] for key in ("task_always_eager", "broker_url")}
    app.conf.update(task_always_eager=False, broker_url=broker_url)
    forget_broker_connections(app)
    try:
        yield
    finally:
        app.conf.update(**previous)
        forget_broker_connections(app)


@pytest.fixture
def tasks_through_redis(postgres_required, redis_url, transactional_db):
    """Send this process's tasks to an emptied Redis database instead of running them eagerly."""
    from cranfield.celery import app

    redis.Redis.from_url(redis_url).flushdb()
    with sending_to(app, redis_url):
        yield redis_url


@pytest.fixture
def celery_worker_process(tasks_through_redis, tmp_path):
    """A real Celery worker process on Redis, writing to the same PostgreSQL test database."""
    worker = start_worker(tasks_through_redis, tmp_path / "worker.log", "itest")
    try:
        yield worker
    finally:
        worker.stop()


@pytest.fixture
def start_celery_worker(tasks_through_redis, tmp_path):
    """Start workers on demand (``start_celery_worker(extra_env)``); every one is stopped at the end."""
    started: list[WorkerProcess] = []

    def start(extra_env: dict[str, str] | None = None) -> WorkerProcess:
        number = len(started) + 1
        worker = start_worker(
            tasks_through_redis, tmp_path / f"worker{number}.log", f"itest{number}", extra_env
        )
        started.append(worker)
        return worker

    try:
        yield start
    finally:
        for worker in started:
            worker.stop()
