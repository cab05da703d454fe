"""A burst of submissions shares one queued ground-truth run; a broker failure loses nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from evaluation.ground_truth.jobs import GROUND_TRUTH_JOBS, request_ground_truth, request_ground_truth_job
from evaluation.ground_truth.tasks import compute_ground_truth
from evaluation.jobs.lifecycle import recover
from evaluation.models import GroundTruthJob, GroundTruthSnapshot
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch):
    monkeypatch.setitem(compute_ground_truth.app.conf, "task_always_eager", False)  # as with a broker
    calls = []

    def record(args, countdown):
        calls.append((args, countdown))

    monkeypatch.setattr(compute_ground_truth, "apply_async", record)
    return calls


def test_only_the_first_request_of_a_burst_queues_a_run(
    researcher, annotators, queued, settings, django_capture_on_commit_callbacks
):
    settings.GROUND_TRUTH_DEBOUNCE_SECONDS = 7
    project = make_project(researcher, annotators)
    with django_capture_on_commit_callbacks(execute=True):
        results = [request_ground_truth_job(project.pk) for _ in range(50)]
    assert [result.queued for result in results].count(True) == 1
    run = GroundTruthJob.objects.get(project=project)
    assert run.status == GroundTruthJob.Status.QUEUED
    assert {result.job.pk for result in results} == {run.pk}  # everyone joins the waiting job
    assert queued == [((project.pk, run.pk), 7)]


def test_the_job_is_sent_only_once_the_run_row_is_committed(
    researcher, annotators, queued, django_capture_on_commit_callbacks
):
    project = make_project(researcher, annotators)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert request_ground_truth(project.pk)
    assert queued == [] and len(callbacks) == 1  # still inside the caller's transaction
    callbacks[0]()
    assert len(queued) == 1


def test_a_run_that_starts_reopens_the_window_and_counts_every_judgement(
    researcher, annotators, queued, django_capture_on_commit_callbacks
):
    project = make_project(researcher, annotators)
    assignment = claim_next_task(project, annotators[0])
    submit_judgement(assignment.pk, annotators[0], 1)
    with django_capture_on_commit_callbacks(execute=True):
        first = request_ground_truth_job(project.pk)
    (args, _countdown) = queued[0]
    compute_ground_truth(*args)  # the queued run starts: flag cleared, snapshot written
    assert not Project.objects.get(pk=project.pk).ground_truth_pending
    snapshot = GroundTruthSnapshot.objects.get(project=project)
    assert snapshot.input_judgement_count == 1
    first.job.refresh_from_db()
    assert (first.job.status, first.job.snapshot, first.job.progress) == ("done", snapshot, 1.0)
    with django_capture_on_commit_callbacks(execute=True):
        second = request_ground_truth_job(project.pk)  # the next submission queues the next run
    assert second.queued and second.job.pk != first.job.pk
    assert len(queued) == 2


def test_a_job_the_broker_refused_stays_queued_gathers_the_submissions_and_is_sent_once_it_is_back(
    researcher, annotators, monkeypatch, settings, django_capture_on_commit_callbacks
):
    """Redis down while judgements arrive: the job cannot be sent, so it stays queued and says so, and
    the submissions after it join it (the judgements are stored; nothing is lost). Recovery sends it
    once the broker answers; it is sent once, and computes the ground truth."""
    monkeypatch.setitem(compute_ground_truth.app.conf, "task_always_eager", False)
    project = make_project(researcher, annotators)
    sent = []

    def broker_down(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(compute_ground_truth, "apply_async", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        refused = request_ground_truth_job(project.pk).job
    refused.refresh_from_db()
    assert refused.status == GroundTruthJob.Status.QUEUED and "waiting for the broker" in refused.stage
    assert Project.objects.get(pk=project.pk).ground_truth_pending
    assert request_ground_truth_job(project.pk).job.pk == refused.pk  # the next submission joins it
    long_ago = timezone.now() - timedelta(seconds=600)
    GroundTruthJob.objects.filter(pk=refused.pk).update(created_at=long_ago)
    assert recover(GROUND_TRUTH_JOBS, waiting=set()).resent == []  # still down: still queued, no new row
    assert GroundTruthJob.objects.filter(project=project).count() == 1

    monkeypatch.setattr(compute_ground_truth, "apply_async", lambda args, countdown: sent.append(args))
    assert recover(GROUND_TRUTH_JOBS, waiting=set()).resent == [refused.pk]
    assert sent == [(project.pk, refused.pk)]
    assert recover(GROUND_TRUTH_JOBS, waiting={refused.pk}).resent == [] and len(sent) == 1
    compute_ground_truth(project.pk, refused.pk)
    refused.refresh_from_db()
    assert refused.status in {"done", "unchanged"} and refused.error == ""
    assert not Project.objects.get(pk=project.pk).ground_truth_pending
