"""The one lifecycle of every job (evaluation.jobs.lifecycle): claimed once, finished once, failed with
a reason, cancelled from a page or the API (a running job stops at its next step), and recovered —
lost queued jobs sent again, stalled running ones restarted up to the limit, then failed saying why.
Each kind of job is registered; what each kind's worker does is tested with real processes in
tests/integration/test_job_faults.py."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from evaluation.collection.import_jobs import IMPORT_JOBS
from evaluation.ground_truth.jobs import GROUND_TRUTH_JOBS, request_ground_truth_job
from evaluation.jobs import broker, lifecycle
from evaluation.models import Evaluation, GroundTruthJob, TextEvaluation
from evaluation.scoring.jobs import EVALUATIONS
from evaluation.texts.jobs import TEXT_EVALUATIONS
from tests.annotation.factories import make_project
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(researcher, annotators):
    return make_project(researcher, annotators)


@pytest.fixture
def sent(monkeypatch):
    """Messages 'sent to the broker' (as with a worker, not the embedded runner), by task name."""
    from celery import current_app

    monkeypatch.setitem(current_app.conf, "task_always_eager", False)
    messages: list[tuple[str, tuple]] = []
    for kind in lifecycle.KINDS.values():
        task = kind.task()
        monkeypatch.setattr(
            task,
            "apply_async",
            lambda args, countdown=None, name=task.name: messages.append((name, tuple(args))),
        )
    return messages


def test_every_kind_of_job_is_registered_with_a_task_that_exists():
    assert set(lifecycle.KINDS) == {
        "ground-truth job",
        "evaluation",
        "text evaluation",
        "import job",
        "sampling simulation",
    }
    for kind in lifecycle.KINDS.values():
        assert kind.task().name == kind.task_name
        for name in kind.message_tasks:
            assert lifecycle.task_named(name).name == name


def test_a_job_is_claimed_once_finished_once_and_not_failed_after(project):
    job = GroundTruthJob.objects.create(project=project)
    assert lifecycle.claim(GROUND_TRUTH_JOBS, job.pk) and not lifecycle.claim(GROUND_TRUTH_JOBS, job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("running", 1) and job.heartbeat_at is not None
    lifecycle.progress(GROUND_TRUTH_JOBS, job.pk, "aggregation", 0.5)
    assert lifecycle.finish(GROUND_TRUTH_JOBS, job.pk, "unchanged")
    assert not lifecycle.finish(GROUND_TRUTH_JOBS, job.pk, "done")  # once
    assert not lifecycle.fail(GROUND_TRUTH_JOBS, job.pk, "too late")  # an ended job stays as it ended
    job.refresh_from_db()
    assert (job.status, job.progress, job.error) == ("unchanged", 1.0, "")


def test_a_cancelled_running_job_stops_at_its_next_step_and_a_cancelled_queued_one_reopens_the_window(
    project, django_capture_on_commit_callbacks
):
    running = GroundTruthJob.objects.create(project=project)
    lifecycle.claim(GROUND_TRUTH_JOBS, running.pk)
    assert lifecycle.cancel(GROUND_TRUTH_JOBS, running.pk, "owner")
    with pytest.raises(lifecycle.JobStopped):
        lifecycle.progress(GROUND_TRUTH_JOBS, running.pk, "writing", 0.9)
    running.refresh_from_db()
    assert (running.status, running.error) == ("cancelled", "cancelled by owner")
    assert not lifecycle.cancel(GROUND_TRUTH_JOBS, running.pk, "owner")  # ended already

    waiting = request_ground_truth_job(project.pk).job
    project.refresh_from_db()
    assert project.ground_truth_pending
    assert lifecycle.cancel(GROUND_TRUTH_JOBS, waiting.pk, "owner")
    project.refresh_from_db()
    assert not project.ground_truth_pending  # the next submission queues a new job
    assert request_ground_truth_job(project.pk).job.pk != waiting.pk


def test_recovery_restarts_a_stalled_job_until_the_limit_then_fails_it_saying_why(project, sent):
    stale = timezone.now() - timedelta(seconds=lifecycle.STALE_SECONDS + 1)
    job = GroundTruthJob.objects.create(
        project=project, status="running", stage="aggregation", heartbeat_at=stale, attempts=1
    )
    fresh = GroundTruthJob.objects.create(project=project, status="running", heartbeat_at=timezone.now())
    found = lifecycle.recover(GROUND_TRUTH_JOBS, waiting=set())
    assert (found.restarted, found.failed) == ([job.pk], [])
    job.refresh_from_db()
    assert job.status == "queued" and "its worker stopped answering (attempt 2)" in job.stage
    assert sent == [("evaluation.ground_truth.tasks.compute_ground_truth", (project.pk, job.pk))]
    assert GroundTruthJob.objects.get(pk=fresh.pk).status == "running"  # alive: left alone

    GroundTruthJob.objects.filter(pk=job.pk).update(
        status="running", heartbeat_at=stale, attempts=lifecycle.MAX_ATTEMPTS, stage="writing"
    )
    assert lifecycle.recover(GROUND_TRUTH_JOBS, waiting={job.pk}).failed == []  # a message waits for it
    assert lifecycle.recover(GROUND_TRUTH_JOBS, waiting=set()).failed == [job.pk]
    job.refresh_from_db()
    assert job.status == "failed" and f"stopped answering {lifecycle.MAX_ATTEMPTS} times" in job.error
    assert "it was at: writing" in job.error


def test_a_stalled_job_whose_parts_wait_in_the_broker_is_not_restarted(project):
    evaluation = Evaluation.objects.create(
        project=project,
        snapshot=None,
        external_qrels=project.external_qrels.create(name="r", judgements={}),
        signature="s",
        status="running",
        attempts=1,
        heartbeat_at=timezone.now() - timedelta(seconds=lifecycle.STALE_SECONDS + 1),
    )
    waiting = {"evaluation.scoring.tasks.score_evaluation_run": [(evaluation.pk, 7)]}
    assert lifecycle.waiting_ids(EVALUATIONS, waiting) == {evaluation.pk}
    assert lifecycle.recover_jobs(waiting)["evaluation"].restarted == []
    assert lifecycle.recover_jobs({})["evaluation"].restarted == [evaluation.pk]  # no part waits: lost


def test_without_a_broker_recovery_does_nothing(project):
    GroundTruthJob.objects.create(project=project, status="running", heartbeat_at=None, attempts=1)
    assert lifecycle.recover_jobs(None)["ground-truth job"] == lifecycle.Recovered()


def test_the_broker_reader_takes_the_task_and_arguments_of_a_celery_message():
    message = json.dumps(
        {
            "body": "W1s1XSwge30sIHt9XQ==",
            "headers": {"task": "evaluation.scoring.tasks.start_evaluation", "argsrepr": "(5,)", "id": "x"},
        }
    ).encode()
    assert broker._task_and_arguments(message) == ("evaluation.scoring.tasks.start_evaluation", (5,))
    assert broker._task_and_arguments(b"not json") == (None, ())


@pytest.mark.parametrize(
    ("name", "kind_of"),
    [("ground-truth-job-cancel-api", GROUND_TRUTH_JOBS), ("evaluation-cancel-api", EVALUATIONS),
     ("text-evaluation-cancel-api", TEXT_EVALUATIONS)],
)  # fmt: skip
def test_the_owner_cancels_a_job_by_the_api_and_an_ended_one_is_a_409(
    name, kind_of, project, researcher, outsider_researcher
):
    job = {
        GROUND_TRUTH_JOBS: lambda: GroundTruthJob.objects.create(project=project),
        EVALUATIONS: lambda: Evaluation.objects.create(
            project=project,
            external_qrels=project.external_qrels.create(name="r", judgements={}),
            signature="s",
        ),
        TEXT_EVALUATIONS: lambda: TextEvaluation.objects.create(project=project),
    }[kind_of]()
    url = reverse(name, args=[project.pk, job.pk])
    assert api(outsider_researcher).post(url).status_code == 404
    answer = api(researcher).post(url)
    assert answer.status_code == 200 and answer.json()["status"] == "cancelled"
    assert answer.json()["error"] == "cancelled by owner"
    again = api(researcher).post(url)
    assert (
        again.status_code == 409 and "only a queued or running job can be cancelled" in again.json()["detail"]
    )


def test_the_owner_cancels_a_job_from_its_page(client, project, researcher):
    job = GroundTruthJob.objects.create(project=project)
    client.force_login(researcher)
    page = client.get(reverse("ground-truth", args=[project.pk])).content.decode()
    cancel = reverse("ground-truth-job-cancel", args=[project.pk, job.pk])
    assert f'action="{cancel}"' in page
    followed = client.post(cancel, follow=True).content.decode()
    assert f"Ground-truth job {job.pk} is cancelled" in followed
    assert GroundTruthJob.objects.get(pk=job.pk).status == "cancelled"
    assert f'action="{cancel}"' not in followed  # an ended job offers no cancel


def test_an_import_job_is_cancelled_by_its_requester_only_and_keeps_no_body(researcher, outsider_researcher):
    from evaluation.models import ImportJob

    job = ImportJob.objects.create(
        kind="collection", requested_by=researcher, body=b"x" * 10, body_bytes=10, body_sha256="0" * 64
    )
    url = reverse("import-job-cancel-api", args=[job.pk])
    assert api(outsider_researcher).post(url).status_code == 404
    assert api(researcher).post(url).status_code == 200
    job.refresh_from_db()
    assert job.status == "cancelled" and bytes(job.body) == b""
    assert lifecycle.KINDS["import job"] is IMPORT_JOBS
