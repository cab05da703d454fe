"""The item browser's ground-truth side: what the newest snapshot made of each item (its aggregate
label, confidence and how it was adjudicated), beside what ``annotation.items.browser`` says of its
judgements. One place for the pages and the API; nothing is computed here, only read.

The browser belongs to ``evaluation`` for the reason the project page does: it shows both sides of
an item (its judgements, collected by ``annotation``, and its ground truth, derived here), and only
this side may import the other. The filters and the facts of judgements stay in
``annotation.items.browser``, next to the data they read, so that page and API filter alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from annotation.models import Project, Task
from evaluation.ground_truth.ties import describe_state
from evaluation.models import GroundTruthSnapshot, SnapshotLabel


def newest_snapshot(project: Project) -> GroundTruthSnapshot | None:
    return (
        (GroundTruthSnapshot.objects.filter(project=project).defer("annotator_report", "agreement"))
        .order_by("-version")
        .first()
    )


def snapshot_labels(
    snapshot: GroundTruthSnapshot | None, task_ids: Iterable[int]
) -> dict[int, SnapshotLabel]:
    """The snapshot's label row of each of these tasks that it has."""
    if snapshot is None:
        return {}
    return {
        row.task_id: row
        for row in SnapshotLabel.objects.filter(snapshot=snapshot, task_id__in=list(task_ids))
    }


def ground_truth_of(
    project: Project, snapshot: GroundTruthSnapshot | None, task_ids: list[int]
) -> dict[int, dict[str, Any]]:
    """Each of these items' ground truth in the snapshot (``aggregate_of``), for those it has."""
    version = snapshot.version if snapshot else None
    return {
        task: aggregate_of(project, row, version) for task, row in snapshot_labels(snapshot, task_ids).items()
    }


def label_name(project: Project, label: int | None) -> str:
    """A label as the project calls it ("relevant"), or the number if it has no name."""
    if label is None:
        return "—"
    return str(project.type.label_names(project.config).get(label, label))


def aggregate_of(project: Project, row: SnapshotLabel, version: int | None) -> dict[str, Any]:
    """An item's ground truth in a snapshot, for pages and API: label (and its name), confidence,
    judgements counted, how it was adjudicated, and the crowd's aggregate a decision replaced."""
    return {
        "version": version,
        "label": row.label,
        "label_name": label_name(project, row.label) if project.has_labels else None,
        "confidence": row.confidence,
        "judgement_count": row.judgement_count,
        "adjudicated_by": row.adjudicated_by or None,
        "aggregate_label": row.aggregate_label,
        "aggregate_label_name": label_name(project, row.aggregate_label)
        if row.aggregate_label is not None
        else None,
        "adjudication": row.adjudication or None,
        "adjudicated_at": adjudicated_at(row.adjudication),
        "details": row.details if project.is_rating else None,
        "summary": rating_summary(row.details) if project.is_rating else label_name(project, row.label),
        "tie": row.tie or None,
        "tie_in_words": describe_state(row.tie) if row.tie else None,
    }


def adjudicated_at(adjudication: dict) -> datetime | None:
    """When the item was adjudicated (the snapshot keeps it as ISO 8601 text)."""
    try:
        return datetime.fromisoformat(adjudication["at"])
    except (KeyError, TypeError, ValueError):
        return None


def rating_summary(details: dict) -> str:
    """A rated item's medians per dimension, in words: "quality 4, coherence 3.5 (medians)"."""
    medians = [
        f"{dimension} {figures['median']:g}"
        for dimension, figures in details.items()
        if isinstance(figures.get("median"), int | float)
    ]
    return f"{', '.join(medians)} (medians)" if medians else "—"


def referral_of(task: Task) -> dict[str, Any] | None:
    """Where the project's adjudication or tie rule sent the item, if it did, when and why."""
    if not task.referred_to:
        return None
    return {"to": task.referred_to, "at": task.referred_at, "reason": task.referral_reason or "disputed"}
