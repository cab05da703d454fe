"""Celery jobs of the annotation app: thin wrappers that call ``annotation.ground_truth``.

Every ground-truth run has a ``GroundTruthRun`` row (evaluation app) saying whether it is queued,
running (with its stage and progress), done, unchanged or failed, so pages and the API can show it.
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
from django.utils import timezone

from evaluation.models import GroundTruthRun

from .ground_truth import build_snapshot
from .models import Project

logger = logging.getLogger(__name__)

# Runs that found nothing new are kept this long, for the runs list; runs that wrote a snapshot
# or failed are kept for good (they are the history).
UNCHANGED_RUNS_KEPT = timedelta(days=7)

# Test-only: seconds to sleep after each progress step, so that a test can kill a worker
# mid-job (tests/integration/test_worker_crash.py). Never set it in production.
SLOW_DOWN_FOR_TESTS = "CRANFIELD_TEST_GROUND_TRUTH_STEP_SECONDS"


@dataclass(frozen=True)
class RunRequest:
    """The outcome of asking for a ground-truth run.

    ``run`` is the run that will count the caller's judgements: the one this call queued, or the
    one already waiting (None only if none is found, e.g. the project does not exist).
    """

    run: GroundTruthRun | None
    queued: bool


def waiting_run(project_id: int) -> GroundTruthRun | None:
    """The project's newest run that has not started yet."""
    return (
        GroundTruthRun.objects.filter(project_id=project_id, status=GroundTruthRun.Status.QUEUED)
        .order_by("-created_at", "-id")
        .first()
    )


def request_ground_truth_run(project_id: int, *, find_waiting: bool = True) -> RunRequest:
    """Queue a ground-truth run unless one is already waiting; either way, return that run.

    Debounce rule: the first request after a run has started flips ``ground_truth_pending`` with
    a conditional UPDATE and, in the same transaction, creates a queued ``GroundTruthRun``; the job
    is sent ``GROUND_TRUTH_DEBOUNCE_SECONDS`` later. Every request until that run starts finds the
    flag set and joins the waiting run. So a burst of N submissions over T seconds gives at most
    about T / debounce + 1 runs, and the last submission is always counted (the run clears the
    flag before it reads the judgements).

    The job is sent once the run row is committed: at once in autocommit mode (call this after
    the judgement is committed, e.g. from ``transaction.on_commit``), or when the caller's
    transaction commits.
    """
    with transaction.atomic():
        flipped = Project.objects.filter(pk=project_id, ground_truth_pending=False).update(
            ground_truth_pending=True
        )
        if not flipped:  # a run is already waiting; a submission needs no more than that
            return RunRequest(waiting_run(project_id) if find_waiting else None, queued=False)
        run = GroundTruthRun.objects.create(
            project_id=project_id, stage="queued: waiting for more judgements before it starts"
        )
    sent: list[bool] = []
    transaction.on_commit(lambda: sent.append(send_run(run)))
    return RunRequest(run, queued=sent[0] if sent else True)


def request_ground_truth(project_id: int) -> bool:
    """Queue a ground-truth run unless one is already waiting; True if this call queued it."""
    return request_ground_truth_run(project_id, find_waiting=False).queued


def send_run(run: GroundTruthRun) -> bool:
    """Send the job of a queued run to the broker; on failure, fail the run and reopen the window."""
    try:
        compute_ground_truth.apply_async(
            (run.project_id, run.pk), countdown=settings.GROUND_TRUTH_DEBOUNCE_SECONDS
        )
    except Exception as error:
        # The broker is unreachable. The judgement is already committed; clear the flag so the
        # next submission (or an on-demand run) queues the job instead.
        Project.objects.filter(pk=run.project_id).update(ground_truth_pending=False)
        GroundTruthRun.objects.filter(pk=run.pk, status=GroundTruthRun.Status.QUEUED).update(
            status=GroundTruthRun.Status.FAILED,
            error=f"could not be queued: {error}"[:2000],
            finished_at=timezone.now(),
        )
        logger.exception("could not queue the ground-truth run of project %s", run.project_id)
        return False
    return True


class RunProgress:
    """Progress callback that writes the stage and share done to the run row as it goes.

    Each update is its own autocommitted UPDATE, so other connections see it while the job runs.
    """

    def __init__(self, run_id: int):
        self.run_id = run_id

    def __call__(self, stage: str, share: float) -> None:
        GroundTruthRun.objects.filter(pk=self.run_id).update(
            stage=stage[:200], progress=min(max(share, 0.0), 1.0)
        )
        pause = float(os.environ.get(SLOW_DOWN_FOR_TESTS) or 0)
        if pause > 0 and share < 1:
            time.sleep(pause)


