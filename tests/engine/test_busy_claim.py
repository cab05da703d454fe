"""Claims under row locks held by other requests: "try again" rather than "nothing left" when every
remaining item is held, and never waiting on the project row that every submission updates."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection, connections, transaction
from django.db.models import QuerySet

from annotation.judging.assignment import ItemsBusy, claim_next_task
from annotation.models import Project, Task
from annotation.quality.qualification import QualificationError, grade_qualification
from tests.annotation.factories import make_gold_project


@contextmanager
def locked_elsewhere(rows: QuerySet) -> Iterator[None]:
    """Hold FOR UPDATE locks on ``rows`` from another connection for the duration of the block."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                list(rows.select_for_update().order_by().values_list("pk"))
                locked.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(timeout=30)
        yield
    finally:
        release.set()
        holder.join(timeout=30)


@pytest.mark.django_db(transaction=True)
def test_items_held_by_other_requests_are_busy_not_gone(postgres_required, researcher, annotators):
    project = make_gold_project(researcher, annotators[:1], items=2, gold=0, k=1)
    items = Task.objects.filter(project=project, kind=Task.Kind.ITEM)
    with locked_elsewhere(items), pytest.raises(ItemsBusy, match="try again"):  # as submissions would
        claim_next_task(project, annotators[0])
    # Once the other request is done, the same claim succeeds.
    assignment = claim_next_task(project, annotators[0])
    assert assignment is not None and assignment.task_id in set(items.values_list("pk", flat=True))


@pytest.mark.django_db(transaction=True)
def test_nothing_left_is_still_none(postgres_required, researcher, annotators):
    project = make_gold_project(researcher, annotators[:2], items=1, gold=0, k=1)
    assert claim_next_task(project, annotators[0]) is not None
    assert claim_next_task(project, annotators[1]) is None


@pytest.mark.django_db(transaction=True)
def test_claims_and_qualification_never_lock_the_project_row(postgres_required, researcher, annotators):
    """Every submission updates the project row (the ground-truth debounce). A claim that locked it
    too (Membership's default ordering joins the project, and FOR UPDATE without of= locks joined
    rows) made claims queue behind each other and deadlock with submissions under load."""
    project = make_gold_project(researcher, annotators[:2], items=2, gold=0, k=1)
    with locked_elsewhere(Project.objects.filter(pk=project.pk)), transaction.atomic():
        with connection.cursor() as cursor:  # fail fast instead of waiting for the holder
            cursor.execute("SET LOCAL lock_timeout = '2s'")
        assert claim_next_task(project, annotators[0]) is not None
        with pytest.raises(QualificationError, match="no qualification test"):  # got past the lock
            grade_qualification(project, annotators[1], {})
