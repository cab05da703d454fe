"""What changed between two ground-truth snapshots: labels changed, tasks added, tasks removed."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SnapshotDiff:
    """Differences from an older to a newer snapshot, each list sorted by task key.

    ``changed`` holds ``(task, old_label, new_label)``; ``added`` and ``removed`` hold
    ``(task, label)`` for tasks present in only the newer or only the older snapshot.
    """

    changed: list[tuple[Hashable, int, int]] = field(default_factory=list)
    added: list[tuple[Hashable, int]] = field(default_factory=list)
    removed: list[tuple[Hashable, int]] = field(default_factory=list)
    unchanged_count: int = 0


def diff_labels(old: Mapping[Hashable, int], new: Mapping[Hashable, int]) -> SnapshotDiff:
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


def diff_snapshots(old, new) -> SnapshotDiff:
    """Diff two ``GroundTruthSnapshot`` rows by task id (one query per snapshot)."""
    old_labels = dict(old.labels.values_list("task_id", "label"))
    new_labels = dict(new.labels.values_list("task_id", "label"))
    return diff_labels(old_labels, new_labels)
