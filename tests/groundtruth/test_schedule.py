"""The beat job requests one debounced run per project and is in the beat schedule; lost jobs are
sent again by the lifecycle's recovery, looked for every minute."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from cranfield.celery import app
from evaluation.ground_truth.jobs import GROUND_TRUTH_JOBS, prune_unchanged_jobs
from evaluation.ground_truth.tasks import compute_ground_truth, recompute_all_ground_truths
from evaluation.jobs import lifecycle
from evaluation.jobs.lifecycle import recover
from evaluation.jobs.tasks import recover_lost_jobs
from evaluation.models import GroundTruthJob
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch):
    monkeypatch.setitem(compute_ground_truth.app.conf, "task_always_eager", False)  # as with a broker
    calls = []
    monkeypatch.setattr(compute_ground_truth, "apply_async", lambda args, countdown: calls.append(args))
    return calls


def test_every_project_gets_one_job_and_a_second_tick_adds_none(
    researcher, annotators, queued, django_capture_on_commit_callbacks
):
    first = make_project(researcher, annotators)
    second = make_project(researcher, annotators)
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute_all_ground_truths() == 2
    runs = {run.project_id: run.pk for run in GroundTruthJob.objects.all()}
    assert sorted(queued) == sorted([(first.pk, runs[first.pk]), (second.pk, runs[second.pk])])
    # Both runs are still waiting: the next tick must not queue duplicates.
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute_all_ground_truths() == 0
    assert len(queued) == 2


def test_a_job_queued_with_no_message_in_the_broker_past_its_grace_is_sent_again(
    researcher, annotators, queued, settings, django_capture_on_commit_callbacks
):
    settings.GROUND_TRUTH_DEBOUNCE_SECONDS = 10
    project = make_project(researcher, annotators)
    with django_capture_on_commit_callbacks(execute=True):
        recompute_all_ground_truths()
    run = GroundTruthJob.objects.get(project=project)
    assert recover(GROUND_TRUTH_JOBS, waiting=set()).resent == []  # just sent: on its way
    grace = lifecycle.QUEUED_GRACE_SECONDS + settings.GROUND_TRUTH_DEBOUNCE_SECONDS + 1
    long_ago = timezone.now() - timedelta(seconds=grace)
    GroundTruthJob.objects.filter(pk=run.pk).update(created_at=long_ago, sent_at=long_ago)
    assert recover(GROUND_TRUTH_JOBS, waiting={run.pk}).resent == []  # its message still waits
    assert recover(GROUND_TRUTH_JOBS, waiting=set()).resent == [run.pk]  # the broker lost it
    assert queued == [(project.pk, run.pk), (project.pk, run.pk)]


def test_jobs_that_found_nothing_new_are_pruned_after_a_week_and_the_others_kept(researcher, annotators):
    project = make_project(researcher, annotators)
    long_ago = timezone.now() - timedelta(days=8)
    yesterday = timezone.now() - timedelta(days=1)
    for status in ("unchanged", "done", "failed"):
        GroundTruthJob.objects.create(project=project, status=status, finished_at=long_ago)
    GroundTruthJob.objects.create(project=project, status="unchanged", finished_at=yesterday)
    GroundTruthJob.objects.create(project=project, status="queued")
    assert prune_unchanged_jobs() == 1
    assert sorted(GroundTruthJob.objects.values_list("status", flat=True)) == [
        "done",
        "failed",
        "queued",
        "unchanged",
    ]


def test_the_beat_schedule_names_the_registered_job():
    entry = app.conf.beat_schedule["recompute-ground-truths"]
    assert entry["task"] == recompute_all_ground_truths.name
    assert entry["schedule"] > 0


def test_lost_and_stalled_jobs_are_looked_for_every_minute():
    entry = app.conf.beat_schedule["recover-lost-jobs"]
    assert entry["task"] == recover_lost_jobs.name
    assert 0 < entry["schedule"] <= 60
    assert lifecycle.STALE_SECONDS + entry["schedule"] <= 300  # a stalled job is found within 5 minutes
