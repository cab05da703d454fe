"""Set measures: the lecture's worked example, and scikit-learn on generated labelings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, confusion_matrix, fbeta_score, precision_score, recall_score

from evaluation.metrics.sets import (
    ConfusionMatrix,
    accuracy,
    f_beta,
    fallout,
    miss_rate,
    precision,
    recall,
    specificity,
)


def test_the_lecture_example_20_true_and_10_false_positives():
    # 30 retrieved, 20 relevant among them; 60 relevant in all; a collection of 1000.
    m = ConfusionMatrix(tp=20, fp=10, fn=40, tn=930)
    assert round(precision(m), 3) == 0.667
    assert round(recall(m), 3) == 0.333
    assert f_beta(m) == pytest.approx(2 * (2 / 3) * (1 / 3) / (2 / 3 + 1 / 3))
    assert accuracy(m) == pytest.approx(950 / 1000)
    assert specificity(m) == pytest.approx(930 / 940)
    assert fallout(m) == pytest.approx(10 / 940)
    assert miss_rate(m) == pytest.approx(40 / 60)


def test_from_sets_counts_and_needs_the_collection_for_true_negatives():
    m = ConfusionMatrix.from_sets({"a", "b", "c"}, {"b", "c", "d", "e"}, collection_size=10)
    assert m == ConfusionMatrix(tp=2, fp=1, fn=2, tn=5)
    with pytest.raises(ValueError, match="smaller than"):
        ConfusionMatrix.from_sets({"a"}, {"b"}, collection_size=1)


def test_empty_denominators_give_zero():
    empty = ConfusionMatrix(0, 0, 0, 0)
    assert precision(empty) == recall(empty) == f_beta(empty) == accuracy(empty) == 0.0


@settings(max_examples=300, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60),
    beta=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.7]),
)
def test_equal_to_scikit_learn(pairs, beta):
    truth = [int(t) for t, _ in pairs]
    predicted = [int(p) for _, p in pairs]
    tn, fp, fn, tp = confusion_matrix(truth, predicted, labels=[0, 1]).ravel()
    m = ConfusionMatrix(int(tp), int(fp), int(fn), int(tn))
    assert precision(m) == pytest.approx(precision_score(truth, predicted, zero_division=0))
    assert recall(m) == pytest.approx(recall_score(truth, predicted, zero_division=0))
    assert f_beta(m, beta) == pytest.approx(fbeta_score(truth, predicted, beta=beta, zero_division=0))
    assert accuracy(m) == pytest.approx(accuracy_score(truth, predicted))
    assert specificity(m) == pytest.approx(recall_score(truth, predicted, pos_label=0, zero_division=0))
