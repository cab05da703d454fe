"""Celery tasks of ground truth: thin shells around ``jobs`` (the job's lifecycle) and ``build``."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from evaluation.ground_truth import jobs


@shared_task(
    bind=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_jitter=True,
    max_retries=5,
    acks_late=True,
)
def compute_ground_truth(self, project_id: int, job_id: int | None = None) -> int | None:
    """Recompute the project's ground truth (``jobs.compute``); database errors are retried with
    backoff, the job queued meanwhile and failed after the last try."""
    return jobs.compute(project_id, job_id, last_try=self.request.retries >= self.max_retries)


@shared_task(acks_late=True)
def recompute_all_ground_truths() -> int:
    """Beat job, hourly: ``jobs.recompute_all``."""
    return jobs.recompute_all()
