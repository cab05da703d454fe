"""The per-annotator tables of a snapshot's report agree with scikit-learn: confusion against the
aggregate, Likert agreement with the median, the busiest annotators."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix

from annotation.crowd.io.encoding import encode
from annotation.crowd.quality.annotators import (
    busiest,
    confusion_against_aggregate,
    rating_agreement_with_aggregate,
)

# (item, annotator, label) with each annotator labelling an item at most once.
triples = st.dictionaries(
    st.tuples(st.integers(0, 25), st.sampled_from(["ann", "bob", "cy", 7, 8])), st.integers(0, 3), max_size=80
).map(lambda cells: [(item, annotator, label) for (item, annotator), label in cells.items()])


def test_worked_example():
    labels = [(1, "a", 1), (2, "a", 0), (3, "a", 1), (1, "b", 0), (2, "b", 0), (4, "b", 1)]
    aggregate = {1: 1, 2: 0, 3: 0}  # item 4 has no aggregate label and is not counted
    matrices = confusion_against_aggregate(labels, aggregate, [0, 1])
    assert matrices == {"a": [[1, 1], [0, 1]], "b": [[1, 0], [1, 0]]}


@settings(max_examples=150, deadline=None)
@given(triples, st.dictionaries(st.integers(0, 25), st.integers(0, 3)))
def test_each_annotators_matrix_is_scikit_learns_confusion_matrix(labels, aggregate):
    classes = [0, 1, 2, 3]
    matrices = confusion_against_aggregate(labels, aggregate, classes)
    assert set(matrices) == {annotator for _, annotator, _ in labels}
    assert matrices == confusion_against_aggregate(encode(labels), aggregate, classes)
    for annotator, matrix in matrices.items():
        mine = [(aggregate[item], label) for item, a, label in labels if a == annotator and item in aggregate]
        if not mine:
            assert np.asarray(matrix).sum() == 0
            continue
        truth, given_labels = zip(*mine, strict=True)
        expected = confusion_matrix(truth, given_labels, labels=classes)
        assert np.array_equal(np.asarray(matrix), expected)


def test_labels_outside_the_classes_are_not_counted():
    matrices = confusion_against_aggregate([(1, "a", 9), (2, "a", 1)], {1: 1, 2: 1}, [0, 1])
    assert matrices == {"a": [[0, 0], [0, 1]]}


def test_no_labels_give_no_matrices():
    assert confusion_against_aggregate([], {1: 0}, [0, 1]) == {}


def test_likert_agreement_is_within_the_tolerance_on_every_dimension():
    ratings = [
        ("x", "a", {"fluency": 4, "coherence": 2}),  # |4-4|=0, |2-4|=2 > 1: disagrees
        ("y", "a", {"fluency": 3, "coherence": 3}),  # within 1 on both: agrees
        ("z", "a", {"fluency": 1, "coherence": 1}),  # no median for z: skipped
        ("x", "b", {"fluency": 5, "coherence": 5}),  # 1 and 1: agrees
    ]
    medians = {"x": {"fluency": 4.0, "coherence": 4.0}, "y": {"fluency": 2.5, "coherence": 3.5}}
    result = rating_agreement_with_aggregate(ratings, medians, tolerance=1)
    assert result["a"]["agreed"] == 1 and result["a"]["compared"] == 2
    assert result["a"]["mean_abs_deviation"] == pytest.approx({"fluency": 0.25, "coherence": 1.25})
    deviation = {"fluency": 1.0, "coherence": 1.0}
    assert result["b"] == {"agreed": 1, "compared": 1, "mean_abs_deviation": deviation}


def test_busiest_annotators_come_first_with_ties_in_text_order():
    assert busiest({"b": 3, "a": 3, "c": 9, "d": 1}, 3) == ["c", "a", "b"]
