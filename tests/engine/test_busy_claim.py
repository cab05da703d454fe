"""A claim that finds every remaining item locked by other requests says "try again", not "nothing left"."""

from __future__ import annotations

import threading

import pytest
from django.db import connections, transaction

from annotation.assignment import ItemsBusy, claim_next_task
from annotation.models import Task
from tests.annotation.factories import make_gold_project


@pytest.mark.django_db(transaction=True)
def test_items_held_by_other_requests_are_busy_not_gone(postgres_required, researcher, annotators):
    project = make_gold_project(researcher, annotators[:1], items=2, gold=0, k=1)
    items = list(Task.objects.filter(project=project, kind=Task.Kind.ITEM).values_list("pk", flat=True))
    locked = threading.Event()
    release = threading.Event()

    def hold_every_item() -> None:  # as concurrent submissions counting these tasks would
        try:
            with transaction.atomic():
                list(Task.objects.select_for_update().filter(pk__in=items).order_by().values_list("pk"))
                locked.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold_every_item)
    holder.start()
    try:
        assert locked.wait(timeout=30)
        with pytest.raises(ItemsBusy, match="try again"):
            claim_next_task(project, annotators[0])
    finally:
        release.set()
        holder.join(timeout=30)
    # Once the other request is done, the same claim succeeds.
    assignment = claim_next_task(project, annotators[0])
    assert assignment is not None and assignment.task_id in items


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
    from django.db import connection

    from annotation.qualification import QualificationError, grade_qualification

    project = make_gold_project(researcher, annotators[:2], items=2, gold=0, k=1)
    locked = threading.Event()
    release = threading.Event()

    def hold_the_project_row() -> None:
        try:
            with transaction.atomic():
                list(type(project).objects.select_for_update().filter(pk=project.pk).values_list("pk"))
                locked.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold_the_project_row)
    holder.start()
    try:
        assert locked.wait(timeout=30)
        with transaction.atomic():
            with connection.cursor() as cursor:  # fail fast instead of waiting for the holder
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            assert claim_next_task(project, annotators[0]) is not None
            with pytest.raises(QualificationError, match="no qualification test"):  # got past the lock
                grade_qualification(project, annotators[1], {})
    finally:
        release.set()
        holder.join(timeout=30)
