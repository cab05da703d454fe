"""Ground-truth runs: progress other connections can see while a job computes, no lock held while
it does, races between runs that end in one snapshot, and how a run records each way it ends."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from annotation.models import Project
from evaluation.ground_truth import jobs as tasks
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.jobs import GROUND_TRUTH_JOBS, JobProgress
from evaluation.ground_truth.tasks import compute_ground_truth
from evaluation.jobs import lifecycle
from evaluation.models import GroundTruthJob, GroundTruthSnapshot
from tests.groundtruth.builders import items, judge, label_project

WAIT = 20  # seconds; generous for a loaded machine, never reached when the code is right


class Thread(threading.Thread):
    """Runs ``target`` on its own database connection (closed at the end) and keeps its result."""

    def __init__(self, target):
        super().__init__(daemon=True)
        self.target, self.result, self.error = target, None, None

    def run(self):
        try:
            self.result = self.target()
        except BaseException as error:  # re-raised in the test thread by outcome()
            self.error = error
        finally:
            connection.close()

    def outcome(self):
        self.join(WAIT)
        assert not self.is_alive(), "the thread did not finish"
        if self.error is not None:
            raise self.error
        return self.result


def judged_project(owner, annotators, *, leave_last_open: bool = False) -> Project:
    """Eight items judged by three annotators; optionally the third has not judged the last yet."""
    project = label_project(owner, annotators, items=8)
    for position, task in enumerate(items(project)):
        for index, annotator in enumerate(annotators):
            if leave_last_open and position == 7 and index == 2:
                continue
            judge(task, annotator, (position + index) % 2)
    return project


def pause_at(prefix: str, reached: threading.Event, proceed: threading.Event):
    """A progress callback that stops at the first stage starting with ``prefix`` until told to go on."""

    def progress(stage: str, share: float) -> None:
        if stage.startswith(prefix) and not reached.is_set():
            reached.set()
            assert proceed.wait(WAIT)

    return progress


def stages(log: list):
    return lambda stage, share: log.append(stage)


@pytest.mark.django_db(transaction=True)
def test_progress_is_committed_as_the_job_goes_and_the_project_is_not_locked_meanwhile(
    postgres_required, researcher, annotators, monkeypatch
):
    project = judged_project(researcher, annotators)
    run = GroundTruthJob.objects.create(project=project)
    reached, proceed = threading.Event(), threading.Event()
    original = JobProgress.__call__

    def pausing(self, stage, share):
        original(self, stage, share)
        pause_at("aggregation", reached, proceed)(stage, share)

    monkeypatch.setattr(JobProgress, "__call__", pausing)
    job = Thread(lambda: compute_ground_truth(project.pk, run.pk))
    job.start()
    assert reached.wait(WAIT)
    seen = GroundTruthJob.objects.get(pk=run.pk)  # read on this test's own connection
    assert seen.status == GroundTruthJob.Status.RUNNING and seen.started_at is not None
    assert seen.stage == "aggregation: majority" and 0 < seen.progress < 1
    assert not GroundTruthSnapshot.objects.exists()
    with transaction.atomic():  # nothing holds the project row while the job computes
        Project.objects.select_for_update(nowait=True).get(pk=project.pk)
    proceed.set()
    assert job.outcome() == 1
    run.refresh_from_db()
    assert (run.status, run.progress, run.snapshot.version) == ("done", 1.0, 1)
    assert run.stage == "wrote version 1" and run.finished_at >= run.started_at


@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_on_the_same_judgements_write_one_snapshot(
    postgres_required, researcher, annotators
):
    project = judged_project(researcher, annotators)
    both_computed = threading.Barrier(2, timeout=WAIT)
    logs = ([], [])

    def run(log):
        def progress(stage, share):
            log.append(stage)
            if stage.startswith("writing"):
                both_computed.wait()  # neither writes before both have computed

        return lambda: build_snapshot(project.pk, progress=progress)

    first, second = Thread(run(logs[0])), Thread(run(logs[1]))
    first.start(), second.start()
    results = [first.outcome(), second.outcome()]
    written = [result for result in results if result is not None]
    assert len(written) == 1 and GroundTruthSnapshot.objects.get().pk == written[0].pk
    loser = logs[results.index(None)]
    assert loser[-1] == "unchanged: version 1 was written from the same inputs meanwhile"
    assert written[0].input_judgement_count == 24


@pytest.mark.django_db(transaction=True)
def test_a_run_that_read_older_judgements_never_writes_after_a_newer_one(
    postgres_required, researcher, annotators
):
    project = judged_project(researcher, annotators, leave_last_open=True)
    reached, proceed = threading.Event(), threading.Event()
    log: list = []
    slow = Thread(
        lambda: build_snapshot(
            project.pk, progress=lambda s, p: (log.append(s), pause_at("aggregation", reached, proceed)(s, p))
        )
    )
    slow.start()
    assert reached.wait(WAIT)  # the slow run has read 23 judgements
    judge(items(project)[7], annotators[2], 1)
    newer = build_snapshot(project.pk)  # a run that read all 24 writes first
    assert newer.version == 1 and newer.input_judgement_count == 24
    proceed.set()
    assert slow.outcome() is None
    assert log[-1] == "superseded: version 1 was built from newer inputs meanwhile"
    assert list(GroundTruthSnapshot.objects.values_list("version", "input_judgement_count")) == [(1, 24)]


@pytest.mark.django_db(transaction=True)
def test_overlapping_runs_write_their_versions_in_the_order_they_read(
    postgres_required, researcher, annotators
):
    project = judged_project(researcher, annotators, leave_last_open=True)
    gates = [(threading.Event(), threading.Event()) for _ in range(2)]
    older = Thread(lambda: build_snapshot(project.pk, progress=pause_at("writing", *gates[0])))
    older.start()
    assert gates[0][0].wait(WAIT)  # read 23 judgements, computed, about to write
    judge(items(project)[7], annotators[2], 1)
    newer = Thread(lambda: build_snapshot(project.pk, progress=pause_at("writing", *gates[1])))
    newer.start()
    assert gates[1][0].wait(WAIT)  # read 24
    gates[0][1].set()
    assert older.outcome().version == 1
    gates[1][1].set()
    assert newer.outcome().version == 2
    assert list(
        GroundTruthSnapshot.objects.order_by("version").values_list("version", "input_judgement_count")
    ) == [
        (1, 23),
        (2, 24),
    ]


@pytest.mark.django_db(transaction=True)
def test_two_jobs_at_once_end_one_done_and_one_unchanged_with_one_snapshot(
    postgres_required, researcher, annotators, monkeypatch
):
    project = judged_project(researcher, annotators)
    runs = [GroundTruthJob.objects.create(project=project) for _ in range(2)]
    both_computed = threading.Barrier(2, timeout=WAIT)
    original = JobProgress.__call__

    def meeting(self, stage, share):
        original(self, stage, share)
        if stage.startswith("writing"):
            both_computed.wait()

    monkeypatch.setattr(JobProgress, "__call__", meeting)
    jobs = [Thread(lambda run=run: compute_ground_truth(project.pk, run.pk)) for run in runs]
    for job in jobs:
        job.start()
    assert sorted([job.outcome() for job in jobs], key=str) == [1, None]
    statuses = sorted(GroundTruthJob.objects.values_list("status", flat=True))
    assert statuses == ["done", "unchanged"] and GroundTruthSnapshot.objects.count() == 1


# -- how a run ends (one connection is enough) ---------------------------------------------------


@pytest.mark.django_db
def test_a_run_delivered_again_after_it_finished_does_nothing(researcher, annotators):
    project = judged_project(researcher, annotators)
    run = GroundTruthJob.objects.create(project=project)
    assert compute_ground_truth(project.pk, run.pk) == 1
    assert compute_ground_truth(project.pk, run.pk) is None
    run.refresh_from_db()
    assert run.status == "done" and run.snapshot.version == 1


@pytest.mark.django_db
def test_a_run_its_worker_lost_is_queued_again_by_recovery_and_starts_over_saying_so(
    researcher, annotators, monkeypatch
):
    project = judged_project(researcher, annotators)
    stale = timezone.now() - timedelta(seconds=lifecycle.STALE_SECONDS + 1)
    run = GroundTruthJob.objects.create(
        project=project, status="running", stage="aggregation", progress=0.5, heartbeat_at=stale, attempts=1
    )
    assert compute_ground_truth(project.pk, run.pk) is None  # a redelivered message: not queued
    assert lifecycle.recover(GROUND_TRUTH_JOBS, waiting=set()).restarted == [run.pk]
    log: list = []
    original = JobProgress.__call__
    monkeypatch.setattr(JobProgress, "__call__", lambda self, s, p: (log.append(s), original(self, s, p)))
    assert compute_ground_truth(project.pk, run.pk) == 1
    run.refresh_from_db()
    assert run.status == "done" and run.attempts == 2 and log[0] == "loading judgements"


@pytest.mark.django_db
def test_unchanged_inputs_end_the_run_as_unchanged_with_the_reason(researcher, annotators):
    project = judged_project(researcher, annotators)
    build_snapshot(project.pk)
    run = GroundTruthJob.objects.create(project=project)
    assert compute_ground_truth(project.pk, run.pk) is None
    run.refresh_from_db()
    assert run.status == "unchanged" and run.snapshot is None
    assert run.stage == "unchanged: version 1 was built from the same inputs" and run.progress == 1.0


@pytest.mark.django_db
def test_a_database_error_leaves_the_run_queued_for_its_retry_and_any_other_error_fails_it(
    researcher, annotators, monkeypatch
):
    project = judged_project(researcher, annotators)
    run = GroundTruthJob.objects.create(project=project)

    def database_gone(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(tasks, "build_snapshot", database_gone)
    with pytest.raises(OperationalError):
        compute_ground_truth(project.pk, run.pk)
    run.refresh_from_db()
    assert run.status == "queued" and "server closed the connection" in run.error
    assert run.stage == "waiting to retry after an error"

    def broken(*args, **kwargs):
        raise ValueError("labels out of range")

    monkeypatch.setattr(tasks, "build_snapshot", broken)
    with pytest.raises(ValueError, match="labels out of range"):
        compute_ground_truth(project.pk, run.pk)
    run.refresh_from_db()
    assert run.status == "failed" and run.error == "ValueError: labels out of range"
    assert run.finished_at is not None


@pytest.mark.django_db
def test_a_job_sent_without_a_run_row_gets_one(researcher, annotators):
    project = judged_project(researcher, annotators)
    assert compute_ground_truth(project.pk) == 1
    assert GroundTruthJob.objects.get(project=project).status == "done"


@pytest.mark.django_db
def test_the_job_clears_the_debounce_flag_before_it_reads(researcher, annotators, monkeypatch):
    project = judged_project(researcher, annotators)
    Project.objects.filter(pk=project.pk).update(ground_truth_pending=True)
    seen = []
    monkeypatch.setattr(
        tasks,
        "build_snapshot",
        lambda pk, progress, still_wanted: seen.append(Project.objects.get(pk=pk).ground_truth_pending),
    )
    compute_ground_truth(project.pk)
    assert seen == [False]


@pytest.mark.django_db
def test_every_stage_is_reported_in_order(researcher, annotators):
    project = judged_project(researcher, annotators)
    log: list = []
    build_snapshot(project.pk, progress=stages(log))
    assert log == [
        "loading judgements",
        "agreement: Fleiss' kappa, Cohen's kappa of every pair, Krippendorff's alpha",
        "aggregation: majority",
        "annotator report",
        "writing version 1 (8 items)",
        "wrote version 1",
    ]
