"""Celery task of sampling simulations: a thin shell around ``jobs.run``."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from evaluation.sampling import jobs


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def run_sampling_simulation(job_id: int) -> str:
    """Run one sampling simulation (``jobs.run``)."""
    return jobs.run(job_id)
