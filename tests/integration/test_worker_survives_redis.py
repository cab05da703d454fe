"""A worker holding a job when Redis goes away keeps running, reconnects when Redis returns, and does
the next job (it used to die: kombu's restore of unacknowledged messages over the lost connection
raised "'NoneType' object has no attribute 'hostname'"; ``cranfield.broker`` skips that restore).

Uses a Redis of its own on a free port, stopped and started again by the test; the machine's Redis is
never touched.
"""

from __future__ import annotations

import shutil
import time

import pytest

from annotation.judging.assignment import claim_next_task, submit_judgement
from evaluation.ground_truth.tasks import compute_ground_truth
from evaluation.models import GroundTruthSnapshot
from tests.annotation.factories import make_project
from tests.conftest import missing
from tests.integration.conftest import forget_broker_connections, sending_to, start_worker
from tests.integration.test_redis_down import free_port, start_redis

pytestmark = pytest.mark.integration


def wait_for(condition, seconds: float, what: str, worker) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert worker.alive(), f"the worker died while waiting for {what}:\n{worker.log_text()}"
        assert time.monotonic() < deadline, f"no {what} after {seconds} s:\n{worker.log_text()}"
        time.sleep(0.2)


def test_the_worker_survives_losing_redis_with_a_job_in_hand(
    postgres_required, transactional_db, researcher, annotators, tmp_path
):
    if shutil.which("redis-server") is None:
        missing("this test starts its own redis-server, which is not installed")
    from cranfield.celery import app

    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    server = start_redis(port)
    with sending_to(app, url):
        # The production pool: the solo pool's blocking loop never met the bug.
        worker = start_worker(url, tmp_path / "worker.log", "survivor", pool="prefork")
        try:
            project = make_project(researcher, annotators, k=1, pool_depth=1)
            submit_judgement(claim_next_task(project, annotators[0]).pk, annotators[0], 1)
            # A job due in a minute: the worker receives it and holds it unacknowledged.
            compute_ground_truth.apply_async((project.pk,), countdown=60)
            wait_for(lambda: "received" in worker.log_text(), 30, "delivery", worker)

            server.kill()
            server.wait()
            deadline = time.monotonic() + 30
            while "Connection to broker lost" not in worker.log_text() and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(3)  # it retries, and must not stop
            assert worker.alive(), f"the worker stopped when Redis went away:\n{worker.log_text()}"
            assert "Unrecoverable error" not in worker.log_text()

            server = start_redis(port)
            forget_broker_connections(app)
            compute_ground_truth.delay(project.pk)
            written = GroundTruthSnapshot.objects.filter(project=project).exists
            wait_for(written, 60, "snapshot", worker)
            assert "Unrecoverable error" not in worker.log_text()
        finally:
            worker.stop()
            server.kill()
            server.wait()
