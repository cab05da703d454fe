"""Build a versioned ground-truth snapshot from a project's judgements, in the order data flows, so that
the heavy computation never runs inside a transaction and its progress can be committed (and seen by
other connections) as it goes:

1. **read** the inputs (no locks) and fingerprint exactly what was read (``read``);
2. **compute** agreement, aggregation and the annotator report with the pure functions of
  ``annotation.crowd`` (on labels encoded once), reporting progress (``compute``);
3. **write** the snapshot in one short transaction that locks the project's snapshot writes and checks
  again that no other run has written these inputs, or newer ones, meanwhile (``write``)."""

from __future__ import annotations

from collections.abc import Callable

from evaluation.ground_truth.compute import (
    Progress,
    compute_labels,
    compute_ratings,
    no_progress,
)
from evaluation.ground_truth.read import read_inputs
from evaluation.ground_truth.write import write_snapshot
from evaluation.models import GroundTruthSnapshot


def build_snapshot(
    project_id: int,
    *,
    method: str | None = None,
    tie_rule: str | None = None,
    progress: Progress = no_progress,
    still_wanted: Callable[[], None] = lambda: None,
) -> GroundTruthSnapshot | None:
    """Write a new snapshot for the project, or return ``None`` if there is nothing new to write.

    1. Read the judgements of the project's items (minus blocked annotators' when the project
       excludes them) and, for the gold-weighted vote, the first answers to gold items. Stop if
       there are none, or if the newest snapshot's fingerprint equals these inputs'.
    2. Label tasks (binary, graded, pairwise): agreement figures, the aggregate label per item
       (``method``, default the project's own: majority vote, Dawid–Skene or gold-weighted vote;
       majority vote's ties by ``tie_rule``, default the project's, see ``vote_tie_rule``) and the
       annotator report; a researcher's decision in force replaces an item's aggregate, every
       adjudicated item says how (``adjudicated_labels``) and every tied item how its tie was
       settled or that it waits (``ties.tie_states``). Rating tasks: per dimension
       mean, median and dispersion, interval agreement. Free-text tasks have nothing to aggregate
       and get no snapshot.
    3. Store the snapshot and one row per judged item, unless another run wrote the same or newer
       inputs meanwhile (see ``write_snapshot``). Safe to run twice at once: one snapshot results.

    ``progress(stage, share)`` is called as the work advances, outside any transaction, and last
    with the reason when nothing is written; ``still_wanted()`` in the writing transaction, and
    raises if nothing may be written (the job was cancelled meanwhile).
    """
    progress("loading judgements", 0.05)
    inputs = read_inputs(project_id, method, tie_rule)
    if isinstance(inputs, str):
        progress(inputs, 1.0)
        return None
    computed = (
        compute_ratings(inputs, progress) if inputs.project.is_rating else compute_labels(inputs, progress)
    )
    progress(f"writing version {inputs.latest_version + 1} ({len(computed.labels)} items)", 0.9)
    written = write_snapshot(inputs, computed, still_wanted)
    if isinstance(written, str):
        progress(written, 1.0)
        return None
    progress(f"wrote version {written.version}", 1.0)
    return written
