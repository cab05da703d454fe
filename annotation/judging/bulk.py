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
    stage(
        staged_line(j.task_id, j.annotator_id, j.answer.get("label"), json.dumps(j.answer), j.seconds)
        for j in judgements
    )
    return insert_staged(project_id, timezone.now(), keys=True)


# -- staged: the judgements by COPY into a temporary table, the three rows each by set-based SQL ---

STAGE = "judgement_stage"
# A staged judgement: its task, annotator, label, the answer as JSON text, and the seconds taken
# (spent and on task); then its three keys, drawn by the COPY from the tables' sequences.
STAGE_COLUMNS = ("task_id", "annotator_id", "label", "answer", "seconds")


def staged_line(
    task_id: int, annotator_id: int, label: int | None, answer: str, seconds: float | None
) -> str:
    """One line of ``stage``'s COPY text (``answer`` is ``json.dumps``'s text: ``copy_text`` of it)."""
    return (
        f"{task_id}\t{annotator_id}\t{NULL if label is None else label}\t{copy_text(answer)}"
        f"\t{NULL if seconds is None else repr(float(seconds))}\n"
    )


NULL = "\\N"


def copy_text(json_text: str) -> str:
    """``json.dumps``'s text (ASCII, control characters escaped) as a value of COPY's text format:
    only its backslashes need doubling."""
    return json_text.replace("\\", "\\\\") if "\\" in json_text else json_text


def stage(lines: Iterable[str]) -> None:
    """The judgements to store (``staged_line``s, in order) by one COPY into a temporary table that
    lives until the transaction ends. Each row's three keys (lease, judgement, revision) are its
    columns' defaults, drawn from the tables' own sequences as COPY reads the rows: in the lines'
    order, as ``_bulk_created``'s inserts take them.

    JIT compilation is switched off for the rest of the transaction: the statements that read the
    table are estimated (it is not analysed, which cost 0.1 s a call) at costs that make PostgreSQL
    compile them, 0.3–0.4 s each, for work of a few hundred milliseconds."""
    assert connection.in_atomic_block, "the staged rows live until the transaction ends"
    sequences = _sequences()
    columns = ", ".join(
        [
            "task_id bigint, annotator_id bigint, label smallint, answer jsonb, seconds float8",
            *(
                f"{key} bigint DEFAULT nextval('{sequences[model]}'::regclass)"
                for key, model in (
                    ("lease", Assignment),
                    ("judgement", Judgement),
                    ("revision", JudgementRevision),
                )
            ),
        ]
    )
    with connection.wrap_database_errors, connection.cursor() as cursor:
        cursor.execute(
            f"SET LOCAL jit = off; DROP TABLE IF EXISTS pg_temp.{STAGE};"  # never a table of the schema
            f" CREATE TEMPORARY TABLE {STAGE} ({columns}) ON COMMIT DROP"
        )
        with cursor.copy(f"COPY {STAGE} ({', '.join(STAGE_COLUMNS)}) FROM STDIN") as copy:
            chunk: list[str] = []
            for line in lines:
                chunk.append(line)
                if len(chunk) == 20_000:
                    copy.write("".join(chunk))
                    chunk.clear()
            if chunk:
                copy.write("".join(chunk))


def insert_staged(project_id: int, now, *, keys: bool) -> list[int]:
    """Store each staged judgement as submitted at ``now``, with its lease and first revision, in
    one statement. ``keys``: return the judgements' keys in the lines' order."""
    submitted = Assignment.Status.SUBMITTED.value
    values = {
        Assignment: {
            "id": "lease",
            "task_id": "task_id",
            "annotator_id": "annotator_id",
            "status": "%(submitted)s",
            "created_at": "%(now)s",
            "expires_at": "%(now)s",
            "shown_at": "NULL",
        },
        Judgement: {
            "id": "judgement",
            "project_id": "%(project)s",
            "task_id": "task_id",
            "annotator_id": "annotator_id",
            "assignment_id": "lease",
            "label": "label",
            "answer": "answer",
            "seconds_spent": "seconds",
            "seconds_on_task": "seconds",
            "revision": "1",
            "created_at": "%(now)s",
            "updated_at": "%(now)s",
        },
        JudgementRevision: {
            "id": "revision",
            "judgement_id": "judgement",
            "number": "1",
            "label": "label",
            "answer": "answer",
            "created_at": "%(now)s",
        },
    }
    for model, columns in zip(values, (ASSIGNMENT_COLUMNS, JUDGEMENT_COLUMNS, REVISION_COLUMNS), strict=True):
        assert tuple(values[model]) == columns, model
    leases, judgements, revisions = (
        f"INSERT INTO {_table(model)} ({', '.join(map(connection.ops.quote_name, columns))}) "
        f"SELECT {', '.join(columns.values())} FROM {STAGE}"
        for model, columns in values.items()
    )
    # A sequence's values rise: the judgements' keys in their order are in the lines' order.
    sql = f"""
        WITH leases AS ({leases}), judgements AS ({judgements}), revisions AS ({revisions})
        SELECT {"array_agg(judgement ORDER BY judgement)" if keys else "NULL"} FROM {STAGE}
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, {"submitted": submitted, "now": now, "project": project_id})
        return cursor.fetchone()[0] if keys else []


def _sequences() -> dict[type[Model], str]:
    """The sequences the three tables take their keys from. Named in the statement as constants:
    ``nextval`` of a name read from a joined row looks the sequence up on every call, 20 times the
    cost (0.45 s against 0.02 s for 60,000 keys)."""
    models = (Assignment, Judgement, JudgementRevision)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT " + ", ".join(["pg_get_serial_sequence(%s, 'id')"] * len(models)),
            [model._meta.db_table for model in models],
        )
        names = cursor.fetchone()
    for name in names:
        assert name and "'" not in name, name
    return dict(zip(models, names, strict=True))


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


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
