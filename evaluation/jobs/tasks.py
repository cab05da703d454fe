"""Celery tasks of the jobs' lifecycle: recovery, run by beat every ``lifecycle.RECOVER_SECONDS``."""

from __future__ import annotations

from celery import current_app, shared_task

from evaluation.jobs import broker, lifecycle


@shared_task(acks_late=True)
def recover_lost_jobs() -> dict[str, dict[str, list[int]]]:
    """Send again every kind's lost queued jobs and restart (or fail, saying why) its stalled running
    ones (``lifecycle.recover_jobs``); returns what it did, by kind."""
    found = lifecycle.recover_jobs(broker.waiting_messages(current_app))
    return {name: vars(recovered) for name, recovered in found.items()}
