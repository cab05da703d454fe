"""Fleiss' kappa equals statsmodels' and the published figure; majority vote with named tie rules;
the three input forms (triples, DataFrame, encoded columns) give the same results."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.agreement.fleiss import fleiss_kappa
from annotation.crowd.io.encoding import encode

# Fleiss (1971): 30 patients, each diagnosed by 6 psychiatrists into 5 categories; the published
# kappa is 0.430 (R irr::kappam.fleiss gives 0.4302445). Rows list the 6 diagnoses, as in
# statsmodels' own test suite (statsmodels/stats/tests/test_inter_rater.py, ``diagnoses``).
FLEISS_1971 = [
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5], [2, 2, 2, 4, 4, 4],
    [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4], [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5],
    [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4], [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5],
    [3, 3, 3, 3, 3, 5], [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4], [1, 4, 4, 4, 4, 5],
    [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
]  # fmt: skip


def test_fleiss_1971_psychiatric_diagnoses_give_0_430():
    triples = [
        (item, f"slot{slot}", label) for item, row in enumerate(FLEISS_1971) for slot, label in enumerate(row)
    ]
    result = fleiss_kappa(triples)
    assert result.value == pytest.approx(0.4302445, abs=1e-7)
    assert (result.n_items, result.n_items_excluded) == (30, 0)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda n: st.lists(st.lists(st.integers(0, 3), min_size=n, max_size=n), min_size=2, max_size=30)
    )
)
def test_fleiss_equals_statsmodels_on_generated_tables(rows):
    triples = [
        (item, annotator, label) for item, row in enumerate(rows) for annotator, label in enumerate(row)
    ]
    table, _ = aggregate_raters(np.array(rows))
    with np.errstate(all="ignore"):
        expected = sm_fleiss(table)
    result = fleiss_kappa(triples)
    if np.isnan(expected):
        assert result.value is None
    else:
        assert result.value == pytest.approx(expected, abs=1e-12)
    assert result.n_items == len(rows)


def test_unbalanced_items_use_the_most_common_rating_count_and_say_so():
    triples = [(1, "a", 1), (1, "b", 1), (1, "c", 0), (2, "a", 0), (2, "b", 0), (2, "c", 0), (3, "a", 1)]
    result = fleiss_kappa(triples)
    assert (result.n_items, result.n_items_excluded, result.n_annotators) == (2, 1, 3)


def test_majority_vote_names_ties_and_breaks_them_by_rule():
    triples = [(1, "a", 1), (1, "b", 1), (1, "c", 0), (2, "a", 0), (2, "b", 1)]
    smallest = majority_vote(triples)
    assert smallest.labels == {1: 1, 2: 0}
    assert smallest.confidence == {1: pytest.approx(2 / 3), 2: 0.5}
    assert smallest.ties == [2]
    assert majority_vote(triples, tie_rule="largest").labels[2] == 1
    with pytest.raises(ValueError, match="tie_rule"):
        majority_vote(triples, tie_rule="coin")


def test_triples_a_dataframe_and_encoded_columns_aggregate_alike():
    triples = [(i, f"w{(3 * i + k) % 7}", (i + k * (i % 3)) % 3) for i in range(60) for k in range(4)]
    frame = pd.DataFrame(triples, columns=["task", "worker", "label"])
    by_triples, by_frame = dawid_skene(triples), dawid_skene(frame)
    assert by_triples.labels == by_frame.labels == dawid_skene(encode(triples)).labels
    assert by_triples.confidence == pytest.approx(by_frame.confidence)
    assert majority_vote(frame.rename(columns={"task": "item"})).labels == majority_vote(triples).labels


def test_encoding_keeps_label_types_and_orders_numbers_first():
    data = encode([("a", "w1", "yes"), ("a", "w2", 2), ("b", "w1", 1.5), ("b", "w2", "no")])
    assert data.classes == [1.5, 2, "no", "yes"]
    assert data.items == ["a", "b"] and data.annotators == ["w1", "w2"]
    assert data.triples() == [("a", "w1", "yes"), ("a", "w2", 2), ("b", "w1", 1.5), ("b", "w2", "no")]
    assert encode([(1, 2, 3)]).classes == [3]
    with pytest.raises(ValueError, match="missing"):
        encode(pd.DataFrame({"item": [1], "label": [0]}))
    with pytest.raises(ValueError, match="no labels"):
        majority_vote([])
