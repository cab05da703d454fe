"""Fault tests of every kind of job (``evaluation.jobs.lifecycle``), with real processes.

Each test runs on a Redis of its own (a free port, so stopping or flushing it touches nothing else),
a real ``celery beat`` that sends recovery every second, and real worker processes whose jobs pause
after each step (``CRANFIELD_TEST_JOB_STEP_SECONDS``) so that a SIGKILL lands in a chosen stage. The
lifecycle's limits are lowered (``LIMITS``); production keeps the defaults (README, configuration).

Every job ends done (or failed with its reason, or cancelled), and what it stored equals what the
same job stores when nothing goes wrong: the same job run first in this process, without a broker.
"""

from __future__ import annotations

import io
import json
import random
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from django.urls import reverse

from annotation.models import Project
from evaluation.collection.flow import import_from_body
from evaluation.collection.import_jobs import IMPORT_JOBS, create_job
from evaluation.ground_truth.jobs import GROUND_TRUTH_JOBS, request_ground_truth_job
from evaluation.jobs import broker, embedded, lifecycle
from evaluation.models import Evaluation, GroundTruthSnapshot, ImportJob, OutputScore, TextEvaluation
from evaluation.scoring.jobs import EVALUATIONS, request_evaluation
from evaluation.texts.jobs import SCORE_PART_TASK, TEXT_EVALUATIONS, request_text_evaluation
from tests.conftest import missing
from tests.groundtruth.builders import LIKERT_CONFIG, items, judge, label_project
from tests.integration.conftest import WorkerProcess, sending_to, start_beat, start_worker
from tests.integration.test_redis_down import free_port, start_redis
from tests.scoring.test_pages_and_api import api
from tests.stored_runs import run_lines

pytestmark = pytest.mark.integration

STEP = 0.5  # seconds every job sleeps after each step
STALE = 3  # seconds without a heartbeat before recovery takes a running job back
LIMITS = {
    lifecycle.SLOW_DOWN_FOR_TESTS: str(STEP),
    "JOB_HEARTBEAT_SECONDS": "0.3",
    "JOB_STALE_SECONDS": str(STALE),
    "JOB_QUEUED_GRACE_SECONDS": "2",
    "JOB_RECOVER_SECONDS": "1",
    "JOB_MAX_ATTEMPTS": "2",
    "GROUND_TRUTH_DEBOUNCE_SECONDS": "1",
    "GROUND_TRUTH_SCHEDULE_SECONDS": "100000",
    "TEXT_OUTPUTS_PER_PART": "10",
}
# Seconds for a job to end once faults stop: recovery's limits, a worker's start and the job's steps.
ENDS_WITHIN = 60


class Services:
    """This test's own Redis, beat, and one worker at a time (each killed or stopped by the test)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.redis = start_redis(self.port)
        self.started: list[WorkerProcess] = []
        self.beat = start_beat(self.url, folder / "beat.log", LIMITS)
        self.worker = self.start_worker()

    def start_worker(self) -> WorkerProcess:
        number = len(self.started) + 1
        self.worker = start_worker(self.url, self.folder / f"worker{number}.log", f"faults{number}", LIMITS)
        self.started.append(self.worker)
        return self.worker

    def kill_worker(self) -> None:
        self.worker.kill()

    def stop_redis(self) -> None:
        self.redis.kill()
        self.redis.wait()

    def restart_redis(self) -> None:
        """On the same port, empty (no persistence): as a Redis restarted after a crash."""
        self.redis = start_redis(self.port)

    def logs(self) -> str:
        parts = [f"--- {path.name}\n{path.read_text()[-4000:]}" for path in sorted(self.folder.glob("*.log"))]
        return "\n".join(parts)

    def stop(self) -> None:
        for process in [*self.started, self.beat]:
            if process.alive():
                process.stop()
        self.redis.kill()
        self.redis.wait()


@pytest.fixture
def services(postgres_required, transactional_db, settings, tmp_path):
    """Real beat and worker processes on a Redis of this test's own; this process sends to it too."""
    if shutil.which("redis-server") is None:
        missing("these tests start their own redis-server, which is not installed")
    from cranfield.celery import app

    settings.GROUND_TRUTH_DEBOUNCE_SECONDS = 1
    settings.TEXT_OUTPUTS_PER_PART = int(LIMITS["TEXT_OUTPUTS_PER_PART"])
    started = Services(tmp_path)
    try:
        with sending_to(app, started.url):
            yield started
    finally:
        started.stop()


