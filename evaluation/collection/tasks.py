"""Celery tasks of the collection: the import job (``import_jobs``), a thin shell around its lifecycle."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from evaluation.collection import import_jobs


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def run_import_job(job_id: int) -> str:
    """Import a queued job's body, all or nothing (``import_jobs.run``)."""
    return import_jobs.run(job_id)
