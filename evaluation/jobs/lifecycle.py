"""The one lifecycle of every job: ground truth, evaluations (with a part per run), text evaluations
(with parts of outputs), collection imports and bundle imports.

A job is a row (a model with ``JobState``'s fields and a ``status``) and a Celery task that takes
its id. Its life, the same for every kind:

1. **send** — the row is ``queued`` and a message goes to the broker (without a worker: the embedded
   runner). If the broker cannot be reached the job stays queued and says so; recovery sends it
   when the broker is back. Nothing is lost, and a message sent twice runs once (2).
2. **claim** — a conditional UPDATE ``queued → running`` (one winner; a redelivered or duplicated
   message finds nothing to claim and stops), counting the attempt.
3. **run** — inside ``running()``: a heartbeat thread stamps ``heartbeat_at`` every
   ``HEARTBEAT_SECONDS`` while the work goes on, and each ``progress()`` writes the stage and the
   share done. A job cancelled or failed meanwhile stops at its next ``progress()`` (``JobStopped``).
4. **finish once** (``finish``: ``running → done``, conditional) or **fail with a reason** the page
   and the API show (``fail``), or **cancelled** by a researcher (``cancel``, from ``queued`` or
   ``running``).
5. **recover** (``recover_jobs``, by beat every ``RECOVER_SECONDS``): a job queued for longer than
   ``QUEUED_GRACE_SECONDS`` with no message waiting for it in the broker is sent again; a running
   job whose heartbeat is older than ``STALE_SECONDS`` and with no message waiting for it (its
   worker died, or the broker lost its parts) is queued and sent again, up to ``MAX_ATTEMPTS``
   attempts, then failed saying why. So no job stays "running" for ever: within
   ``STALE_SECONDS + RECOVER_SECONDS`` (2.5 minutes by default) it runs again or fails.

A job's parts (an evaluation's runs, a text evaluation's outputs) store their results idempotently
(a part that runs twice stores its rows once), so a job run again after a loss redoes only what is
missing.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import connections
from django.db.models import F, Q
from django.utils import timezone

from evaluation.jobs import embedded

logger = logging.getLogger(__name__)

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
LIVE = (QUEUED, RUNNING)


def _seconds(name: str, default: float) -> float:
    return float(os.environ.get(name) or default)


# Stated limits (environment variables of the same names override them; the fault tests lower them).
HEARTBEAT_SECONDS = _seconds("JOB_HEARTBEAT_SECONDS", 15)
# A running job whose heartbeat is older than this has lost its worker (six heartbeats missed).
STALE_SECONDS = _seconds("JOB_STALE_SECONDS", 90)
# A queued job with no message waiting for it after this long (beyond its own countdown) was lost.
QUEUED_GRACE_SECONDS = _seconds("JOB_QUEUED_GRACE_SECONDS", 60)
# How often beat looks for lost and stalled jobs (cranfield/celery.py).
RECOVER_SECONDS = _seconds("JOB_RECOVER_SECONDS", 60)
MAX_ATTEMPTS = int(_seconds("JOB_MAX_ATTEMPTS", 3))
# Test-only: seconds to sleep after each progress step, so that a fault test can kill a worker in a
# given stage (tests/integration/test_job_faults.py). Never set it in production.
SLOW_DOWN_FOR_TESTS = "CRANFIELD_TEST_JOB_STEP_SECONDS"


class JobStopped(Exception):
    """The job was cancelled or failed while this worker ran it: stop without storing more."""


@dataclass(frozen=True)
class JobKind:
    """One kind of job: its model, the task that runs it, and what differs from the others."""

    name: str  # in words, for messages: "evaluation"
    model: Any  # a model with JobState's fields and a status (typed loosely: each has its own manager)
    task_name: str  # the Celery task that starts (or restarts) a job (its feature's tasks.py)
    arguments: Callable[[Any], tuple] = lambda job: (job.pk,)
    # Which argument of the kind's messages is the job's id, and which tasks' messages belong to a job
    # (its parts' too), for the broker check.
    id_position: int = 0
    message_tasks: tuple[str, ...] = ()
    countdown: Callable[[], float] = lambda: 0.0
    done_statuses: tuple[str, ...] = (DONE,)
    deferred: tuple[str, ...] = ()  # large fields no lifecycle query needs (an import job's body)
    on_end: Callable[[Any], None] | None = None  # a queued job ended without running (cancelled, failed)

    def rows(self):
        return self.model.objects.defer(*self.deferred) if self.deferred else self.model.objects.all()

    def task(self) -> Any:
        return task_named(self.task_name)


def task_named(name: str) -> Any:
    """A Celery task by name: the feature's tasks.py defines it, and the jobs module that sends it
    need not import that module (which imports the jobs module)."""
    from celery import current_app

    if name not in current_app.tasks:  # a web process has not imported the feature's tasks.py yet
        importlib.import_module(name.rpartition(".")[0])
    return current_app.tasks[name]


KINDS: dict[str, JobKind] = {}


def register(kind: JobKind) -> JobKind:
    """Add a kind of job to those recovery looks after (each feature's jobs module registers its own)."""
    KINDS[kind.name] = kind
    return kind


def send(kind: JobKind, job: Any) -> bool:
    """Send a queued job to a worker (or, without one, to the embedded runner); False if the broker
    could not be reached, in which case the job stays queued, says so, and recovery sends it later."""
    arguments, countdown, task = kind.arguments(job), kind.countdown(), kind.task()
    if task.app.conf.task_always_eager:
        embedded.schedule_task(task, arguments, delay=countdown)
        kind.model.objects.filter(pk=job.pk).update(sent_at=timezone.now())
        return True
    try:
        task.apply_async(arguments, countdown=countdown or None)
    except Exception as error:
        logger.warning("could not queue %s %s: %s", kind.name, job.pk, error)
        kind.model.objects.filter(pk=job.pk, status=QUEUED).update(
            stage=f"queued: waiting for the broker ({type(error).__name__}); it is sent again once the "
            "broker answers"[:200],
            sent_at=None,
        )
        return False
    kind.model.objects.filter(pk=job.pk).update(sent_at=timezone.now())
    return True


def claim(kind: JobKind, job_id: int, *, stage: str = "starting", **fields: Any) -> bool:
    """Take a queued job to run it (conditional UPDATE: one winner); False if it is not queued (done,
    cancelled, or already taken by another delivery of the same message)."""
    now = timezone.now()
    taken = kind.model.objects.filter(pk=job_id, status=QUEUED).update(
        status=RUNNING,
        started_at=now,
        heartbeat_at=now,
        attempts=F("attempts") + 1,
        stage=stage[:200],
        **fields,
    )
    return bool(taken)


def is_running(kind: JobKind, job_id: int) -> bool:
    return kind.model.objects.filter(pk=job_id, status=RUNNING).exists()


def heartbeat(kind: JobKind, job_id: int) -> bool:
    """Stamp the job as alive; False if it is no longer running."""
    return bool(kind.model.objects.filter(pk=job_id, status=RUNNING).update(heartbeat_at=timezone.now()))


def progress(kind: JobKind, job_id: int, stage: str, share: float) -> None:
    """Write the stage and the share done (each its own autocommitted UPDATE, seen by others at once);
    raise JobStopped if the job was cancelled or failed meanwhile."""
    updated = kind.model.objects.filter(pk=job_id, status=RUNNING).update(
        stage=stage[:200], progress=min(max(share, 0.0), 1.0), heartbeat_at=timezone.now()
    )
    if not updated:
        raise JobStopped(f"{kind.name} {job_id} is no longer running")
    if share < 1:
        pause_for_tests()


def pause_for_tests() -> None:
    """Sleep ``CRANFIELD_TEST_JOB_STEP_SECONDS`` after a step (never set in production), so that a
    fault test can kill a worker while a job is in a given stage."""
    pause = float(os.environ.get(SLOW_DOWN_FOR_TESTS) or 0)
    if pause > 0:
        time.sleep(pause)


def ensure_running(kind: JobKind, job_id: int) -> None:
    """Called inside the transaction that stores a job's results: lock the job's row and raise
    JobStopped if it is no longer running (cancelled or failed while its results were computed), so
    that only a live job stores anything."""
    if not kind.model.objects.select_for_update().filter(pk=job_id, status=RUNNING).exists():
        raise JobStopped(f"{kind.name} {job_id} is no longer running")


def finish(kind: JobKind, job_id: int, status: str = DONE, **fields: Any) -> bool:
    """End a running job as done (or another of its kind's done statuses), once; False if it was not
    running (cancelled, failed, or finished by another delivery)."""
    assert status in kind.done_statuses, status
    fields.setdefault("stage", "done")
    return bool(
        kind.model.objects.filter(pk=job_id, status=RUNNING).update(
            status=status, progress=1.0, finished_at=timezone.now(), **fields
        )
    )


def fail(kind: JobKind, job_id: int, reason: str, **fields: Any) -> bool:
    """End a queued or running job as failed, with the reason the page and the API show."""
    ended = kind.model.objects.filter(pk=job_id, status__in=LIVE).update(
        status=FAILED, error=reason[:2000], finished_at=timezone.now(), **fields
    )
    _ended(kind, job_id, ended)
    return bool(ended)


def requeue(kind: JobKind, job_id: int, stage: str, error: str = "") -> bool:
    """Put a running job back in the queue for its task's retry (after a database error, which
    ``error`` says meanwhile)."""
    return bool(
        kind.model.objects.filter(pk=job_id, status=RUNNING).update(
            status=QUEUED, stage=stage[:200], error=error[:2000]
        )
    )


def cancel(kind: JobKind, job_id: int, who: str) -> bool:
    """Cancel a queued or running job; a worker running it stops at its next progress step and stores
    nothing more. False if it had already ended."""
    ended = kind.model.objects.filter(pk=job_id, status__in=LIVE).update(
        status=CANCELLED, error=f"cancelled by {who}"[:2000], stage="cancelled", finished_at=timezone.now()
    )
    _ended(kind, job_id, ended)
    return bool(ended)


def _ended(kind: JobKind, job_id: int, ended: int) -> None:
    if ended and kind.on_end is not None:
        kind.on_end(kind.model.objects.get(pk=job_id))


@contextlib.contextmanager
def running(kind: JobKind, job_id: int) -> Iterator[None]:
    """Keep the job's heartbeat while the block runs, from a thread of its own (so that a long step
    with no progress to report does not look like a dead worker)."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(HEARTBEAT_SECONDS):
                if not heartbeat(kind, job_id):
                    return
        except Exception:  # the database may be down; recovery judges by the stamps that did arrive
            logger.warning("heartbeat of %s %s failed", kind.name, job_id, exc_info=True)
        finally:
            connections.close_all()  # this thread's own connections

    thread = threading.Thread(target=beat, name=f"heartbeat-{kind.name}-{job_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=HEARTBEAT_SECONDS + 5)


# -- recovery -------------------------------------------------------------------------------------


@dataclass
class Recovered:
    resent: list[int] = field(default_factory=list)  # queued jobs sent again
    restarted: list[int] = field(default_factory=list)  # stalled running jobs queued and sent again
    failed: list[int] = field(default_factory=list)  # stalled past MAX_ATTEMPTS


def recover(kind: JobKind, waiting: set[int] | None) -> Recovered:
    """Send again this kind's lost queued jobs and restart (or fail) its stalled running ones.
    ``waiting``: the ids that have a message waiting in the broker (None without a broker: the
    embedded runner, which this process itself drives)."""
    found = Recovered()
    if waiting is None:
        return found
    now = timezone.now()
    grace = timedelta(seconds=QUEUED_GRACE_SECONDS + kind.countdown())
    lost = kind.rows().filter(status=QUEUED).filter(Q(sent_at__isnull=True) | Q(sent_at__lt=now - grace))
    for job in lost.exclude(pk__in=waiting).filter(created_at__lt=now - grace):
        if send(kind, job):
            found.resent.append(job.pk)
    stale = now - timedelta(seconds=STALE_SECONDS)
    stalled = (
        kind.rows().filter(status=RUNNING).filter(Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True))
    )
    for job in stalled.exclude(pk__in=waiting):
        if job.attempts >= MAX_ATTEMPTS:
            reason = (
                f"its worker stopped answering {job.attempts} times "
                f"(no heartbeat for {STALE_SECONDS:.0f} s); "
                f"it was at: {job.stage or 'the start'}. Request it again."
            )
            if fail(kind, job.pk, reason):
                found.failed.append(job.pk)
            continue
        # Conditional on the stamp still being old: a worker that came back meanwhile keeps its job.
        requeued = kind.model.objects.filter(pk=job.pk, status=RUNNING, heartbeat_at=job.heartbeat_at).update(
            status=QUEUED, stage=f"queued again: its worker stopped answering (attempt {job.attempts + 1})"
        )
        if requeued and send(kind, kind.rows().get(pk=job.pk)):
            found.restarted.append(job.pk)
    return found


def waiting_ids(kind: JobKind, waiting: dict[str, list[tuple]]) -> set[int]:
    """The ids of this kind's jobs that have a message waiting: the job's own (its id at
    ``id_position``) or one of its parts' (the job's id first)."""
    ids = {args[kind.id_position] for args in waiting.get(kind.task_name, []) if len(args) > kind.id_position}
    for name in kind.message_tasks:
        ids |= {args[0] for args in waiting.get(name, []) if args}
    return ids


def recover_jobs(waiting: dict[str, list[tuple]] | None) -> dict[str, Recovered]:
    """Recovery of every registered kind; ``waiting``: the arguments of the messages waiting in the
    broker, by task name (``broker.waiting_messages``; None without a broker)."""
    found = {}
    for kind in KINDS.values():
        ids = None if waiting is None else waiting_ids(kind, waiting)
        found[kind.name] = recover(kind, ids)
        if any(vars(found[kind.name]).values()):
            logger.warning("recovered %s jobs: %s", kind.name, vars(found[kind.name]))
    return found
