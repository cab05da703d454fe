"""Celery jobs of the annotation app: thin wrappers that call ``annotation.ground_truth``."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from .ground_truth import build_snapshot


@shared_task(
    autoretry_for=(OperationalError,), retry_backoff=True, retry_jitter=True, max_retries=5, acks_late=True
)
def compute_ground_truth(project_id: int) -> int | None:
    """Recompute the project's ground truth; returns the new snapshot's version, or None if unchanged.

    Idempotent: a rerun on the same judgements writes nothing, so redelivery after a worker
    crash is harmless.
    """
    snapshot = build_snapshot(project_id)
    return snapshot.version if snapshot else None
