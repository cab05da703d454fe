"""Intervals of means over topics: SciPy's bootstrap with the same draws, Hesterberg's expanded
probabilities by hand, never outside the scores' range, and none below the stated minimum."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from annotation.crowd.minimums import TOPICS_FOR_INTERVAL, TOPICS_FOR_TEST, Minimum
from evaluation.metrics.intervals import (
    OVER_TOPICS,
    IntervalMethod,
    expanded_probabilities,
    mean_intervals,
)
from evaluation.metrics.leaderboard import against_best, all_pairs, board, significance_reason


def test_the_expanded_probabilities_equal_a_hand_computation():
    # n = 10, 95 %: t_{0.025, 9} = −2.262157; √(10/9) · t = −2.384536; Φ(−2.384536) = 0.008550.
    low, high = expanded_probabilities(10, 0.95)
    assert low == pytest.approx(0.008550, abs=2e-6)
    assert high == pytest.approx(1 - low)
    # As n grows the expansion vanishes: the plain percentile interval's 0.025.
    assert expanded_probabilities(100_000, 0.95)[0] == pytest.approx(0.025, abs=1e-4)
    with pytest.raises(ValueError, match="two units"):
        expanded_probabilities(1, 0.95)


@pytest.mark.parametrize("topics", [10, 17, 50])
def test_the_intervals_equal_scipys_percentile_bootstrap_at_the_expanded_level(topics):
    """SciPy's ``bootstrap`` on the systems × topics table (one row per system: every system drawn
    over the same topics), percentile method, at the confidence level the expanded probabilities
    make, the same resamples and seed: the same draws, so the same interval up to the rounding of
    a mean computed as a matrix product instead of a sum."""
    rng = np.random.default_rng(topics)
    table = np.vstack([rng.beta(0.6, 1.2, topics), rng.uniform(0, 1, topics), rng.integers(0, 40, topics)])
    method = IntervalMethod(resamples=3000, seed=7)
    ours = mean_intervals(table, method)
    low_p, _ = expanded_probabilities(topics, method.level)
    theirs = stats.bootstrap(
        (table,),
        np.mean,
        axis=-1,
        n_resamples=method.resamples,
        method="percentile",
        confidence_level=1 - 2 * low_p,
        rng=method.seed,
    ).confidence_interval
    assert [row.low for row in ours] == pytest.approx(theirs.low, abs=1e-12)
    assert [row.high for row in ours] == pytest.approx(theirs.high, abs=1e-12)
    assert [row.mean for row in ours] == pytest.approx(table.mean(axis=1))
    assert all(row.n == topics and row.reason is None for row in ours)


def test_the_interval_is_wider_than_the_plain_percentile_one_on_few_topics():
    scores = np.random.default_rng(3).beta(0.6, 1.2, 10)
    (ours,) = mean_intervals([scores], OVER_TOPICS)
    plain = stats.bootstrap((scores,), np.mean, n_resamples=10_000, method="percentile", rng=0)
    plain = plain.confidence_interval
    assert ours.low < plain.low and plain.high < ours.high


SCORE_TABLES = st.integers(10, 40).flatmap(
    lambda topics: st.lists(
        st.lists(st.floats(0, 1, allow_subnormal=False), min_size=topics, max_size=topics),
        min_size=1,
        max_size=4,
    )
)


@settings(max_examples=150, deadline=None)
@given(SCORE_TABLES)
def test_an_interval_of_scores_in_zero_one_lies_in_zero_one_around_its_mean(table):
    for row, found in zip(table, mean_intervals(table, IntervalMethod(resamples=300)), strict=True):
        assert 0.0 <= min(row) <= found.low <= found.mean <= found.high <= max(row) <= 1.0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=10, max_size=30))
def test_a_count_is_not_clipped_to_zero_one_but_stays_within_the_counts_observed(counts):
    (found,) = mean_intervals([counts], IntervalMethod(resamples=300))
    assert min(counts) <= found.low <= found.mean <= found.high <= max(counts)


def test_below_the_minimum_there_is_no_interval_but_the_reason():
    three_topics = [[1.0, 0.9167, 1.0], [0.0, 0.1, 0.635]]  # the MAP and bpref rows
    rows = mean_intervals(three_topics, OVER_TOPICS)
    assert [row.mean for row in rows] == pytest.approx([0.9722, 0.245], abs=1e-4)
    for row in rows:
        assert row.low is None and row.high is None and row.n == 3
        assert row.reason == "too few topics for an interval (3; needs at least 10)"
    assert TOPICS_FOR_INTERVAL.reason(10) is None


def test_a_minimum_names_its_unit_and_count():
    minimum = Minimum(5, "systems", "a correlation")
    assert minimum.reason(4) == "too few systems for a correlation (4; needs at least 5)"
    assert minimum.reason(4, "inputs") == "too few inputs for a correlation (4; needs at least 5)"
    assert minimum.reason(5) is None and minimum.met(5)


def test_the_method_is_stated_in_words_and_in_the_signature():
    assert OVER_TOPICS.describe() == (
        "95% expanded percentile bootstrap over topics (Hesterberg 2015), 10,000 resamples, seed 0; "
        "none with fewer than 10 topics"
    )
    assert OVER_TOPICS.signature() == "ci:boot-xpct|level:0.95|B:10000|seed:0|unit:topics|min:10"


def test_the_board_ranks_by_mean_and_keeps_the_interval_of_each_system():
    rng = np.random.default_rng(9)
    scores = {"a": list(rng.uniform(0.2, 0.5, 12)), "b": list(rng.uniform(0.4, 0.9, 12))}
    rows = board(scores)
    assert [row.system for row in rows] == ["b", "a"] and [row.rank for row in rows] == [1, 2]
    expected = dict(zip(scores, mean_intervals(list(scores.values())), strict=True))
    for row in rows:
        assert (row.low, row.high) == (expected[row.system].low, expected[row.system].high)
        assert row.topics == 12 and row.reason is None


def test_with_too_few_topics_pairs_keep_their_difference_but_get_no_verdict():
    # Three topics with a large, consistent difference: a t-test says p = 0.0039, which is no
    # evidence a lab would accept from three topics.
    scores = {"good": [0.9, 0.95, 1.0], "bad": [0.1, 0.2, 0.25]}
    assert stats.ttest_rel(scores["good"], scores["bad"]).pvalue < 0.01
    (pair,) = all_pairs(scores)
    assert (pair.first, pair.second) == ("good", "bad")
    assert pair.difference == pytest.approx(0.7667, abs=1e-4)
    assert pair.p_value is None and pair.corrected_p is None and pair.significant is None
    assert pair.topics == 3
    assert significance_reason(scores) == "too few topics for a significance test (3; needs at least 10)"
    best, (against,) = against_best(scores, test="randomisation")
    assert best == "good" and against.significant is None


def test_from_the_minimum_on_pairs_are_tested_and_corrected():
    rng = np.random.default_rng(1)
    base = rng.uniform(0.2, 0.6, TOPICS_FOR_TEST.count)
    scores = {"a": list(base + 0.2), "b": list(base + rng.normal(0, 0.05, len(base))), "c": list(base)}
    pairs = all_pairs(scores, correction="bonferroni")
    assert significance_reason(scores) is None
    for pair in pairs:
        p = stats.ttest_rel(scores[pair.first], scores[pair.second]).pvalue
        assert pair.p_value == pytest.approx(p)
        assert pair.corrected_p == pytest.approx(min(1.0, 3 * p))
        assert pair.significant == (pair.corrected_p < 0.05)
    assert any(pair.significant for pair in pairs) and not math.isnan(pairs[0].difference)