def start_run(project_id: int, run_id: int | None) -> GroundTruthRun | None:
    """Mark the run running (creating a row for a job sent without one) and reopen the debounce window.

    Returns None if there is nothing to run: the project is gone, or the run already finished
    (the job was delivered again after it had stored its result).
    """
    now = timezone.now()
    with transaction.atomic():
        # Submissions from now on may not be in what this run reads: they must queue a new run.
        if not Project.objects.filter(pk=project_id).update(ground_truth_pending=False):
            return None
        run = GroundTruthRun.objects.select_for_update().filter(pk=run_id, project_id=project_id).first()
        if run is None:
            return GroundTruthRun.objects.create(
                project_id=project_id, status=GroundTruthRun.Status.RUNNING, stage="starting", started_at=now
            )
        if run.status in {GroundTruthRun.Status.DONE, GroundTruthRun.Status.UNCHANGED}:
            return None
        restarted = run.status == GroundTruthRun.Status.RUNNING
        run.status = GroundTruthRun.Status.RUNNING
        run.stage = "restarted: the worker running it was lost" if restarted else "starting"
        run.progress = 0.0
        run.error = ""
        run.started_at = now
        run.save(update_fields=["status", "stage", "progress", "error", "started_at"])
        return run


def end_run(run_id: int, status: str, *, snapshot=None, error: str = "") -> None:
    """Record how a run ended. ``queued`` means it failed and will be retried."""
    runs = GroundTruthRun.objects.filter(pk=run_id)
    fields: dict = {"status": status, "error": error[:2000]}
    if status == GroundTruthRun.Status.UNCHANGED:
        # A second delivery of the same run that lost the race must not hide the snapshot written.
        runs = runs.exclude(status=GroundTruthRun.Status.DONE)
    if status == GroundTruthRun.Status.QUEUED:
        fields["stage"] = "waiting to retry after an error"
    else:
        fields["finished_at"] = timezone.now()
    if status in {GroundTruthRun.Status.DONE, GroundTruthRun.Status.UNCHANGED}:
        fields["progress"] = 1.0
    if snapshot is not None:
        fields["snapshot"] = snapshot
    runs.update(**fields)


@shared_task(
    bind=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_jitter=True,
    max_retries=5,
    acks_late=True,
)
def compute_ground_truth(self, project_id: int, run_id: int | None = None) -> int | None:
    """Recompute the project's ground truth; returns the new snapshot's version, or None if unchanged.

    Idempotent and safe to run twice at once (see ``build_snapshot``): a redelivery after a worker
    crash, or two runs overlapping, give one snapshot per distinct set of inputs. Database errors
    are retried with backoff; the run row says ``queued`` while a retry waits, ``failed`` after the
    last one.
    """
    run = start_run(project_id, run_id)
    if run is None:
        return None
    try:
        snapshot = build_snapshot(project_id, progress=RunProgress(run.pk))
    except Exception as error:
        retrying = isinstance(error, OperationalError) and self.request.retries < self.max_retries
        status = GroundTruthRun.Status.QUEUED if retrying else GroundTruthRun.Status.FAILED
        try:
            end_run(run.pk, status, error=f"{type(error).__name__}: {error}")
        except Exception:  # the database itself may be what failed; the raise below is what matters
            logger.exception("could not record the failure of ground-truth run %s", run.pk)
        raise
    end_run(
        run.pk,
        GroundTruthRun.Status.DONE if snapshot else GroundTruthRun.Status.UNCHANGED,
        snapshot=snapshot,
    )
    return snapshot.version if snapshot else None


def resend_lost_runs() -> int:
    """Send again the jobs of runs queued for longer than any delivery can take; returns how many.

    A queued run's job is delivered within the debounce delay, or redelivered within the broker's
    visibility timeout if its worker died; a run still queued after both was lost (say Redis
    restarted without its data) and would otherwise keep its project's debounce flag set for good.
    Sending a job twice is harmless: the second delivery finds the run finished and stops.
    """
    waited = settings.GROUND_TRUTH_DEBOUNCE_SECONDS + settings.BROKER_VISIBILITY_TIMEOUT
    lost = GroundTruthRun.objects.filter(
        status=GroundTruthRun.Status.QUEUED, created_at__lt=timezone.now() - timedelta(seconds=waited)
    )
    resent = 0
    for run in lost.iterator():
        if send_run(run):
            GroundTruthRun.objects.filter(pk=run.pk).update(stage="queued again: its job seemed lost")
            resent += 1
    return resent


def prune_unchanged_runs() -> int:
    """Delete runs that found nothing new and ended more than ``UNCHANGED_RUNS_KEPT`` ago.

    The hourly schedule adds one such run per idle project every hour; nothing refers to them.
    """
    old = GroundTruthRun.objects.filter(
        status=GroundTruthRun.Status.UNCHANGED, finished_at__lt=timezone.now() - UNCHANGED_RUNS_KEPT
    )
    return old.delete()[0]


@shared_task(acks_late=True)
def recompute_all_ground_truths() -> int:
    """Beat job: request a ground-truth run for every project; returns how many runs were queued.

    Goes through ``request_ground_truth``, so a project that already has a run waiting gets no
    second one, and a project whose judgements did not change gets a run that writes nothing.
    Runs whose job was lost are sent again (``resend_lost_runs``); old runs that found nothing new
    are deleted (``prune_unchanged_runs``).
    """
    queued = 0
    for project_id in Project.objects.values_list("pk", flat=True).iterator():
        queued += request_ground_truth(project_id)
    resend_lost_runs()
    prune_unchanged_runs()
    return queued