def without_a_broker(request: Callable[[], Any]) -> Any:
    """Run a job as the embedded default does, in this process with no broker and no fault: the
    result every faulted run must equal."""
    from cranfield.celery import app

    app.conf.task_always_eager = True
    try:
        job = request()
        embedded.run_queued()
    finally:
        app.conf.task_always_eager = False
    return job


# -- waiting and killing --------------------------------------------------------------------------


def row(kind: lifecycle.JobKind, job_id: int) -> Any:
    return kind.rows().get(pk=job_id)


def reach(services: Services, kind: lifecycle.JobKind, job_id: int, stage: str, attempt: int = 1) -> Any:
    """Wait until the job's ``attempt`` is running in a stage that starts with ``stage``."""
    deadline = time.monotonic() + ENDS_WITHIN
    while True:
        current = row(kind, job_id)
        running = (current.status, current.attempts) == (lifecycle.RUNNING, attempt)
        if running and current.stage.startswith(stage):
            return current
        assert current.status in lifecycle.LIVE, f"{kind.name} ended ({current.status}: {current.error}) "
        assert time.monotonic() < deadline, f"{kind.name} never reached {stage!r}:\n{services.logs()}"
        time.sleep(0.03)


def ended(services: Services, kind: lifecycle.JobKind, job_id: int) -> Any:
    deadline = time.monotonic() + ENDS_WITHIN
    while (current := row(kind, job_id)).status in lifecycle.LIVE:
        assert time.monotonic() < deadline, (
            f"{kind.name} {job_id} still {current.status} at {current.stage!r}:\n{services.logs()}"
        )
        time.sleep(0.1)
    return current


def kill_in(services: Services, kind: lifecycle.JobKind, job_id: int, stage: str, attempt: int = 1) -> Any:
    """SIGKILL the worker while the job's ``attempt`` is in ``stage``, start another, and wait for the
    job to end; nobody tells the database, so only the stopped heartbeat and beat's recovery bring
    it back."""
    reach(services, kind, job_id, stage, attempt)
    services.kill_worker()
    assert row(kind, job_id).status == lifecycle.RUNNING
    services.start_worker()
    return ended(services, kind, job_id)


def ready_client(researcher) -> Any:
    """The researcher's API client, its token made and its first request answered, so that a cancel
    lands within a step's pause."""
    client = api(researcher)
    assert client.get(reverse("project-list")).status_code == 200
    return client


def assert_done_after_one_kill(job: Any) -> None:
    assert (job.status, job.attempts, job.error) == ("done", 2, ""), job.error


# -- what each kind stores ------------------------------------------------------------------------

WORDS = [
    "flow",
    "shock",
    "wing",
    "boundary",
    "layer",
    "heat",
    "transfer",
    "pressure",
    "drag",
    "nozzle",
    "plate",
    "cone",
]


def collection_body(seed: int = 7, topics: int = 3, documents: int = 24, runs: int = 4) -> dict:
    rng = random.Random(seed)
    lines = [
        f"{topic} Q0 d{doc} {rank} {100 - rank} run{number}"
        for number in range(runs)
        for topic in range(1, topics + 1)
        for rank, doc in enumerate(rng.sample(range(documents), 8), start=1)
    ]
    return {
        "topics": [{"id": str(t), "title": " ".join(rng.sample(WORDS, 3))} for t in range(1, topics + 1)],
        "documents": [{"id": f"d{i}", "text": " ".join(rng.choices(WORDS, k=20))} for i in range(documents)],
        "runs": ["\n".join(line for line in lines if line.endswith(f"run{n}")) for n in range(runs)],
        "pool_depth": 3,
    }


def relevance_campaign(researcher, annotators) -> tuple[Project, Any]:
    """A project of 3 topics, 24 documents and 4 runs, with official qrels to score the runs against."""
    project = Project.objects.create(name="Faults", owner=researcher)
    project.annotators.set(annotators)
    import_from_body(project, collection_body())
    rng = random.Random(3)
    judgements = {str(t): {f"d{i}": int(rng.random() < 0.4) for i in range(24)} for t in range(1, 4)}
    official = project.external_qrels.create(
        name="official",
        judgements=judgements,
        judged_count=72,
        relevant_count=sum(v for topic in judgements.values() for v in topic.values()),
    )
    return project, official


def scores_of(evaluation: Evaluation) -> dict:
    evaluation.refresh_from_db()
    runs = {
        score.run.tag: (score.overall, score.per_topic, score.checks)
        for score in evaluation.scores.select_related("run")
    }
    return {"runs": runs, "checks": evaluation.checks, "run_count": evaluation.run_count}


