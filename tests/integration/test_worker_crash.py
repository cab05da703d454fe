"""Killing the worker mid-job and starting another still yields exactly one new snapshot with every
judgement counted, and the run ends done: the dead worker's heartbeat stops, recovery (what beat runs
every minute) queues the job again and sends it, and the rerun is idempotent."""

from __future__ import annotations

import re
import time

import pytest

from evaluation.ground_truth.jobs import SLOW_DOWN_FOR_TESTS, request_ground_truth_job
from evaluation.jobs import lifecycle
from evaluation.jobs.tasks import recover_lost_jobs
from evaluation.models import GroundTruthJob, GroundTruthSnapshot
from tests.groundtruth.builders import items, judge, label_project

pytestmark = pytest.mark.integration

# Seconds; production keeps the defaults (a heartbeat every 15 s, a job stalled after 90 s).
HEARTBEAT = "0.5"
STALE = 2.0


def wait_for(condition, seconds: float, worker, what: str):
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}:\n{worker.log_text()}"
        time.sleep(0.1)
    return value


def test_a_worker_killed_mid_job_leaves_one_snapshot_with_every_judgement_once_another_starts(
    start_celery_worker, researcher, annotators, settings, monkeypatch
):
    monkeypatch.setattr(lifecycle, "STALE_SECONDS", STALE)
    settings.GROUND_TRUTH_DEBOUNCE_SECONDS = 1
    project = label_project(researcher, annotators, items=40)
    for position, task in enumerate(items(project)):
        for index, annotator in enumerate(annotators):
            judge(task, annotator, (position * index + position) % 2)
    started = time.monotonic()
    # The first worker pauses after each stage (test-only), so it is surely mid-job when killed.
    doomed = start_celery_worker({SLOW_DOWN_FOR_TESTS: "1", "JOB_HEARTBEAT_SECONDS": HEARTBEAT})
    run = request_ground_truth_job(project.pk).job

    def mid_job():
        current = GroundTruthJob.objects.get(pk=run.pk)
        return current if current.stage.startswith("agreement") else None

    seen = wait_for(mid_job, 30, doomed, "the job to reach the agreement stage")
    assert seen.status == "running" and 0 < seen.progress < 1
    doomed.kill()
    assert GroundTruthJob.objects.get(pk=run.pk).status == "running"  # nobody told the database
    assert not GroundTruthSnapshot.objects.filter(project=project).exists()

    time.sleep(STALE + 0.5)  # no heartbeat since the kill
    assert recover_lost_jobs()["ground-truth job"]["restarted"] == [run.pk]
    survivor = start_celery_worker({"JOB_HEARTBEAT_SECONDS": HEARTBEAT})
    finished = wait_for(
        lambda: GroundTruthJob.objects.filter(pk=run.pk, status__in=["done", "unchanged", "failed"]).first(),
        40,
        survivor,
        "the redelivered job to finish",
    )
    assert finished.status == "done", finished.error
    assert finished.attempts == 2
    snapshot = GroundTruthSnapshot.objects.get(project=project)  # exactly one
    assert finished.snapshot_id == snapshot.pk and snapshot.version == 1
    assert snapshot.input_judgement_count == 40 * 3 and snapshot.labels.count() == 40
    assert len(re.findall(r"compute_ground_truth\[[^\]]+\] succeeded", survivor.log_text())) == 1
    assert time.monotonic() - started < 50  # the whole story, workers' start-up included
