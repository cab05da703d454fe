"""Assessor quality (gold, agreement with the aggregate against scikit-learn, Dawid-Skene's
confusion matrices against crowd-kit) and Likert summaries against NumPy, SciPy and pandas."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from crowdkit.aggregation import DawidSkene
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.quality.annotators import (
    agreement_with_aggregate,
    annotator_quality,
    dawid_skene_annotators,
)
from annotation.crowd.ratings.summaries import summarise_likert

# Five items; "good" agrees with the truth, "bad" answers the opposite, "odd" agrees half the time.
TRUTH = {1: 1, 2: 0, 3: 1, 4: 0, 5: 1}
LABELS = (
    [(i, "good", t) for i, t in TRUTH.items()]
    + [(i, "also_good", t) for i, t in TRUTH.items()]
    + [(i, "bad", 1 - t) for i, t in TRUTH.items()]
)


def test_an_annotator_below_the_gold_threshold_is_flagged_and_listed_first():
    rows = annotator_quality(LABELS, majority_vote(LABELS), gold={1: 1, 2: 0}, threshold=0.7)
    assert rows[0].annotator == "bad" and rows[0].flagged and rows[0].gold_accuracy == 0.0
    good = next(row for row in rows if row.annotator == "good")
    assert (good.flagged, good.gold_accuracy, good.agreement_with_aggregate, good.gold_answered) == (
        False,
        1.0,
        1.0,
        2,
    )


def test_without_gold_the_agreement_with_the_aggregate_decides_and_times_are_summarised():
    seconds = {(i, "good"): s for i, s in zip(TRUTH, [3, 5, 4, 10, 2], strict=True)}
    rows = {row.annotator: row for row in annotator_quality(LABELS, dawid_skene(LABELS), seconds=seconds)}
    assert rows["bad"].flagged and not rows["good"].flagged
    assert rows["good"].median_seconds == 4
    assert rows["good"].reliability > 0.9 > 0.1 > rows["bad"].reliability


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 9), st.sampled_from("abcd"), st.integers(0, 2)),
        min_size=1,
        max_size=60,
        unique_by=lambda triple: triple[:2],  # one label per (item, annotator): encode's rule
    )
)
def test_agreement_with_the_aggregate_is_scikit_learns_kappa_per_annotator(triples):
    aggregate = majority_vote(triples)
    rows = {row["annotator"]: row for row in agreement_with_aggregate(triples, aggregate)}
    for annotator in {a for _, a, _ in triples}:
        given_labels = [(label, aggregate.labels[item]) for item, a, label in triples if a == annotator]
        mine, theirs = zip(*given_labels, strict=True)
        row = rows[annotator]
        assert row["n_labels"] == len(given_labels)
        assert row["agreement"] == pytest.approx(np.mean(np.equal(mine, theirs)))
        if len(set(mine) | set(theirs)) < 2:
            assert row["kappa"] is None
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = cohen_kappa_score(mine, theirs)
            assert row["kappa"] == pytest.approx(expected, abs=1e-12)


def test_dawid_skene_confusion_matrices_are_json_ready_and_match_the_reliability(data_set):
    from annotation.crowd.io.labels import read_labels

    labels = list(read_labels(data_set("crowd_snow2008") / "rte_labels.csv"))
    result = dawid_skene(labels)
    report = dawid_skene_annotators(result)
    assert json.loads(json.dumps(report)) == report
    assert report["classes"] == [0, 1] and sum(report["priors"]) == pytest.approx(1)
    assert len(report["annotators"]) == 164
    assert sum(row["n_labels"] for row in report["annotators"]) == len(labels)
    for row in report["annotators"]:
        assert np.allclose(np.sum(row["confusion"], axis=1), 1)
        assert row["reliability"] == pytest.approx(
            result.parameters["annotator_reliability"][row["annotator"]]
        )
    # crowd-kit's estimates of the same model (no smoothing): the busy annotators' matrices agree.
    frame = pd.DataFrame(labels, columns=["task", "worker", "label"])
    kit = DawidSkene(n_iter=100).fit(frame)
    busy = [row for row in report["annotators"] if row["n_labels"] >= 200]
    assert busy
    for row in busy:
        theirs = kit.errors_.loc[row["annotator"]]  # index: given label, columns: true label
        assert np.allclose(np.array(row["confusion"]).T, theirs.loc[[0, 1], [0, 1]].to_numpy(), atol=0.02)
    with pytest.raises(ValueError, match="Dawid-Skene"):
        dawid_skene_annotators(majority_vote(labels))


def test_likert_summaries_per_dimension():
    answers = [
        ("a", "w1", {"fluency": 4, "relevance": 2}),
        ("a", "w2", {"fluency": 5, "relevance": 2}),
        ("a", "w3", {"fluency": 3, "relevance": 2}),
        ("b", "w1", {"fluency": 1, "relevance": 5}),
    ]
    summary = summarise_likert(answers, scale=(1, 5))
    fluency = summary["a"].dimensions["fluency"]
    assert (fluency.mean, fluency.median, fluency.n) == (4.0, 4.0, 3)
    assert fluency.std == pytest.approx(np.std([4, 5, 3]))
    assert fluency.confidence == pytest.approx(1 - np.std([4, 5, 3]) / 2)
    assert summary["a"].dimensions["relevance"].confidence == 1.0
    assert summary["a"].confidence == pytest.approx((fluency.confidence + 1) / 2)
    assert summary["b"].confidence == 1.0
    with pytest.raises(ValueError, match="dimension 'relevance' is outside the scale"):
        summarise_likert([("a", "w", {"relevance": 9})])


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(1, 7), st.integers(1, 7)), min_size=1, max_size=80),
)
def test_likert_figures_equal_numpy_scipy_and_pandas(rows):
    answers = [(item, f"w{n}", {"quality": q, "style": s}) for n, (item, q, s) in enumerate(rows)]
    summary = summarise_likert(answers, scale=(1, 7))
    frame = pd.DataFrame(rows, columns=["item", "quality", "style"])
    for item, group in frame.groupby("item"):
        for dimension in ("quality", "style"):
            values = group[dimension].to_numpy(dtype=float)
            figures = summary[item].dimensions[dimension]
            assert figures.mean == pytest.approx(np.mean(values))
            assert figures.median == pytest.approx(np.median(values))
            assert figures.std == pytest.approx(np.std(values))
            assert figures.iqr == pytest.approx(stats.iqr(values))
            assert figures.mad == pytest.approx(stats.median_abs_deviation(values))
            assert 0 <= figures.confidence <= 1
        assert summary[item].n == len(group)