def judged_project(researcher, annotators) -> Project:
    """30 items judged by three annotators who disagree in a fixed pattern."""
    project = label_project(researcher, annotators, items=30)
    for position, task in enumerate(items(project)):
        for index, annotator in enumerate(annotators):
            judge(task, annotator, int((position * (index + 2) + index) % 3 != 0))
    return project


def ground_truth_of(project: Project) -> dict:
    snapshot = GroundTruthSnapshot.objects.get(project=project)  # exactly one
    labels = {
        label.task.document.external_id: (label.label, label.confidence, label.judgement_count, label.details)
        for label in snapshot.labels.select_related("task__document")
    }
    return {"version": snapshot.version, "labels": labels, "agreement": snapshot.agreement}


def text_project(researcher, annotators) -> Project:
    """3 systems × 10 inputs (three parts of 10 outputs), two references per input."""
    rng = random.Random(11)
    project = Project.objects.create(
        name="Summaries", owner=researcher, task_type="likert", config=LIKERT_CONFIG, assignments_per_task=2
    )
    project.annotators.set(annotators)
    references = {f"in{i}": [" ".join(rng.choices(WORDS, k=14)) for _ in range(2)] for i in range(10)}
    documents, outputs = [], []
    for system in ("lead", "abstractive", "random"):
        for input_id, texts in references.items():
            words = texts[0].split()
            text = " ".join(word if rng.random() < 0.7 else rng.choice(WORDS) for word in words)
            documents.append({"id": f"{system}-{input_id}", "text": text})
            outputs.append({"document": f"{system}-{input_id}", "system": system, "input": input_id})
    import_from_body(
        project,
        {
            "documents": documents,
            "items": outputs,
            "references": [{"input": i, "text": t} for i, texts in references.items() for t in texts],
        },
    )
    return project


def text_scores_of(evaluation: TextEvaluation) -> dict:
    evaluation.refresh_from_db()
    outputs = {
        (row.system_id, row.input_id): row.scores for row in OutputScore.objects.filter(evaluation=evaluation)
    }
    fields = ("per_system", "signatures", "output_count", "unscored", "part_count")
    return {"outputs": outputs, **{name: getattr(evaluation, name) for name in fields}}


def collection_of(project: Project) -> dict:
    return {
        "topics": sorted(project.topics.values_list("external_id", "title")),
        "documents": sorted(project.documents.values_list("external_id", "text")),
        "runs": runs_by_tag(project),
        "tasks": sorted(project.tasks.values_list("topic__external_id", "document__external_id")),
    }


def runs_by_tag(project: Project) -> dict[str, list[tuple]]:
    """Each run's lines (topic, document, rank, score), by its tag."""
    runs: dict[str, list[tuple]] = {}
    for tag, *line in run_lines(project=project):
        runs.setdefault(tag, []).append(tuple(line))
    return runs


def import_job(researcher, project: Project) -> ImportJob:
    body = io.BytesIO(json.dumps(collection_body(seed=5)).encode())
    return create_job(ImportJob.Kind.COLLECTION, researcher, project, body, gzipped=False)


# -- the tests ------------------------------------------------------------------------------------

GROUND_TRUTH_STAGES = ("loading judgements", "agreement", "aggregation", "annotator report", "writing")


def test_a_ground_truth_job_killed_in_each_stage_ends_done_with_what_a_run_without_faults_writes(
    services, researcher, annotators
):
    clean = judged_project(researcher, annotators)
    without_a_broker(lambda: request_ground_truth_job(clean.pk))
    expected = ground_truth_of(clean)
    assert len(expected["labels"]) == 30

    for stage in GROUND_TRUTH_STAGES:
        project = judged_project(researcher, annotators)
        job = kill_in(services, GROUND_TRUTH_JOBS, request_ground_truth_job(project.pk).job.pk, stage)
        assert_done_after_one_kill(job)
        assert ground_truth_of(project) == expected, stage

    # Cancelled from the API while it is about to write: no snapshot.
    project = judged_project(researcher, annotators)
    client = ready_client(researcher)
    job_id = request_ground_truth_job(project.pk).job.pk
    reach(services, GROUND_TRUTH_JOBS, job_id, "writing")
    response = client.post(reverse("ground-truth-job-cancel-api", args=[project.pk, job_id]))
    assert response.status_code == 200 and response.json()["status"] == "cancelled", response.content
    assert ended(services, GROUND_TRUTH_JOBS, job_id).status == "cancelled"
    time.sleep(2 * STEP)
    assert not GroundTruthSnapshot.objects.filter(project=project).exists()

    # Killed as often as the limit allows (JOB_MAX_ATTEMPTS = 2): failed, saying why and where.
    project = judged_project(researcher, annotators)
    job_id = request_ground_truth_job(project.pk).job.pk
    reach(services, GROUND_TRUTH_JOBS, job_id, "aggregation")
    services.kill_worker()
    services.start_worker()
    failed = kill_in(services, GROUND_TRUTH_JOBS, job_id, "aggregation", attempt=2)
    assert failed.status == "failed" and failed.attempts == 2
    assert "stopped answering 2 times" in failed.error and "it was at: aggregation" in failed.error
    assert not GroundTruthSnapshot.objects.filter(project=project).exists()
    # Requested again, it runs afresh.
    again = ended(services, GROUND_TRUTH_JOBS, request_ground_truth_job(project.pk).job.pk)
    assert (again.status, again.attempts) == ("done", 1)
    assert ground_truth_of(project) == expected


