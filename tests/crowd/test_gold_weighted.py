"""The gold-weighted vote lists its ties and breaks them by a named rule, as majority vote does.

The reference below decides every item exactly: a label's weighted score Σ log r_w is the log of
the product Π r_w of its voters' odds r = (K − 1)·a / (1 − a), so comparing products of fractions
says without rounding which labels lead, which tie and which score above 0.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.majority_vote import majority_vote


def exact_reference(triples, gold, tie_rule):
    """Labels and ties of the gold-weighted vote, computed with fractions."""
    classes = sorted({label for _, _, label in triples})
    k = len(classes)
    answered, correct = {}, {}
    for item, annotator, label in triples:
        if item in gold:
            answered[annotator] = answered.get(annotator, 0) + 1
            correct[annotator] = correct.get(annotator, 0) + (label == gold[item])
    odds = {}
    for _, annotator, _ in triples:
        a = Fraction(correct.get(annotator, 0) + 1, answered.get(annotator, 0) + k)
        odds[annotator] = (k - 1) * a / (1 - a) if k > 1 else Fraction(1)
    products = {}
    for item, annotator, label in triples:
        per_label = products.setdefault(item, dict.fromkeys(classes, Fraction(1)))
        per_label[label] *= odds[annotator]
    vote = majority_vote(triples, tie_rule=tie_rule)
    labels, ties = {}, []
    for item, per_label in products.items():
        if max(per_label.values()) <= 1:  # no positive score: the plain vote decides
            labels[item] = vote.labels[item]
            ties += [item] if item in vote.ties else []
            continue
        top = max(per_label.values())
        leaders = [label for label in classes if per_label[label] == top]
        labels[item] = leaders[0] if tie_rule in ("lower", "smallest") else leaders[-1]
        ties += [item] if len(leaders) > 1 else []
    return labels, ties


judgements = st.dictionaries(
    st.tuples(st.integers(0, 7), st.sampled_from("abcde")), st.integers(0, 2), min_size=1, max_size=40
)


@settings(max_examples=300, deadline=None)
@given(
    judgements,
    st.dictionaries(st.integers(0, 7), st.integers(0, 2), max_size=5),
    st.sampled_from(["lower", "higher", "smallest", "largest"]),
)
def test_labels_and_ties_equal_the_exact_reference(answers, gold, tie_rule):
    triples = [(item, annotator, label) for (item, annotator), label in sorted(answers.items())]
    result = gold_weighted_vote(triples, gold, tie_rule=tie_rule)
    labels, ties = exact_reference(triples, gold, tie_rule)
    assert result.labels == labels
    assert sorted(result.ties) == sorted(ties)
    # The old names (smallest, largest) are accepted and recorded as the new ones.
    assert result.parameters["tie_rule"] == {"smallest": "lower", "largest": "higher"}.get(tie_rule, tie_rule)
    assert all(0 <= c <= 1 and not math.isnan(c) for c in result.confidence.values())


def test_a_tie_in_weighted_scores_is_listed_and_broken_by_the_rule():
    # a and b answered 1 of 1 gold question right (odds 2 each); c answered 3 of 3 (odds 4 = 2 × 2):
    # on item "x" a and b together weigh exactly what c weighs alone.
    gold = {"g1": 1, "g2": 0, "g3": 1}
    triples = [
        ("g1", "a", 1), ("g2", "b", 0), ("g1", "c", 1), ("g2", "c", 0), ("g3", "c", 1),
        ("x", "a", 0), ("x", "b", 0), ("x", "c", 1),
        ("y", "a", 1), ("y", "b", 1), ("y", "c", 1),
    ]  # fmt: skip
    smallest = gold_weighted_vote(triples, gold)
    assert smallest.parameters["tie_rule"] == "lower"
    assert smallest.ties == ["x"]
    assert smallest.labels["x"] == 0 and smallest.confidence["x"] == pytest.approx(0.5)
    largest = gold_weighted_vote(triples, gold, tie_rule="higher")
    assert largest.ties == ["x"] and largest.labels["x"] == 1
    assert smallest.labels["y"] == largest.labels["y"] == 1


def test_items_that_fall_back_to_majority_vote_keep_its_ties():
    # No gold answered: every weight is 0, so the plain vote decides and its 1–1 tie is listed.
    triples = [("x", "a", 0), ("x", "b", 1), ("y", "a", 1), ("y", "b", 1)]
    result = gold_weighted_vote(triples, {"elsewhere": 1})
    assert result.ties == ["x"]
    assert result.labels == {"x": 0, "y": 1}


def test_one_label_gives_full_confidence_not_an_infinite_weight():
    result = gold_weighted_vote([("g", "a", 1), ("x", "a", 1)], {"g": 1})
    assert result.labels["x"] == 1 and result.confidence["x"] == 1.0


def test_an_unknown_tie_rule_is_refused():
    with pytest.raises(ValueError, match="tie_rule"):
        gold_weighted_vote([("x", "a", 1)], {}, tie_rule="coin")
