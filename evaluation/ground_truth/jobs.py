"""The ground-truth job: requested (debounced), then the one lifecycle of every job
(``evaluation.jobs.lifecycle``): queued, running, done, unchanged, failed or cancelled.

Every job has a ``GroundTruthJob`` row saying whether it is queued, running (with its stage,
progress and heartbeat), done, unchanged, failed or cancelled, so pages and the API can show it. The
Celery task is a thin
shell around ``build.build_snapshot``. With a worker (Redis) the job goes to the broker; with the
embedded default (no worker) it runs on a background thread of the web process after the same
debounce delay (``embedded``), never inside an annotator's request.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import OperationalError, transaction
from django.utils import timezone

from annotation.models import Project
from evaluation.ground_truth.build import build_snapshot
from evaluation.jobs import lifecycle
from evaluation.models import GroundTruthJob
from evaluation.signals import announce_snapshot_written

logger = logging.getLogger(__name__)

# Jobs that found nothing new are kept this long, for the jobs list; jobs that wrote a snapshot
# or failed are kept for good (they are the history).
UNCHANGED_JOBS_KEPT = timedelta(days=7)

# Test-only: seconds to sleep after each progress step, so that a test can kill a worker mid-job.
SLOW_DOWN_FOR_TESTS = lifecycle.SLOW_DOWN_FOR_TESTS


@dataclass(frozen=True)
class JobRequest:
    """The outcome of asking for a ground-truth job.

    ``job`` is the job that will count the caller's judgements: the one this call queued, or the
    one already waiting (None only if none is found, e.g. the project does not exist).
    """

    job: GroundTruthJob | None
    queued: bool


def waiting_job(project_id: int) -> GroundTruthJob | None:
    """The project's newest job that has not started yet."""
    return (
        GroundTruthJob.objects.filter(project_id=project_id, status=GroundTruthJob.Status.QUEUED)
        .order_by("-created_at", "-id")
        .first()
    )


def request_ground_truth_job(project_id: int, *, find_waiting: bool = True) -> JobRequest:
    """Queue a ground-truth job unless one is already waiting; either way, return that job.

    Debounce rule: the first request after a job has started flips ``ground_truth_pending`` with
    a conditional UPDATE and, in the same transaction, creates a queued ``GroundTruthJob``; the job
    is sent ``GROUND_TRUTH_DEBOUNCE_SECONDS`` later. Every request until that job starts finds the
    flag set and joins the waiting job. So a burst of N submissions over T seconds gives at most
    about T / debounce + 1 jobs, and the last submission is always counted (the job clears the
    flag before it reads the judgements).

    The job is sent once its row is committed: at once in autocommit mode (call this after
    the judgement is committed, e.g. from ``transaction.on_commit``), or when the caller's
    transaction commits.
    """
    with transaction.atomic():
        flipped = Project.objects.filter(pk=project_id, ground_truth_pending=False).update(
            ground_truth_pending=True
        )
        if not flipped:  # a job is already waiting; a submission needs no more than that
            return JobRequest(waiting_job(project_id) if find_waiting else None, queued=False)
        job = GroundTruthJob.objects.create(
            project_id=project_id, stage="queued: waiting for more judgements before it starts"
        )
    sent: list[bool] = []
    transaction.on_commit(lambda: sent.append(send_job(job)))
    return JobRequest(job, queued=sent[0] if sent else True)


def request_ground_truth(project_id: int) -> bool:
    """Queue a ground-truth job unless one is already waiting; True if this call queued it."""
    return request_ground_truth_job(project_id, find_waiting=False).queued


def send_job(job: GroundTruthJob) -> bool:
    """Send a queued job to start after the debounce delay (``evaluation.jobs.lifecycle``); if the
    broker cannot be reached the job stays queued, and submissions keep joining it, until recovery
    sends it once the broker is back: no judgement's ground truth is lost."""
    return lifecycle.send(GROUND_TRUTH_JOBS, job)


class JobProgress:
    """Progress callback that writes the stage and share done to the job row as it goes (each its own
    autocommitted UPDATE, seen by other connections while the job runs); stops a job cancelled
    meanwhile (``lifecycle.JobStopped``)."""

    def __init__(self, job_id: int):
        self.job_id = job_id

    def __call__(self, stage: str, share: float) -> None:
        lifecycle.progress(GROUND_TRUTH_JOBS, self.job_id, stage, share)


def start_job(project_id: int, job_id: int | None) -> GroundTruthJob | None:
    """Claim the job (creating a running row for a job sent without one) and reopen the debounce window.

    Returns None if there is nothing to do: the project is gone, or the job is not queued (finished,
    cancelled, or taken by another delivery of the same message).
    """
    with transaction.atomic():
        # Submissions from now on may not be in what this job reads: they must queue a new job.
        if not Project.objects.filter(pk=project_id).update(ground_truth_pending=False):
            return None
        if job_id is None:
            now = timezone.now()
            return GroundTruthJob.objects.create(
                project_id=project_id,
                status=GroundTruthJob.Status.RUNNING,
                stage="starting",
                started_at=now,
                heartbeat_at=now,
                attempts=1,
            )
        if not lifecycle.claim(GROUND_TRUTH_JOBS, job_id, progress=0.0, error=""):
            return None
    job = GroundTruthJob.objects.get(pk=job_id)
    if job.attempts > 1:
        GroundTruthJob.objects.filter(pk=job_id).update(stage="restarted: the worker running it was lost")
        job.stage = "restarted: the worker running it was lost"
    return job


