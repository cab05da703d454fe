"""A project's judgements as downloads (CSV, JSONL), for the researcher's page and the API alike."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator

from django.db.models import QuerySet
from django.http import StreamingHttpResponse

from annotation.items.inputs import spreadsheet_safe
from annotation.models import Judgement, JudgementRevision, Project

JUDGEMENT_COLUMNS = [
    "judgement_id",
    "task_id",
    "kind",
    "topic",
    "document",
    "document_b",
    "annotator",
    "label",
    "answer",
    "revision",
    "seconds_spent",
    "seconds_on_task",
    "created_at",
    "updated_at",
]


# Columns of text someone else typed (ids, usernames, answers): escaped so no spreadsheet runs them.
TEXT_COLUMNS = {"kind", "topic", "document", "document_b", "annotator", "answer"}


def judgement_records(project: Project, *, every_version: bool = False) -> Iterator[dict]:
    """Every judgement of the project with who judged what and when, in submission order.

    With ``every_version`` each correction is a row of its own (the first answer is revision 1):
    ``label``, ``answer`` and ``revision`` are that version's, and ``updated_at`` is when it was written.
    """
    judgement = "judgement__" if every_version else ""
    fields = [
        f"{judgement}id",
        f"{judgement}task_id",
        f"{judgement}task__kind",
        f"{judgement}task__topic__external_id",
        f"{judgement}task__document__external_id",
        f"{judgement}task__document_b__external_id",
        f"{judgement}annotator__username",
        "label",
        "answer",
        "number" if every_version else "revision",
        f"{judgement}seconds_spent",
        f"{judgement}seconds_on_task",
        f"{judgement}created_at",
        "created_at" if every_version else "updated_at",
    ]
    rows: QuerySet
    if every_version:
        rows = JudgementRevision.objects.filter(judgement__project=project).order_by("judgement_id", "number")
    else:
        rows = Judgement.objects.filter(project=project).order_by("id")
    for row in rows.values_list(*fields).iterator(chunk_size=2000):
        record = dict(zip(JUDGEMENT_COLUMNS, row, strict=True))
        record["created_at"] = record["created_at"].isoformat()
        record["updated_at"] = record["updated_at"].isoformat()
        yield record


class _Echo:
    def write(self, value: str) -> str:
        return value


def judgements_response(project: Project, fmt: str, *, every_version: bool) -> StreamingHttpResponse:
    """The project's judgements streamed as CSV or JSONL (the page's download and the API's)."""
    records = judgement_records(project, every_version=every_version)
    if fmt == "csv":
        writer = csv.writer(_Echo())

        def lines() -> Iterator[str]:
            yield writer.writerow(JUDGEMENT_COLUMNS)
            for record in records:
                record["answer"] = json.dumps(record["answer"], ensure_ascii=False)
                yield writer.writerow(
                    [
                        spreadsheet_safe(record[column]) if column in TEXT_COLUMNS else record[column]
                        for column in JUDGEMENT_COLUMNS
                    ]
                )

        response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    else:
        response = StreamingHttpResponse(
            (json.dumps(record, ensure_ascii=False) + "\n" for record in records),
            content_type="application/x-ndjson; charset=utf-8",
        )
    response["Content-Disposition"] = f'attachment; filename="project{project.pk}-judgements.{fmt}"'
    return response
