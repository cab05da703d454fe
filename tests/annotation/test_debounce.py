"""A burst of submissions shares one queued ground-truth run; a broker failure loses nothing."""

from __future__ import annotations

import pytest

from annotation.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from annotation.tasks import compute_ground_truth, request_ground_truth
from evaluation.models import GroundTruthSnapshot
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch):
    calls = []

    def record(args, countdown):
        calls.append((args, countdown))

    monkeypatch.setattr(compute_ground_truth, "apply_async", record)
    return calls


def test_only_the_first_request_of_a_burst_queues_a_run(researcher, annotators, queued, settings):
    settings.GROUND_TRUTH_DEBOUNCE_SECONDS = 7
    project = make_project(researcher, annotators)
    results = [request_ground_truth(project.pk) for _ in range(50)]
    assert results.count(True) == 1
    assert queued == [((project.pk,), 7)]


def test_a_run_that_starts_reopens_the_window_and_counts_every_judgement(researcher, annotators, queued):
    project = make_project(researcher, annotators)
    assignment = claim_next_task(project, annotators[0])
    submit_judgement(assignment.pk, annotators[0], 1)
    assert request_ground_truth(project.pk)
    compute_ground_truth(project.pk)  # the queued run starts: flag cleared, snapshot written
    assert not Project.objects.get(pk=project.pk).ground_truth_pending
    assert GroundTruthSnapshot.objects.get(project=project).input_judgement_count == 1
    assert request_ground_truth(project.pk)  # the next submission queues the next run
    assert len(queued) == 2


def test_a_broker_failure_clears_the_flag_so_the_next_submission_retries(researcher, annotators, monkeypatch):
    project = make_project(researcher, annotators)

    def broker_down(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(compute_ground_truth, "apply_async", broker_down)
    assert request_ground_truth(project.pk) is False
    assert not Project.objects.get(pk=project.pk).ground_truth_pending
