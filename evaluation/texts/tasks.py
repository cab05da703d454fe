"""Celery tasks of text evaluations: thin shells around ``jobs`` (the job's lifecycle and its parts)."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from evaluation.texts import jobs


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def run_text_evaluation(evaluation_id: int) -> int:
    """Start a text evaluation and fan out its parts (``jobs.start``)."""
    return jobs.start(evaluation_id)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def score_text_part(evaluation_id: int, number: int, task_ids: list[int]) -> None:
    """Score and store one part of a text evaluation's outputs (``jobs.score_one_part``)."""
    jobs.score_one_part(evaluation_id, number, task_ids)
