"""The embedded default (no Redis, no worker): ground truth is computed beside the requests, never
inside one, and a burst of submissions still gives one new version, as with a worker."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Assignment, Judgement, JudgementRevision, Task
from evaluation.ground_truth import jobs
from evaluation.jobs import embedded
from evaluation.models import GroundTruthJob, GroundTruthSnapshot
from tests.groundtruth.builders import label_project


@pytest.fixture
def builds_by_thread(monkeypatch):
    """The thread of every snapshot build (the real build still runs)."""
    threads: list[threading.Thread] = []
    real = jobs.build_snapshot

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(jobs, "build_snapshot", recorded)
    return threads


def submit_in_a_row(client, project, annotator, count: int) -> None:
    client.force_login(annotator)
    client.post(reverse("claim", args=[project.pk]))
    for _ in range(count):
        lease = Assignment.objects.get(annotator=annotator, status=Assignment.Status.ACTIVE)
        response = client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": "1"})
        assert response.status_code == 302


@pytest.mark.django_db(transaction=True)
def test_fifty_submissions_in_a_row_write_at_most_two_versions_outside_every_request(
    client, researcher, annotators, settings, builds_by_thread
):
    settings.GROUND_TRUTH_EMBEDDED_RUNNER = "thread"
    # Longer than 50 submissions take here (about 3 s on 2 busy cores), so the burst shares one job;
    # a second one can only come from submissions made after the first job started.
    settings.GROUND_TRUTH_DEBOUNCE_SECONDS = 5
    project = label_project(researcher, annotators, items=60, assignments_per_task=1)

    submit_in_a_row(client, project, annotators[0], 50)
    assert not builds_by_thread, "a snapshot was built inside an annotator's request"
    assert embedded.wait_until_idle(timeout=120)

    snapshots = GroundTruthSnapshot.objects.filter(project=project)
    assert 1 <= snapshots.count() <= 2
    assert snapshots.order_by("-version").first().input_judgement_count == 50
    assert all(thread is not threading.main_thread() for thread in builds_by_thread)
    assert set(GroundTruthJob.objects.filter(project=project).values_list("status", flat=True)) <= {
        "done",
        "unchanged",
    }


def judged_project(researcher, annotators, judged: int):
    """A project with ``judged`` items already judged (stored directly), and more left to judge."""
    project = label_project(researcher, annotators, items=judged + 5, assignments_per_task=1)
    other = annotators[1]
    tasks = list(project.tasks.filter(kind=Task.Kind.ITEM).order_by("pk")[:judged])
    leases = Assignment.objects.bulk_create(
        Assignment(
            task=task, annotator=other, status=Assignment.Status.SUBMITTED, expires_at=project.created_at
        )
        for task in tasks
    )
    judgements = Judgement.objects.bulk_create(
        Judgement(project=project, task=task, annotator=other, assignment=lease, label=1, answer={"label": 1})
        for task, lease in zip(tasks, leases, strict=True)
    )
    JudgementRevision.objects.bulk_create(
        JudgementRevision(judgement=judgement, number=1, label=1, answer={"label": 1})
        for judgement in judgements
    )
    Task.objects.filter(pk__in=[task.pk for task in tasks]).update(completed=True, slots_taken=1)
    return project


def statements_of_one_submission(client, project, annotator) -> int:
    client.force_login(annotator)
    client.post(reverse("claim", args=[project.pk]))
    lease = Assignment.objects.get(
        annotator=annotator, task__project=project, status=Assignment.Status.ACTIVE
    )
    with CaptureQueriesContext(connection) as queries:
        client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": "0"})
    return len(queries)


@pytest.mark.django_db
def test_a_submission_does_the_same_work_in_a_small_and_a_large_project(
    client, researcher, annotators, django_capture_on_commit_callbacks
):
    """Its response time cannot grow with the project: the same statements, and no snapshot."""
    small = judged_project(researcher, annotators, judged=5)
    large = judged_project(researcher, annotators, judged=2000)
    with django_capture_on_commit_callbacks(execute=True):
        in_small = statements_of_one_submission(client, small, annotators[0])
        in_large = statements_of_one_submission(client, large, annotators[0])
    assert in_small == in_large
    assert not GroundTruthSnapshot.objects.exists()
    assert embedded.run_queued() == 2  # one job queued per project, to run beside the requests
