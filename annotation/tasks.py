"""Celery jobs of the annotation app: thin wrappers that call ``annotation.ground_truth``."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from .ground_truth import build_snapshot
from .models import Project

logger = logging.getLogger(__name__)


def request_ground_truth(project_id: int) -> bool:
    """Queue a ground-truth run unless one is already waiting; True if this call queued it.

    Debounce rule: the first submission after a run has started flips ``ground_truth_pending``
    with a conditional UPDATE and queues a run ``GROUND_TRUTH_DEBOUNCE_SECONDS`` later; every
    submission until that run starts finds the flag set and queues nothing. So a burst of N
    submissions over T seconds gives at most about T / debounce + 1 runs, and the last
    submission is always counted (the flag is cleared before the run reads the judgements).
    Call it after the judgement is committed (``transaction.on_commit``).
    """
    pending = Project.objects.filter(pk=project_id, ground_truth_pending=False)
    if not pending.update(ground_truth_pending=True):
        return False
    try:
        compute_ground_truth.apply_async((project_id,), countdown=settings.GROUND_TRUTH_DEBOUNCE_SECONDS)
    except Exception:
        # The broker is unreachable. The judgement is already committed; clear the flag so the
        # next submission (or an on-demand run) queues the job instead.
        Project.objects.filter(pk=project_id).update(ground_truth_pending=False)
        logger.exception("could not queue the ground-truth run of project %s", project_id)
        return False
    return True


@shared_task(
    autoretry_for=(OperationalError,), retry_backoff=True, retry_jitter=True, max_retries=5, acks_late=True
)
def compute_ground_truth(project_id: int) -> int | None:
    """Recompute the project's ground truth; returns the new snapshot's version, or None if unchanged.

    Idempotent: a rerun on the same judgements writes nothing, so redelivery after a worker
    crash is harmless.
    """
    Project.objects.filter(pk=project_id).update(ground_truth_pending=False)
    snapshot = build_snapshot(project_id)
    return snapshot.version if snapshot else None


@shared_task(acks_late=True)
def recompute_all_ground_truths() -> int:
    """Beat job: request a ground-truth run for every project; returns how many runs were queued.

    Goes through ``request_ground_truth``, so a project that already has a run waiting gets no
    second one, and a project whose judgements did not change gets a run that writes nothing.
    """
    queued = 0
    for project_id in Project.objects.values_list("pk", flat=True).iterator():
        queued += request_ground_truth(project_id)
    return queued
