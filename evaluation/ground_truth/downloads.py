"""A snapshot's downloads (TREC qrels; rating summaries as CSV and JSON), for pages, API and CLI alike."""

from __future__ import annotations

import csv
import io
import json

from django.http import HttpResponse

from annotation.items.inputs import spreadsheet_safe
from evaluation.metrics.trec.files import Qrels, write_qrels
from evaluation.models import GroundTruthSnapshot

SUMMARY_FIELDS = ("mean", "median", "std", "iqr", "n")


def snapshot_qrels(snapshot: GroundTruthSnapshot) -> Qrels:
    """The snapshot's labelled items as qrels: ``{topic: {docno: label}}`` (unlabelled items left out),
    with the pairs only a prior set judged (``SnapshotPriorLabel``) when the project merges prior sets."""
    qrels: Qrels = {}
    rows = snapshot.labels.filter(label__isnull=False).values_list(
        "task__topic__external_id", "task__document__external_id", "label"
    )
    for topic, docno, label in rows.iterator(chunk_size=5000):
        if label is not None:  # filtered above; says so to the type checker
            qrels.setdefault(topic, {})[docno] = label
    prior_only = snapshot.prior_labels.values_list("topic__external_id", "document__external_id", "label")
    for topic, docno, label in prior_only.iterator(chunk_size=5000):
        qrels.setdefault(topic, {})[docno] = label
    return qrels


def crowd_qrels(snapshot: GroundTruthSnapshot) -> Qrels:
    """The crowd's own labels in the snapshot, as qrels: where a prior set's label was merged in, the
    crowd's label it stands beside, and no pair only a prior set judged. Equal to ``snapshot_qrels``
    for a project without prior sets."""
    qrels: Qrels = {}
    rows = snapshot.labels.filter(label__isnull=False).values_list(
        "task__topic__external_id", "task__document__external_id", "label", "crowd_label"
    )
    for topic, docno, label, crowd_label in rows.iterator(chunk_size=5000):
        own = crowd_label if crowd_label is not None else label
        if own is not None:
            qrels.setdefault(topic, {})[docno] = own
    return qrels


def qrels_text(snapshot: GroundTruthSnapshot) -> str:
    """The snapshot as TREC qrels text (``topic 0 docno label``), sorted by topic then docno; a
    pairwise project's as preferences (``preferences_text``)."""
    if snapshot.project.type.compares_two:
        return preferences_text(snapshot)
    out = io.StringIO()
    write_qrels(snapshot_qrels(snapshot), out)
    return out.getvalue()


# The query of a pairwise item that names neither a topic nor an input (one field, never empty).
NO_QUERY = "-"


def preferences_text(snapshot: GroundTruthSnapshot) -> str:
    """A pairwise snapshot as trec_eval's preference qrels (``trec_eval -R prefs``: ``qid jsg docno
    rel``): each labelled item is a judgement sub-group ``pair<task id>`` of its two documents, the
    preferred one rel 1 and the other 0. The query is the item's topic, or its input when it has no
    topic (two summaries of one source), or ``-``. Plain ``topic 0 docno label`` qrels would keep
    one document of the pair and drop the other, and write an item without a topic as ``None``."""
    rows = snapshot.labels.filter(label__isnull=False).values_list(
        "task_id",
        "task__topic__external_id",
        "task__input_id",
        "task__document__external_id",
        "task__document_b__external_id",
        "label",
    )
    lines = []
    for task, topic, input_id, first, second, label in rows.iterator(chunk_size=5000):
        query = topic or input_id or NO_QUERY
        lines.append((query, task, f"{query} pair{task} {first} {int(label == 0)}\n"))
        lines.append((query, task, f"{query} pair{task} {second} {int(label == 1)}\n"))
    return "".join(line for _, _, line in sorted(lines, key=lambda row: (row[0], row[1])))


def qrels_response(snapshot: GroundTruthSnapshot) -> HttpResponse:
    """The snapshot as a TREC qrels attachment named after its project and version."""
    body = qrels_text(snapshot)
    response = HttpResponse(body, content_type="text/plain; charset=utf-8")
    filename = f"project{snapshot.project_id}-v{snapshot.version}.qrels"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def snapshot_dimensions(snapshot: GroundTruthSnapshot, details: list[dict]) -> list[str]:
    """The rating dimensions of a snapshot, in the project's order (JSON objects keep none)."""
    present = {dimension for row in details for dimension in row}
    configured = [d for d in snapshot.project.config.get("dimensions", []) if d in present]
    return configured + sorted(present - set(configured))


def rating_summary(snapshot: GroundTruthSnapshot) -> dict:
    """A rating snapshot as JSON-ready data: per item and dimension mean, median, std, IQR and n."""
    rows = list(
        snapshot.labels.order_by("task_id").values_list(
            "task_id",
            "task__topic__external_id",
            "task__document__external_id",
            "task__document_b__external_id",
            "task__system_id",
            "task__input_id",
            "confidence",
            "judgement_count",
            "details",
        )
    )
    dimensions = snapshot_dimensions(snapshot, [row[-1] for row in rows])
    return {
        "project": snapshot.project_id,
        "version": snapshot.version,
        "signature": snapshot.signature,
        "dimensions": dimensions,
        "items": [
            {
                "task": task,
                "topic": topic,
                "document": document,
                "document_b": document_b,
                "system": system,
                "input": input_id,
                "confidence": confidence,
                "n": n,
                "scores": {d: {f: details[d][f] for f in SUMMARY_FIELDS} for d in dimensions if d in details},
            }
            for task, topic, document, document_b, system, input_id, confidence, n, details in rows
        ],
    }


def ratings_json_response(snapshot: GroundTruthSnapshot) -> HttpResponse:
    response = HttpResponse(
        json.dumps(rating_summary(snapshot), indent=1), content_type="application/json; charset=utf-8"
    )
    filename = f"project{snapshot.project_id}-v{snapshot.version}-ratings.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def ratings_csv_response(snapshot: GroundTruthSnapshot) -> HttpResponse:
    """One row per item: ids, confidence, n, then mean, median, std, IQR and n per dimension."""
    summary = rating_summary(snapshot)
    out = io.StringIO()
    writer = csv.writer(out)
    header = ["task", "topic", "document", "document_b", "system", "input", "confidence", "n"]
    header += [spreadsheet_safe(f"{d}_{f}") for d in summary["dimensions"] for f in SUMMARY_FIELDS]
    writer.writerow(header)
    for item in summary["items"]:
        row = [item["task"], spreadsheet_safe(item["topic"]), spreadsheet_safe(item["document"])]
        row += [spreadsheet_safe(item[key]) for key in ("document_b", "system", "input")]
        row += [item["confidence"], item["n"]]
        for dimension in summary["dimensions"]:
            scores = item["scores"].get(dimension, {})
            row += [scores.get(f, "") for f in SUMMARY_FIELDS]
        writer.writerow(row)
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    filename = f"project{snapshot.project_id}-v{snapshot.version}-ratings.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
