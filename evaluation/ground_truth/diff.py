"""What changed between two ground-truth snapshots: labels (or rating medians) changed, items added or
removed."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SnapshotDiff:
    """Differences from an older to a newer snapshot, each list sorted by task key.

    ``changed`` holds ``(task, old_label, new_label)``; ``added`` and ``removed`` hold
    ``(task, label)`` for tasks present in only the newer or only the older snapshot.
    """

    changed: list[tuple[Hashable, Any, Any]] = field(default_factory=list)
    added: list[tuple[Hashable, Any]] = field(default_factory=list)
    removed: list[tuple[Hashable, Any]] = field(default_factory=list)
    unchanged_count: int = 0


def diff_labels(old: Mapping[Hashable, Any], new: Mapping[Hashable, Any]) -> SnapshotDiff:
    """Compare two ``task -> label`` maps (older snapshot first).

    Parameters: ``old`` and ``new`` map a task key (any sortable hashable, e.g. a task id) to its
    aggregated label. Returns a :class:`SnapshotDiff`; confidence changes alone are not a change,
    because the diff answers "would the qrels differ".
    """
    changed = [(task, old[task], new[task]) for task in old.keys() & new.keys() if old[task] != new[task]]
    added = [(task, new[task]) for task in new.keys() - old.keys()]
    removed = [(task, old[task]) for task in old.keys() - new.keys()]
    unchanged = len(old.keys() & new.keys()) - len(changed)
    return SnapshotDiff(sorted(changed), sorted(added), sorted(removed), unchanged)


def rating_medians(details: Mapping[str, Mapping[str, float]]) -> str:
    """What a rating snapshot's diff compares for one item: its medians ("coherence 3.5, fluency 4")."""
    return ", ".join(f"{dimension} {figures['median']:g}" for dimension, figures in sorted(details.items()))


def snapshot_values(snapshot) -> dict:
    """``task id -> what the diff compares``: the label, or for a rating snapshot the medians."""
    if snapshot.project.is_rating:
        return {
            task: rating_medians(details)
            for task, details in snapshot.labels.values_list("task_id", "details")
        }
    return dict(snapshot.labels.values_list("task_id", "label"))


def diff_snapshots(old, new) -> SnapshotDiff:
    """Diff two ``GroundTruthSnapshot`` rows of one project by task id (one query per snapshot).

    The one rule for the page and the API: label projects compare labels, rating projects each
    item's median per dimension.
    """
    return diff_labels(snapshot_values(old), snapshot_values(new))
