"""Judgements made away from the judging page, stored in bulk: each as a submitted lease, the judgement
and its first revision — the three rows a claim and a submission leave behind.

On PostgreSQL the rows go in by ``COPY`` with keys drawn from the tables' sequences first, so one
judgement costs three rows of text instead of three rows of an ``INSERT … RETURNING`` statement that
Django builds and parses back (BENCHMARKS.md, "Judgements in, ground truth out"). Elsewhere (the
embedded SQLite) ``bulk_create`` does it. Both leave the same rows; ``tests/engine/test_bulk_judgements.py``
compares them column by column, and fails when a model gains a column this module does not write.

The caller holds the transaction and has checked everything: the tasks' slots, the answers, who judges.
A second judgement of a task by one annotator breaks the unique constraints (IntegrityError) on both.

``store_rows`` does the same for any table whose keys nobody needs back (a snapshot's labels, a
run's lines).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import connection
from django.db.models import Field, JSONField, Model
from django.utils import timezone

from annotation.models import Assignment, Judgement, JudgementRevision

# The columns each row gets, in order; the test holds them equal to the models' concrete columns.
ASSIGNMENT_COLUMNS = ("id", "task_id", "annotator_id", "status", "created_at", "expires_at", "shown_at")
JUDGEMENT_COLUMNS = (
    "id",
    "project_id",
    "task_id",
    "annotator_id",
    "assignment_id",
    "label",
    "answer",
    "seconds_spent",
    "seconds_on_task",
    "revision",
    "created_at",
    "updated_at",
)
REVISION_COLUMNS = ("id", "judgement_id", "number", "label", "answer", "created_at")


@dataclass(frozen=True, slots=True)
class NewJudgement:
    """A validated answer to store: ``seconds`` is the time the annotator took (spent and on task)."""

    task_id: int
    annotator_id: int
    answer: dict
    seconds: float | None = None


def insert_judgements(project_id: int, judgements: Sequence[NewJudgement]) -> list[int]:
    """Store each judgement as submitted now, with its lease and first revision; the judgements'
    keys in the order given."""
    if not judgements:
        return []
    if connection.vendor == "postgresql":
        return _copied(project_id, judgements)
    return _bulk_created(project_id, judgements)


def _copied(project_id: int, judgements: Sequence[NewJudgement]) -> list[int]:
    count = len(judgements)
    lease_ids, judgement_ids, revision_ids = (
        _next_keys(model, count) for model in (Assignment, Judgement, JudgementRevision)
    )
    now = timezone.now()
    submitted = Assignment.Status.SUBMITTED.value
    answers = [json.dumps(j.answer) for j in judgements]
    labels = [j.answer.get("label") for j in judgements]
    _copy(
        Assignment,
        ASSIGNMENT_COLUMNS,
        (
            (lease, j.task_id, j.annotator_id, submitted, now, now, None)
            for lease, j in zip(lease_ids, judgements, strict=True)
        ),
    )
    _copy(
        Judgement,
        JUDGEMENT_COLUMNS,
        (
            (
                key,
                project_id,
                j.task_id,
                j.annotator_id,
                lease,
                label,
                answer,
                j.seconds,
                j.seconds,
                1,
                now,
                now,
            )
            for key, lease, j, label, answer in zip(
                judgement_ids, lease_ids, judgements, labels, answers, strict=True
            )
        ),
    )
    _copy(
        JudgementRevision,
        REVISION_COLUMNS,
        (
            (key, judgement, 1, label, answer, now)
            for key, judgement, label, answer in zip(
                revision_ids, judgement_ids, labels, answers, strict=True
            )
        ),
    )
    return judgement_ids


def _next_keys(model: type[Model], count: int) -> list[int]:
    """``count`` new keys from the table's own sequence, as its inserts would take them."""
    with connection.cursor() as cursor:
        # The sequence named once (per row it is a catalogue lookup), the keys as one array.
        cursor.execute(
            "SELECT array_agg(nextval(sequence.id)) FROM generate_series(1, %s),"
            " (SELECT pg_get_serial_sequence(%s, 'id')::regclass AS id) AS sequence",
            [count, model._meta.db_table],
        )
        return cursor.fetchone()[0]


def store_rows(
    model: type[Model], columns: tuple[str, ...], rows: Iterable[tuple], *, plain: bool = False
) -> None:
    """Insert ``rows`` (values in the order of ``columns``, JSON columns as Python values) into the
    model's table: by COPY on PostgreSQL, by ``bulk_create`` elsewhere. Fields left out take the
    database's default (a key from its sequence); Django's defaults and ``auto_now`` are not applied.
    ``plain``: every value is already Python's own int, float, str or None (a run's millions of
    lines), so none is prepared as Django would."""
    if connection.vendor != "postgresql":
        model._default_manager.bulk_create(
            (model(**dict(zip(columns, row, strict=True))) for row in rows), batch_size=5000
        )
        return
    fields = [model._meta.get_field(column) for column in columns]
    concrete = [field for field in fields if isinstance(field, Field)]
    assert len(concrete) == len(fields), f"{columns}: only a model's own columns can be stored"
    if plain:
        _copy(model, tuple(str(field.column) for field in concrete), rows)
        return
    # As Django prepares a value (NumPy's integers become ints), JSON as its text.
    prepare = [json.dumps if isinstance(field, JSONField) else field.get_prep_value for field in concrete]
    prepared = (tuple(p(value) for p, value in zip(prepare, row, strict=True)) for row in rows)
    _copy(model, tuple(str(field.column) for field in concrete), prepared)


def _copy(model: type[Model], columns: tuple[str, ...], rows: Iterable[tuple]) -> None:
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    # Errors (a unique constraint) reach the caller as Django's, as from any statement.
    with (
        connection.wrap_database_errors,
        connection.cursor() as cursor,
        cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy,
    ):
        for row in rows:
            copy.write_row(row)


def _bulk_created(project_id: int, judgements: Sequence[NewJudgement]) -> list[int]:
    now = timezone.now()
    leases = Assignment.objects.bulk_create(
        Assignment(
            task_id=j.task_id,
            annotator_id=j.annotator_id,
            status=Assignment.Status.SUBMITTED,
            expires_at=now,
        )
        for j in judgements
    )
    stored = Judgement.objects.bulk_create(
        Judgement(
            project_id=project_id,
            task_id=j.task_id,
            annotator_id=j.annotator_id,
            assignment=lease,
            label=j.answer.get("label"),
            answer=j.answer,
            seconds_spent=j.seconds,
            seconds_on_task=j.seconds,
        )
        for j, lease in zip(judgements, leases, strict=True)
    )
    JudgementRevision.objects.bulk_create(
        JudgementRevision(judgement=j, number=1, label=j.label, answer=j.answer) for j in stored
    )
    return [j.pk for j in stored]
