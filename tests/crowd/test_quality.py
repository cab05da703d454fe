"""Assessor quality flags and Likert summaries."""

from __future__ import annotations

import numpy as np
import pytest

from annotation.crowd.aggregation import dawid_skene, majority_vote
from annotation.crowd.quality import assessor_quality, summarise_ratings, without_workers

# Five items; "good" agrees with the truth, "bad" answers the opposite, "odd" agrees half the time.
TRUTH = {1: 1, 2: 0, 3: 1, 4: 0, 5: 1}
LABELS = (
    [(i, "good", t) for i, t in TRUTH.items()]
    + [(i, "also_good", t) for i, t in TRUTH.items()]
    + [(i, "bad", 1 - t) for i, t in TRUTH.items()]
)


def test_a_worker_below_the_gold_threshold_is_flagged_and_listed_first():
    rows = assessor_quality(LABELS, majority_vote(LABELS), gold={1: 1, 2: 0}, threshold=0.7)
    assert rows[0].worker == "bad" and rows[0].flagged and rows[0].gold_accuracy == 0.0
    good = next(row for row in rows if row.worker == "good")
    assert (good.flagged, good.gold_accuracy, good.agreement_with_aggregate, good.gold_answered) == (
        False,
        1.0,
        1.0,
        2,
    )


def test_without_gold_the_agreement_with_the_aggregate_decides_and_times_are_summarised():
    seconds = {(i, "good"): s for i, s in zip(TRUTH, [3, 5, 4, 10, 2], strict=True)}
    rows = {row.worker: row for row in assessor_quality(LABELS, dawid_skene(LABELS), seconds=seconds)}
    assert rows["bad"].flagged and not rows["good"].flagged
    assert rows["good"].median_seconds == 4
    assert rows["good"].reliability > 0.9 > 0.1 > rows["bad"].reliability


def test_blocked_workers_are_left_out():
    assert {w for _, w, _ in without_workers(LABELS, ["bad"])} == {"good", "also_good"}


def test_likert_summaries():
    ratings = [("a", "w1", 4), ("a", "w2", 5), ("a", "w3", 3), ("b", "w1", 1), ("b", "w2", 1)]
    summary = summarise_ratings(ratings, scale=(1, 5))
    assert summary["a"].mean == pytest.approx(4.0)
    assert summary["a"].median == 4.0
    assert summary["a"].std == pytest.approx(np.std([4, 5, 3]))
    assert summary["a"].confidence == pytest.approx(1 - np.std([4, 5, 3]) / 2)
    assert summary["b"].confidence == 1.0 and summary["b"].n == 2
    with pytest.raises(ValueError, match="outside the scale"):
        summarise_ratings([("a", "w", 7)])
