"""Per-annotator z-scores, checked against scipy.stats.zscore and a worked example."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from annotation.crowd.ratings.normalisation import NormalisationError, zscore_per_annotator


def test_worked_example_by_hand():
    # Annotator a scores 1, 2, 3: mean 2, population sd sqrt(2/3).
    result = zscore_per_annotator([("a", "x", 1), ("a", "y", 2), ("a", "z", 3), ("b", "x", 5)])
    sd = math.sqrt(2 / 3)
    assert result[("a", "x")] == pytest.approx(-1 / sd)
    assert result[("a", "y")] == pytest.approx(0.0)
    assert result[("a", "z")] == pytest.approx(1 / sd)
    # A single (hence constant) score carries no relative information.
    assert result[("b", "x")] == 0.0


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c", "d"]),
        st.lists(st.integers(min_value=1, max_value=5), min_size=2, max_size=30),
        min_size=1,
    )
)
def test_matches_scipy_zscore_per_annotator(scores_by_annotator):
    triples = [
        (annotator, index, score)
        for annotator, scores in scores_by_annotator.items()
        for index, score in enumerate(scores)
    ]
    result = zscore_per_annotator(triples)
    for annotator, scores in scores_by_annotator.items():
        ours = np.array([result[(annotator, index)] for index in range(len(scores))])
        if len(set(scores)) == 1:
            assert np.all(ours == 0.0)
        else:
            np.testing.assert_allclose(ours, stats.zscore(np.array(scores, dtype=float)), atol=1e-12)


@pytest.mark.parametrize(
    ("triples", "message"),
    [
        ([("a", "x", "high")], "row 1: field 'score'"),
        ([("a", "x", 1), ("a", "y", float("nan"))], "row 2: field 'score'"),
        ([("a", "x", 1), ("a", "x", 2)], "row 2: field 'item'"),
    ],
)
def test_bad_input_names_row_and_field(triples, message):
    with pytest.raises(NormalisationError, match=message):
        zscore_per_annotator(triples)
