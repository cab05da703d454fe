"""A burst of submissions shares one queued ground-truth run; a broker failure loses nothing."""

from __future__ import annotations

import pytest

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from evaluation.ground_truth.jobs import compute_ground_truth, request_ground_truth, request_ground_truth_job
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


def test_a_broker_failure_clears_the_flag_and_fails_the_run_so_the_next_submission_retries(
    researcher, annotators, monkeypatch, settings, django_capture_on_commit_callbacks
):
    monkeypatch.setitem(compute_ground_truth.app.conf, "task_always_eager", False)
    project = make_project(researcher, annotators)

    def broker_down(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(compute_ground_truth, "apply_async", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        request = request_ground_truth_job(project.pk)
    assert not Project.objects.get(pk=project.pk).ground_truth_pending
    request.job.refresh_from_db()
    assert request.job.status == GroundTruthJob.Status.FAILED
    assert "broker down" in request.job.error
    # The window is open again: the next submission queues a new run.
    assert request_ground_truth_job(project.pk).job.pk != request.job.pk


def test_a_job_the_broker_refused_is_queued_again_by_the_next_beat_tick_once_it_is_back(
    researcher, annotators, monkeypatch, django_capture_on_commit_callbacks
):
    """Redis down while judgements arrive: the job fails to queue (the judgements are stored). With
    Redis back and no further submission, the few-minute beat task queues it again, reusing the
    row, and a second tick sends nothing more."""
    from evaluation.ground_truth.jobs import resend_lost_ground_truth_jobs

    monkeypatch.setitem(compute_ground_truth.app.conf, "task_always_eager", False)
    project = make_project(researcher, annotators)
    sent = []

    def broker_down(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(compute_ground_truth, "apply_async", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        refused = request_ground_truth_job(project.pk).job
    assert resend_lost_ground_truth_jobs() == 0  # still down: the same row fails again, no new one
    assert GroundTruthJob.objects.filter(project=project).count() == 1

    monkeypatch.setattr(compute_ground_truth, "apply_async", lambda args, countdown: sent.append(args))
    assert resend_lost_ground_truth_jobs() == 1
    refused.refresh_from_db()
    assert refused.status == GroundTruthJob.Status.QUEUED and refused.error == ""
    assert sent == [(project.pk, refused.pk)]
    assert Project.objects.get(pk=project.pk).ground_truth_pending  # the window is the requeued job's
    assert resend_lost_ground_truth_jobs() == 0 and len(sent) == 1
    compute_ground_truth(project.pk, refused.pk)
    refused.refresh_from_db()
    assert (
        refused.status in {"done", "unchanged"}
        and not Project.objects.get(pk=project.pk).ground_truth_pending
    )
