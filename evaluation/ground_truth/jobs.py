"""The ground-truth job's lifecycle: requested (debounced), queued, running, done or failed.

Every job has a ``GroundTruthJob`` row saying whether it is queued, running (with its stage and
progress), done, unchanged or failed, so pages and the API can show it. The Celery task is a thin
shell around ``build.build_snapshot``. With a worker (Redis) the job goes to the broker; with the
embedded default (no worker) it runs on a background thread of the web process after the same
debounce delay (``embedded``), never inside an annotator's request.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import OperationalError, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from annotation.models import Project
from evaluation.ground_truth.build import build_snapshot
from evaluation.jobs import embedded
from evaluation.models import GroundTruthJob
from evaluation.signals import announce_snapshot_written

logger = logging.getLogger(__name__)

# Jobs that found nothing new are kept this long, for the jobs list; jobs that wrote a snapshot
# or failed are kept for good (they are the history).
UNCHANGED_JOBS_KEPT = timedelta(days=7)

# Test-only: seconds to sleep after each progress step, so that a test can kill a worker
# mid-job (tests/integration/test_worker_crash.py). Never set it in production.
SLOW_DOWN_FOR_TESTS = "CRANFIELD_TEST_GROUND_TRUTH_STEP_SECONDS"


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
    """Send a queued job to the broker (or, without a worker, to the embedded runner) to start after
    the debounce delay; on failure, fail the job and reopen the window."""
    if compute_ground_truth.app.conf.task_always_eager:  # no worker: Celery would run it right here
        embedded.schedule_task(
            compute_ground_truth, (job.project_id, job.pk), delay=settings.GROUND_TRUTH_DEBOUNCE_SECONDS
        )
        return True
    try:
        compute_ground_truth.apply_async(
            (job.project_id, job.pk), countdown=settings.GROUND_TRUTH_DEBOUNCE_SECONDS
        )
    except Exception as error:
        # The broker is unreachable. The judgement is already committed; clear the flag so the
        # next submission (or an on-demand job) queues the job instead.
        Project.objects.filter(pk=job.project_id).update(ground_truth_pending=False)
        GroundTruthJob.objects.filter(pk=job.pk, status=GroundTruthJob.Status.QUEUED).update(
            status=GroundTruthJob.Status.FAILED,
            error=f"{REFUSED_BY_BROKER}: {error}"[:2000],
            finished_at=timezone.now(),
        )
        logger.exception("could not queue the ground-truth job of project %s", job.project_id)
        return False
    return True


class JobProgress:
    """Progress callback that writes the stage and share done to the job row as it goes.

    Each update is its own autocommitted UPDATE, so other connections see it while the job runs.
    """

    def __init__(self, job_id: int):
        self.job_id = job_id

    def __call__(self, stage: str, share: float) -> None:
        GroundTruthJob.objects.filter(pk=self.job_id).update(
            stage=stage[:200], progress=min(max(share, 0.0), 1.0)
        )
        pause = float(os.environ.get(SLOW_DOWN_FOR_TESTS) or 0)
        if pause > 0 and share < 1:
            time.sleep(pause)


def start_job(project_id: int, job_id: int | None) -> GroundTruthJob | None:
    """Mark the job running (creating a row for a job sent without one) and reopen the debounce window.

    Returns None if there is nothing to do: the project is gone, or the job already finished
    (the job was delivered again after it had stored its result).
    """
    now = timezone.now()
    with transaction.atomic():
        # Submissions from now on may not be in what this job reads: they must queue a new job.
        if not Project.objects.filter(pk=project_id).update(ground_truth_pending=False):
            return None
        job = None
        if job_id is not None:
            job = GroundTruthJob.objects.select_for_update().filter(pk=job_id, project_id=project_id).first()
        if job is None:
            return GroundTruthJob.objects.create(
                project_id=project_id, status=GroundTruthJob.Status.RUNNING, stage="starting", started_at=now
            )
        if job.status in {GroundTruthJob.Status.DONE, GroundTruthJob.Status.UNCHANGED}:
            return None
        restarted = job.status == GroundTruthJob.Status.RUNNING
        job.status = GroundTruthJob.Status.RUNNING
        job.stage = "restarted: the worker running it was lost" if restarted else "starting"
        job.progress = 0.0
        job.error = ""
        job.started_at = now
        job.save(update_fields=["status", "stage", "progress", "error", "started_at"])
        return job


def end_job(job_id: int, status: str, *, snapshot=None, error: str = "") -> None:
    """Record how a job ended. ``queued`` means it failed and will be retried."""
    jobs = GroundTruthJob.objects.filter(pk=job_id)
    fields: dict = {"status": status, "error": error[:2000]}
    if status == GroundTruthJob.Status.UNCHANGED:
        # A second delivery of the same job that lost the race must not hide the snapshot written.
        jobs = jobs.exclude(status=GroundTruthJob.Status.DONE)
    if status == GroundTruthJob.Status.QUEUED:
        fields["stage"] = "waiting to retry after an error"
    else:
        fields["finished_at"] = timezone.now()
    if status in {GroundTruthJob.Status.DONE, GroundTruthJob.Status.UNCHANGED}:
        fields["progress"] = 1.0
    if snapshot is not None:
        fields["snapshot"] = snapshot
    jobs.update(**fields)


@shared_task(
    bind=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_jitter=True,
    max_retries=5,
    acks_late=True,
)
def compute_ground_truth(self, project_id: int, job_id: int | None = None) -> int | None:
    """Recompute the project's ground truth; returns the new snapshot's version, or None if unchanged.

    Idempotent and safe to run twice at once (see ``build_snapshot``): a redelivery after a worker
    crash, or two jobs overlapping, give one snapshot per distinct set of inputs. Database errors
    are retried with backoff; the job row says ``queued`` while a retry waits, ``failed`` after the
    last one.
    """
    job = start_job(project_id, job_id)
    if job is None:
        return None
    try:
        snapshot = build_snapshot(project_id, progress=JobProgress(job.pk))
    except Exception as error:
        retrying = isinstance(error, OperationalError) and self.request.retries < self.max_retries
        status = GroundTruthJob.Status.QUEUED if retrying else GroundTruthJob.Status.FAILED
        try:
            end_job(job.pk, status, error=f"{type(error).__name__}: {error}")
        except Exception:  # the database itself may be what failed; the raise below is what matters
            logger.exception("could not record the failure of ground-truth job %s", job.pk)
        raise
    end_job(
        job.pk,
        GroundTruthJob.Status.DONE if snapshot else GroundTruthJob.Status.UNCHANGED,
        snapshot=snapshot,
    )
    if snapshot:
        announce_snapshot_written(snapshot.pk)  # scoring listens: the runs are scored against it
    return snapshot.version if snapshot else None


def resend_lost_jobs() -> int:
    """Send again the jobs of jobs queued for longer than any delivery can take; returns how many.

    A queued job is delivered within the debounce delay, or redelivered within the broker's
    visibility timeout if its worker died; a job still queued after both was lost (say Redis
    restarted without its data) and would otherwise keep its project's debounce flag set for good.
    Sending a job twice is harmless: the second delivery finds the job finished and stops.
    """
    waited = settings.GROUND_TRUTH_DEBOUNCE_SECONDS + settings.BROKER_VISIBILITY_TIMEOUT
    lost = GroundTruthJob.objects.filter(
        status=GroundTruthJob.Status.QUEUED, created_at__lt=timezone.now() - timedelta(seconds=waited)
    )
    resent = 0
    for job in lost.iterator():
        if send_job(job):
            GroundTruthJob.objects.filter(pk=job.pk).update(stage="queued again: its job seemed lost")
            resent += 1
    return resent


# A job the broker refused says so in its error (``send_job``); ``requeue_refused_jobs`` finds them.
REFUSED_BY_BROKER = "could not be queued"


def requeue_refused_jobs() -> int:
    """Queue again each project's newest job if the broker refused it (Redis was down when the
    judgements arrived); returns how many were sent. The judgements are in the database, so once
    the broker is back the next beat tick brings the ground truth up to date, without waiting for
    another submission or the hourly run. The job row is reused (queued again, not copied), so an
    outage of hours leaves one failed job per project, not one per tick; a project whose window a
    submission has meanwhile opened again (a newer job) is left to that job."""
    newest = GroundTruthJob.objects.filter(project_id=OuterRef("project_id")).order_by("-pk").values("pk")[:1]
    refused = GroundTruthJob.objects.filter(
        status=GroundTruthJob.Status.FAILED, error__startswith=REFUSED_BY_BROKER, pk=Subquery(newest)
    )
    sent = 0
    for job in refused.iterator():
        # Take the project's window as a submission would; if one is open, its job covers this.
        if not Project.objects.filter(pk=job.project_id, ground_truth_pending=False).update(
            ground_truth_pending=True
        ):
            continue
        GroundTruthJob.objects.filter(pk=job.pk).update(
            status=GroundTruthJob.Status.QUEUED,
            error="",
            finished_at=None,
            stage="queued again: the broker is back",
        )
        sent += send_job(job)
    return sent


def prune_unchanged_jobs() -> int:
    """Delete jobs that found nothing new and ended more than ``UNCHANGED_JOBS_KEPT`` ago.

    The hourly schedule adds one such job per idle project every hour; nothing refers to them.
    """
    old = GroundTruthJob.objects.filter(
        status=GroundTruthJob.Status.UNCHANGED, finished_at__lt=timezone.now() - UNCHANGED_JOBS_KEPT
    )
    return old.delete()[0]


@shared_task(acks_late=True)
def recompute_all_ground_truths() -> int:
    """Beat job: request a ground-truth job for every project; returns how many jobs were queued.

    Goes through ``request_ground_truth``, so a project that already has a job waiting gets no
    second one, and a project whose judgements did not change gets a job that writes nothing.
    Jobs that were lost are sent again (``resend_lost_jobs``); old jobs that found nothing new
    are deleted (``prune_unchanged_jobs``).
    """
    queued = 0
    for project_id in Project.objects.values_list("pk", flat=True).iterator():
        queued += request_ground_truth(project_id)
    resend_lost_jobs()
    prune_unchanged_jobs()
    return queued


@shared_task(acks_late=True)
def resend_lost_ground_truth_jobs() -> int:
    """Beat job, every few minutes: send again the jobs that were lost (``resend_lost_jobs``) or that
    the broker refused while it was down (``requeue_refused_jobs``), so a job lost with a dying
    worker or a Redis outage is found within minutes, not at the hourly run."""
    return resend_lost_jobs() + requeue_refused_jobs()


def on_judgements_changed(sender, project_id: int, **kwargs) -> None:
    """Receiver of ``annotation.signals.judgements_changed``: a debounced ground-truth job."""
    request_ground_truth(project_id)