def compute(project_id: int, job_id: int | None = None, *, last_try: bool = True) -> int | None:
    """Recompute the project's ground truth (the task ``tasks.compute_ground_truth``); returns the new
    snapshot's version, or None if unchanged or not run.

    Idempotent and safe to run twice at once (see ``build_snapshot``): a redelivery after a worker
    crash, or two jobs overlapping, give one snapshot per distinct set of inputs. A database error
    puts the job back in the queue for the task's retry (failed on the ``last_try``).
    """
    job = start_job(project_id, job_id)
    if job is None:
        return None
    try:
        with lifecycle.running(GROUND_TRUTH_JOBS, job.pk):
            snapshot = build_snapshot(
                project_id,
                progress=JobProgress(job.pk),
                still_wanted=lambda: lifecycle.ensure_running(GROUND_TRUTH_JOBS, job.pk),
            )
    except lifecycle.JobStopped:
        return None
    except Exception as error:
        reason = f"{type(error).__name__}: {error}"
        try:
            if isinstance(error, OperationalError) and not last_try:
                lifecycle.requeue(GROUND_TRUTH_JOBS, job.pk, "waiting to retry after an error", reason)
            else:
                lifecycle.fail(GROUND_TRUTH_JOBS, job.pk, reason)
        except Exception:  # the database itself may be what failed; the raise below is what matters
            logger.exception("could not record the failure of ground-truth job %s", job.pk)
        raise
    status = GroundTruthJob.Status.DONE if snapshot else GroundTruthJob.Status.UNCHANGED
    stage = GroundTruthJob.objects.values_list("stage", flat=True).get(pk=job.pk)
    lifecycle.finish(GROUND_TRUTH_JOBS, job.pk, status, snapshot=snapshot, stage=stage)
    if snapshot:
        announce_snapshot_written(snapshot.pk)  # scoring listens: the runs are scored against it
    return snapshot.version if snapshot else None


def reopen_window(job: GroundTruthJob) -> None:
    """A queued job that ended without running (cancelled, failed) no longer holds its project's
    debounce window: the next submission queues a new job."""
    if not GroundTruthJob.objects.filter(
        project_id=job.project_id, status=GroundTruthJob.Status.QUEUED
    ).exists():
        Project.objects.filter(pk=job.project_id).update(ground_truth_pending=False)


GROUND_TRUTH_JOBS = lifecycle.register(
    lifecycle.JobKind(
        "ground-truth job",
        GroundTruthJob,
        "evaluation.ground_truth.tasks.compute_ground_truth",
        arguments=lambda job: (job.project_id, job.pk),
        id_position=1,
        countdown=lambda: float(settings.GROUND_TRUTH_DEBOUNCE_SECONDS),
        done_statuses=(GroundTruthJob.Status.DONE, GroundTruthJob.Status.UNCHANGED),
        on_end=reopen_window,
    )
)


def prune_unchanged_jobs() -> int:
    """Delete jobs that found nothing new and ended more than ``UNCHANGED_JOBS_KEPT`` ago.

    The hourly schedule adds one such job per idle project every hour; nothing refers to them.
    """
    old = GroundTruthJob.objects.filter(
        status=GroundTruthJob.Status.UNCHANGED, finished_at__lt=timezone.now() - UNCHANGED_JOBS_KEPT
    )
    return old.delete()[0]


def recompute_all() -> int:
    """The hourly beat job (``tasks.recompute_all_ground_truths``): request a ground-truth job for
    every project; returns how many jobs were queued.

    Goes through ``request_ground_truth``, so a project that already has a job waiting gets no
    second one, and a project whose judgements did not change gets a job that writes nothing.
    Old jobs that found nothing new are deleted (``prune_unchanged_jobs``); lost and stalled jobs are
    recovery's (``evaluation.jobs.tasks.recover_lost_jobs``).
    """
    queued = 0
    for project_id in Project.objects.values_list("pk", flat=True).iterator():
        queued += request_ground_truth(project_id)
    prune_unchanged_jobs()
    return queued


def on_judgements_changed(sender, project_id: int, **kwargs) -> None:
    """Receiver of ``annotation.signals.judgements_changed``: a debounced ground-truth job."""
    request_ground_truth(project_id)


def on_prior_changed(sender, project_id: int, **kwargs) -> None:
    """Receiver of ``evaluation.signals.prior_changed``: the project's prior sets or their precedence
    changed, which the snapshot's fingerprint covers, so a debounced job writes a new version."""
    request_ground_truth(project_id)
