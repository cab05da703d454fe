"""Which items an adjudication rule calls disputed (annotation.crowd.adjudication, pure)."""

from __future__ import annotations

import pytest

from annotation.crowd.adjudication import (
    MAJORITY_BELOW,
    NOT_UNANIMOUS,
    OFF,
    disagree,
    disputed,
    disputed_items,
    label_tally,
    majority_share,
    rating_spread,
)


def test_the_majority_share_is_the_most_frequent_labels_share():
    assert majority_share([1, 1, 0]) == pytest.approx(2 / 3)
    assert majority_share([2, 2, 2]) == 1.0
    assert majority_share([0, 1, 2, 3]) == 0.25
    assert majority_share([]) is None


def test_not_unanimous_disputes_any_disagreement_and_off_disputes_nothing():
    assert disputed([1, 1, 0], NOT_UNANIMOUS)
    assert not disputed([1, 1, 1], NOT_UNANIMOUS)
    assert not disputed([1, 1, 0], OFF)


def test_majority_below_disputes_items_whose_majority_is_under_the_threshold():
    assert disputed([1, 1, 0], MAJORITY_BELOW, 0.75)  # 0.67
    assert not disputed([1, 1, 1, 1, 0], MAJORITY_BELOW, 0.75)  # 0.8
    assert not disputed([1, 1, 0, 0], MAJORITY_BELOW, 0.5)  # exactly at the threshold is not below it


def test_a_single_judgement_is_never_disputed():
    assert not disputed([1], NOT_UNANIMOUS)
    assert not disputed([1], MAJORITY_BELOW, 1.0)


def test_an_unknown_rule_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown adjudication rule 'sometimes'"):
        disputed([1, 0], "sometimes")


def test_disputed_items_groups_labels_by_item():
    labels = [("a", 1), ("a", 1), ("b", 1), ("b", 0), ("c", 0)]
    assert disputed_items(labels, NOT_UNANIMOUS) == {"b"}
    assert disagree([1, 0]) and not disagree([0, 0])


def test_the_tally_lists_the_most_frequent_label_first():
    assert label_tally([0, 1, 1, 2, 1, 0]) == [(1, 3), (0, 2), (2, 1)]


def test_the_rating_spread_is_the_highest_minus_the_lowest_score_per_dimension():
    scores = [{"quality": 4, "coherence": 2}, {"quality": 5, "coherence": 5}, {"quality": 4, "coherence": 3}]
    assert rating_spread(scores) == {"quality": 1, "coherence": 3}
    assert rating_spread([]) == {}
