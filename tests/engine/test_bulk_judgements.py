"""Judgements stored in bulk (``annotation.judging.bulk``): the COPY path PostgreSQL takes leaves the
same rows as the ``bulk_create`` path SQLite takes, writes every column the models have, and a second
judgement of a task by one annotator is Django's IntegrityError on both."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotation.judging import bulk
from annotation.judging.bulk import NewJudgement
from annotation.models import Assignment, Judgement, JudgementRevision, Task
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db

needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="COPY is PostgreSQL's; SQLite takes bulk_create"
)


@pytest.mark.parametrize(
    "model, columns",
    [
        (Assignment, bulk.ASSIGNMENT_COLUMNS),
        (Judgement, bulk.JUDGEMENT_COLUMNS),
        (JudgementRevision, bulk.REVISION_COLUMNS),
    ],
)
def test_every_column_of_the_three_tables_is_written(model, columns):
    # A column added to a model must be added to the COPY too (or its rows would take the
    # database's default where Django's would take the field's).
    assert sorted(columns) == sorted(field.column for field in model._meta.concrete_fields)


def stored_rows(project) -> list[tuple]:
    """Every row the three tables hold for the project, keys replaced by what they point at."""
    return sorted(
        (
            j.task.document.external_id,
            j.annotator.username,
            j.label,
            j.answer,
            j.seconds_spent,
            j.seconds_on_task,
            j.revision,
            j.assignment.status,
            j.assignment.task_id == j.task_id,
            j.assignment.annotator_id == j.annotator_id,
            j.assignment.shown_at,
            j.assignment.expires_at <= j.created_at,
            abs((j.updated_at - j.created_at).total_seconds()) < 1,
            [(r.number, r.label, r.answer) for r in j.revisions.order_by("number")],
        )
        for j in Judgement.objects.filter(project=project).select_related(
            "task__document", "annotator", "assignment"
        )
    )


def judgements_for(project, annotators) -> list[NewJudgement]:
    tasks = list(Task.objects.filter(project=project, kind=Task.Kind.ITEM).order_by("id"))
    return [
        NewJudgement(task.pk, annotator.pk, {"label": (n + i) % 2}, seconds=None if i == 1 else 1.5 * n)
        for n, task in enumerate(tasks[:3])
        for i, annotator in enumerate(annotators[:2])
    ]


@needs_postgresql
def test_copied_rows_equal_bulk_created_rows(researcher, annotators):
    copied, created = (make_project(researcher, annotators, k=3) for _ in range(2))
    keys = bulk._copied(copied.pk, judgements_for(copied, annotators))
    bulk._bulk_created(created.pk, judgements_for(created, annotators))
    assert len(keys) == 6
    assert stored_rows(copied) == stored_rows(created)
    assert len(stored_rows(copied)) == 6
    # The keys come back in the order given, and the sequences moved past them: the next insert
    # by the ORM takes a fresh key.
    assert list(Judgement.objects.filter(pk__in=keys).order_by("pk").values_list("pk", flat=True)) == sorted(
        keys
    )
    assert [Judgement.objects.get(pk=key).task_id for key in keys] == [
        j.task_id for j in judgements_for(copied, annotators)
    ]
    last = Task.objects.filter(project=copied, kind=Task.Kind.ITEM).order_by("id").last()
    later = Assignment.objects.create(task=last, annotator=annotators[2], expires_at=timezone.now())
    assert later.pk > max(Judgement.objects.get(pk=key).assignment_id for key in keys)


@pytest.mark.parametrize("path", ["copied", "bulk_created"])
def test_a_second_judgement_of_a_task_by_one_annotator_is_an_integrity_error(path, researcher, annotators):
    if path == "copied" and connection.vendor != "postgresql":
        pytest.skip("COPY is PostgreSQL's")
    project = make_project(researcher, annotators, k=3)
    task = Task.objects.filter(project=project, kind=Task.Kind.ITEM).first()
    twice = [NewJudgement(task.pk, annotators[0].pk, {"label": 1})] * 2
    with pytest.raises(IntegrityError), transaction.atomic():
        getattr(bulk, f"_{path}")(project.pk, twice)
    assert not Judgement.objects.filter(project=project).exists()
    assert not Assignment.objects.filter(task__project=project).exists()


def test_nothing_to_store_stores_nothing(researcher, annotators):
    project = make_project(researcher, annotators, k=3)
    assert bulk.insert_judgements(project.pk, []) == []
    assert not Judgement.objects.exists()


def test_a_snapshot_writes_every_column_of_its_labels():
    from evaluation.ground_truth.write import LABEL_COLUMNS
    from evaluation.models import SnapshotLabel

    columns = {SnapshotLabel._meta.get_field(name).column for name in LABEL_COLUMNS}
    assert columns == {field.column for field in SnapshotLabel._meta.concrete_fields} - {"id"}