def test_an_evaluation_killed_before_its_runs_are_sent_between_runs_and_while_checking_scores_them_once(
    services, researcher, annotators
):
    project, official = relevance_campaign(researcher, annotators)
    baseline = without_a_broker(lambda: request_evaluation(project, external_qrels=official))
    expected = scores_of(baseline)
    assert baseline.status == "done" and len(expected["runs"]) == 4

    # Killed before its runs are sent (or in the first run, before it is stored), then while it
    # scores the second (or just after the first was stored: its other runs wait in Redis, and a
    # second worker finishes the job without recovery), then while it checks every run's score.
    for stage, attempts in (("scoring 4 runs", {2}), ("scored 1 of 4 runs", {1, 2}), ("checking", {2})):
        evaluation = request_evaluation(project, external_qrels=official)
        assert evaluation.pk != baseline.pk
        job = kill_in(services, EVALUATIONS, evaluation.pk, stage)
        assert (job.status, job.error) == ("done", "") and job.attempts in attempts, (stage, job.attempts)
        assert scores_of(job) == expected, stage

    # Cancelled from the API while a real worker scores it: it stops at its next step and stores
    # nothing more; the worker goes on to the next job.
    client = ready_client(researcher)
    evaluation = request_evaluation(project, external_qrels=official)
    reach(services, EVALUATIONS, evaluation.pk, "scored 1 of 4 runs")
    response = client.post(reverse("evaluation-cancel-api", args=[project.pk, evaluation.pk]))
    assert response.status_code == 200 and response.json()["status"] == "cancelled", response.content
    stored = evaluation.scores.count()
    cancelled = ended(services, EVALUATIONS, evaluation.pk)
    time.sleep(3 * STEP)  # the parts still queued are taken and do nothing
    assert (cancelled.status, cancelled.error) == ("cancelled", f"cancelled by {researcher.username}")
    assert evaluation.scores.count() == stored < 4
    after = ended(services, EVALUATIONS, request_evaluation(project, external_qrels=official).pk)
    assert after.status == "done" and scores_of(after) == expected


def test_a_text_evaluation_killed_before_it_splits_between_parts_or_whose_queued_parts_redis_lost_ends_done(
    services, researcher, annotators
):
    from cranfield.celery import app

    project = text_project(researcher, annotators)
    baseline = without_a_broker(lambda: request_text_evaluation(project))
    expected = text_scores_of(baseline)
    assert baseline.status == "done" and expected["part_count"] == 3 and len(expected["outputs"]) == 30

    # Killed before it splits into parts, then while it scores the second part (the first stored).
    # Either way the worker may die between two messages, its parts already queued and none taken:
    # the next worker then finishes the job from the queue in its first attempt (the suite's full
    # run met this once under load); otherwise recovery restarts it. Both end done, scored alike.
    for stage in ("scoring 30 outputs", "scored 1 of 3 parts"):
        evaluation = request_text_evaluation(project)
        job = kill_in(services, TEXT_EVALUATIONS, evaluation.pk, stage)
        assert (job.status, job.error) == ("done", "") and job.attempts in (1, 2), (stage, job.attempts)
        assert text_scores_of(job) == expected, stage

    # Redis loses the queued parts (FLUSHALL) while the worker scores the first: the worker lives on,
    # the job's heartbeat stops with its last part, and recovery starts the job afresh.
    evaluation = request_text_evaluation(project)
    deadline = time.monotonic() + ENDS_WITHIN
    while SCORE_PART_TASK not in (broker.waiting_messages(app) or {}):
        assert time.monotonic() < deadline, f"no part was ever queued:\n{services.logs()}"
        time.sleep(0.02)
    redis.Redis.from_url(services.url).flushall()
    job = ended(services, TEXT_EVALUATIONS, evaluation.pk)
    assert_done_after_one_kill(job)
    assert services.worker.alive()
    assert text_scores_of(job) == expected


