"""Claiming tasks and submitting judgements, safe under concurrency.

A claim locks one open task row with ``SELECT … FOR UPDATE SKIP LOCKED`` so annotators never
queue behind each other, and increments ``Task.slots_taken`` in the same transaction; a database
check constraint keeps ``slots_taken <= k`` and a unique constraint keeps one judgement per
annotator per task, whatever happens above.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from .models import Assignment, Judgement, Project, Task

# How often a claim is retried when every open task was momentarily locked by other claims.
CLAIM_ATTEMPTS = 5


class AssignmentError(Exception):
    """A submission that cannot be accepted; the message says why, for the annotator."""


def release_expired_assignments(project: Project) -> int:
    """Return the slots of expired leases to the pool; returns how many were released.

    Each lease is flipped with a conditional UPDATE, so when two processes race only the one
    whose UPDATE changed the row gives the slot back.
    """
    released = 0
    now = timezone.now()
    expired = Assignment.objects.filter(
        task__project=project, status=Assignment.Status.ACTIVE, expires_at__lte=now
    ).values_list("pk", "task_id")
    for assignment_id, task_id in expired:
        with transaction.atomic():
            flipped = Assignment.objects.filter(pk=assignment_id, status=Assignment.Status.ACTIVE).update(
                status=Assignment.Status.EXPIRED
            )
            if flipped == 1:
                Task.objects.filter(pk=task_id).update(slots_taken=F("slots_taken") - 1)
                released += 1
    return released


def live_assignment(project: Project, annotator) -> Assignment | None:
    """The annotator's unexpired, unsubmitted lease in this project, if any."""
    return (
        Assignment.objects.select_related("task__topic", "task__document")
        .filter(
            task__project=project,
            annotator=annotator,
            status=Assignment.Status.ACTIVE,
            expires_at__gt=timezone.now(),
        )
        .first()
    )


def claim_next_task(project: Project, annotator) -> Assignment | None:
    """Give the annotator a lease on the next open task, in pool order; ``None`` when none is left.

    1. An annotator who already holds a live lease in the project gets that one back.
    2. Expired leases are released.
    3. The first open task (pool order) that the annotator has never been assigned and that is not
       locked by a concurrent claim is locked, its slot counter incremented, and a lease created.
    """
    current = live_assignment(project, annotator)
    if current is not None:
        return current
    release_expired_assignments(project)
    open_for_annotator = Task.objects.filter(
        project=project, completed=False, slots_taken__lt=F("required_judgements")
    ).exclude(assignments__annotator=annotator)
    for _attempt in range(CLAIM_ATTEMPTS):
        with transaction.atomic():
            task = (
                open_for_annotator.select_for_update(skip_locked=True, of=("self",))
                .order_by("pool_rank", "id")
                .first()
            )
            if task is not None:
                Task.objects.filter(pk=task.pk).update(slots_taken=F("slots_taken") + 1)
                return Assignment.objects.create(
                    task=task, annotator=annotator, expires_at=timezone.now() + project.assignment_lease
                )
        # SKIP LOCKED also hides rows that a concurrent claim holds for a few milliseconds; only
        # say "nothing left" when no open task remains for this annotator even ignoring locks.
        if not open_for_annotator.exists():
            return None
    return None


def submit_judgement(assignment_id: int, annotator, label: int) -> Judgement:
    """Store a judgement against a live lease of this annotator; raise AssignmentError otherwise.

    The lease is checked at submit time, under a row lock, so an expired or foreign lease can
    never produce a judgement.
    """
    with transaction.atomic():
        # Lock the lease row only: locking the joined task and project rows too would make every
        # submission in a project queue behind the others (and behind the ground-truth job).
        assignment = (
            Assignment.objects.select_for_update(of=("self",))
            .select_related("task", "task__project")
            .filter(pk=assignment_id, annotator=annotator)
            .first()
        )
        if assignment is None:
            raise AssignmentError("This task is not assigned to you.")
        if assignment.status == Assignment.Status.SUBMITTED:
            raise AssignmentError("You have already judged this task.")
        if not assignment.is_live():
            raise AssignmentError("Your time on this task ran out; it has gone back to the pool.")
        if label not in (0, 1):
            raise AssignmentError(f"A binary relevance label is 0 or 1, not {label!r}.")
        try:
            with transaction.atomic():
                judgement = Judgement.objects.create(
                    task=assignment.task, annotator=annotator, assignment=assignment, label=label
                )
        except IntegrityError as error:  # the database's last line of defence
            raise AssignmentError("You have already judged this task.") from error
        assignment.status = Assignment.Status.SUBMITTED
        assignment.save(update_fields=["status"])
        task = assignment.task
        # Two last judgements of a task can be inserted concurrently; under READ COMMITTED neither
        # would see the other's row and the task would stay open forever. Locking the task row
        # (only this task, so other submissions never wait) makes the later one count after the
        # earlier one has committed. Lock order lease -> task, as in release_expired_assignments.
        # of=("self",) and no ordering: Task's default ordering joins the project, and FOR UPDATE
        # would then lock the project row too, deadlocking with the ground-truth job.
        this_task_only = Task.objects.select_for_update(of=("self",)).filter(pk=task.pk).order_by()
        list(this_task_only.values_list("pk", flat=True))
        if task.judgements.count() >= task.required_judgements:
            Task.objects.filter(pk=task.pk).update(completed=True)
        return judgement
