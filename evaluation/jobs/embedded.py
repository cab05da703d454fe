"""Ground-truth jobs without a worker (the embedded default: SQLite, no Redis, tasks eager).

Celery's eager mode would run a job inside the request that sent it, ignoring the debounce
delay: every submission would compute a whole snapshot while the annotator waits, and a burst of
24 submissions would write 24 versions. Instead a job sent here starts on a background thread
after the same delay a worker would wait, and the debounce (``jobs.request_ground_truth_job``)
makes every submission until then join it: a burst gives one new version, as with Redis.
Evaluation jobs (``evaluation.scoring.jobs``) run the same way, through ``schedule_task``.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery.exceptions import Retry
from django.conf import settings
from django.db import InterfaceError, OperationalError, connections

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_timers: list[threading.Timer] = []
_queued: list[tuple[Any, tuple]] = []  # (Celery task, arguments) waiting for run_queued() in "manual" mode


def schedule_task(task: Any, args: tuple, *, delay: float) -> None:
    """Run the Celery ``task`` with ``args`` ``delay`` seconds from now on a daemon thread, as a
    worker would (or queue it for ``run_queued()``, in manual mode)."""
    if settings.GROUND_TRUTH_EMBEDDED_RUNNER == "manual":
        with _lock:
            _queued.append((task, args))
        return
    _start_timer(delay, (task, args))


def _start_timer(delay: float, arguments: tuple) -> None:
    timer = threading.Timer(delay, _run, arguments)
    timer.daemon = True
    with _lock:
        _timers[:] = [t for t in _timers if t.is_alive()] + [timer]
    timer.start()


# A job that fails because the database cannot be reached is started again later, as a worker's
# retry would (Celery's eager retries run at once, all inside the outage): after 1, 2, 4 … seconds,
# at most a minute apart, for about ten minutes.
RETRY_DELAYS = [min(2**n, 60) for n in range(15)]


def _run(task: Any, args: tuple, attempt: int = 0) -> None:
    try:
        task.apply(args, throw=True)
    except (OperationalError, InterfaceError, Retry):  # Retry: the task's own autoretry, eager
        if attempt < len(RETRY_DELAYS):
            logger.warning("embedded job %s%s: database unavailable, retrying", task.name, args)
            _start_timer(RETRY_DELAYS[attempt], (task, args, attempt + 1))
        else:
            logger.exception("embedded job %s%s failed: the database stayed unavailable", task.name, args)
    except Exception:  # the job's row already says it failed; a thread has no one else to tell
        logger.exception("embedded job %s%s failed", task.name, args)
    finally:
        connections.close_all()  # this thread's connections, not the request threads'


def run_queued() -> int:
    """Run, here and now, every job queued in "manual" mode (and any job those queue); returns how
    many ran."""
    ran = 0
    while True:
        with _lock:
            queued, _queued[:] = list(_queued), []
        if not queued:
            return ran
        for task, args in queued:
            task.apply(args, throw=True)
        ran += len(queued)


def wait_until_idle(timeout: float = 30.0) -> bool:
    """Wait for the started jobs to finish; False if some still run after ``timeout`` seconds."""
    with _lock:
        timers = list(_timers)
    for timer in timers:
        timer.join(timeout)
    return not any(timer.is_alive() for timer in timers)


def discard_queued() -> None:
    """Forget the jobs queued in "manual" mode (between tests: their rows are gone)."""
    with _lock:
        _queued.clear()