def test_an_import_job_killed_while_checking_and_storing_imports_everything_once(
    services, researcher, annotators
):
    clean = Project.objects.create(name="Clean import", owner=researcher)
    without_a_broker(lambda: import_job(researcher, clean))
    expected = collection_of(clean)
    assert len(expected["documents"]) == 24 and len(expected["runs"]) == 4

    project = Project.objects.create(name="Faulted import", owner=researcher)
    job = kill_in(services, IMPORT_JOBS, import_job(researcher, project).pk, "checking and storing")
    assert_done_after_one_kill(job)
    assert collection_of(project) == expected
    assert job.summary == ImportJob.objects.get(project=clean).summary and not job.body

    # Cancelled from the API while it waits to store: nothing is imported, the body is dropped.
    cancelled_project = Project.objects.create(name="Cancelled import", owner=researcher)
    client = ready_client(researcher)
    job = import_job(researcher, cancelled_project)
    reach(services, IMPORT_JOBS, job.pk, "checking and storing")
    response = client.post(reverse("import-job-cancel-api", args=[job.pk]))
    assert response.status_code == 200 and response.json()["status"] == "cancelled", response.content
    cancelled = ended(services, IMPORT_JOBS, job.pk)
    time.sleep(2 * STEP)
    assert cancelled.status == "cancelled" and not cancelled.body
    assert collection_of(cancelled_project) == {"topics": [], "documents": [], "runs": {}, "tasks": []}


REDIS_DOWN_SECONDS = 60


def test_with_redis_stopped_for_a_minute_every_job_ends_done_with_what_a_run_without_faults_stores(
    services, researcher, annotators
):
    """An evaluation running with its runs queued when Redis stops (they are lost: it restarts
    empty), and a ground truth, a text evaluation and an import requested while it is down (their
    messages cannot be sent): all end done once it is back, equal to runs without faults."""
    project, official = relevance_campaign(researcher, annotators)
    baseline = without_a_broker(lambda: request_evaluation(project, external_qrels=official))
    expected_scores = scores_of(baseline)
    clean = judged_project(researcher, annotators)
    without_a_broker(lambda: request_ground_truth_job(clean.pk))
    expected_truth = ground_truth_of(clean)
    texts = text_project(researcher, annotators)
    expected_texts = text_scores_of(without_a_broker(lambda: request_text_evaluation(texts)))
    clean_import = Project.objects.create(name="Clean import", owner=researcher)
    without_a_broker(lambda: import_job(researcher, clean_import))
    expected_collection = collection_of(clean_import)

    evaluation = request_evaluation(project, external_qrels=official)
    reach(services, EVALUATIONS, evaluation.pk, "scored 1 of 4 runs")
    services.stop_redis()
    stopped = time.monotonic()
    judged = judged_project(researcher, annotators)
    truth_job = request_ground_truth_job(judged.pk).job
    text_job = request_text_evaluation(texts)
    target = Project.objects.create(name="Import during the outage", owner=researcher)
    imported = import_job(researcher, target)
    for kind, job_id in ((GROUND_TRUTH_JOBS, truth_job.pk), (TEXT_EVALUATIONS, text_job.pk)):
        waiting = row(kind, job_id)
        assert waiting.status == "queued" and "waiting for the broker" in waiting.stage, waiting.stage
    time.sleep(max(0.0, REDIS_DOWN_SECONDS - (time.monotonic() - stopped)))
    assert row(EVALUATIONS, evaluation.pk).status == "running"  # its runs went with Redis
    services.restart_redis()

    assert scores_of(ended(services, EVALUATIONS, evaluation.pk)) == expected_scores
    assert ended(services, GROUND_TRUTH_JOBS, truth_job.pk).status == "done"
    assert ground_truth_of(judged) == expected_truth
    assert text_scores_of(ended(services, TEXT_EVALUATIONS, text_job.pk)) == expected_texts
    assert ended(services, IMPORT_JOBS, imported.pk).status == "done"
    assert collection_of(target) == expected_collection
    assert services.worker.alive() and services.beat.alive(), services.logs()
