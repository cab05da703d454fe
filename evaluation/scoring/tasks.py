"""Celery tasks of scoring: thin shells around ``jobs`` (an evaluation's lifecycle and its parts)."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from evaluation.scoring import jobs


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def start_evaluation(evaluation_id: int) -> int:
    """Start an evaluation and fan out one ``score_evaluation_run`` per run (``jobs.start``)."""
    return jobs.start(evaluation_id)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def score_evaluation_run(evaluation_id: int, run_id: int) -> None:
    """Score one run of an evaluation, and finish the job if it was the last (``jobs.score_one``)."""
    jobs.score_one(evaluation_id, run_id)
