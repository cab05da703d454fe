"""A burst of 500 submissions on the real services gives a bounded number of ground-truth runs,
and the last snapshot counts every judgement."""

from __future__ import annotations

import re
import time

import pytest

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from evaluation.collection.flow import import_collection
from evaluation.ground_truth.jobs import request_ground_truth
from evaluation.models import GroundTruthSnapshot

pytestmark = pytest.mark.integration


def test_500_submissions_trigger_a_bounded_number_of_runs(
    celery_worker_process, researcher, annotators, settings
):
    settings.GROUND_TRUTH_DEBOUNCE_SECONDS = 1
    project = Project.objects.create(name="Burst", owner=researcher, assignments_per_task=2)
    project.annotators.set(annotators[:2])
    documents = [{"id": f"d{i}", "text": f"document {i}"} for i in range(250)]
    run = "".join(f"1 Q0 d{i} {i + 1} {1000 - i} burst\n" for i in range(250))
    import_collection(
        project, topics=[{"id": "1", "title": "t"}], documents=documents, runs=[run], pool_depth=250
    )

    started = time.monotonic()
    submitted = 0
    for annotator in annotators[:2]:
        while (assignment := claim_next_task(project, annotator)) is not None:
            submit_judgement(assignment.pk, annotator, submitted % 2)  # committed (autocommit) here
            request_ground_truth(project.pk)  # what the submit view does on commit
            submitted += 1
    burst_seconds = time.monotonic() - started
    assert submitted == 500

    deadline = time.monotonic() + 90
    while GroundTruthSnapshot.objects.filter(project=project, input_judgement_count=500).count() == 0:
        assert celery_worker_process.alive(), celery_worker_process.log_text()
        assert time.monotonic() < deadline, celery_worker_process.log_text()
        time.sleep(0.5)
    time.sleep(2)  # let any run still queued finish, so the count below is final
    runs = len(re.findall(r"compute_ground_truth\[[^\]]+\] succeeded", celery_worker_process.log_text()))
    # One run per debounce window of the burst, plus the one after it: far fewer than 500.
    assert 1 <= runs <= burst_seconds / settings.GROUND_TRUTH_DEBOUNCE_SECONDS + 3
    assert GroundTruthSnapshot.objects.filter(project=project).count() <= runs
