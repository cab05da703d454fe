"""How the evaluation side's jobs reach a worker: through the broker to a Celery worker, or, with no
worker (the embedded default, ``CELERY_TASK_ALWAYS_EAGER``), to a background thread of this process;
and how the ones the broker lost are sent again.

Each kind of job (an evaluation, a text evaluation, an import job) is a row whose ``status`` says
whether it still waits (``queued``) and a task that takes the row's id and starts only a queued row,
so a job sent twice runs once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from evaluation.jobs import embedded

logger = logging.getLogger(__name__)


def send_to_worker(task: Any, job_id: int, refused: Callable[[int, str], object]) -> bool:
    """Start ``task(job_id)`` on a worker, or without one on the embedded runner; if the broker
    cannot be reached, ``refused(job_id, reason)`` (the job fails saying so) and False."""
    if task.app.conf.task_always_eager:
        embedded.schedule_task(task, (job_id,), delay=0)
        return True
    try:
        task.delay(job_id)
    except Exception as error:
        logger.exception("could not queue %s %s", task.name, job_id)
        refused(job_id, f"could not be queued: {error}")
        return False
    return True


def resend_lost(jobs: QuerySet, send: Callable[[Any], object]) -> int:
    """Send again the rows of ``jobs`` still queued after any delivery could take (the broker's
    visibility timeout: lost with a worker, or with a Redis restarted empty); otherwise a lost job
    would wait for ever and absorb every later request of the same settings. Returns how many."""
    waited = timezone.now() - timedelta(seconds=settings.BROKER_VISIBILITY_TIMEOUT)
    count = 0
    for job in jobs.filter(status="queued", created_at__lt=waited).iterator():
        send(job)
        count += 1
    return count
