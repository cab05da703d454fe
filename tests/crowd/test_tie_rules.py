"""Majority vote's ties under each named rule (annotation.crowd.aggregation), and which items a tie
refers (annotation.crowd.adjudication): crowd-kit's MajorityVote is the peer wherever the vote is not
tied; ties are checked against a reference written from the definitions, with exact fractions for
the gold-weighted tie-break."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pandas as pd
import pytest
from crowdkit.aggregation import MajorityVote
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.crowd.adjudication import DISPUTED, NOT_UNANIMOUS, OFF, TIE, referrals, tied
from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.aggregation.ties import tie_rule_named
from cranfield.cli import main

# (item, annotator) -> label; items 0–9, annotators a–e, labels 0–2 (so 1–1–1 ties happen too).
judgements = st.dictionaries(
    st.tuples(st.integers(0, 9), st.sampled_from("abcde")), st.integers(0, 2), min_size=1, max_size=50
)


def triples_of(answers: dict) -> list[tuple]:
    return [(item, annotator, label) for (item, annotator), label in sorted(answers.items())]


def leaders_of(triples: list[tuple]) -> dict:
    """Each item's most frequent labels, from the definition."""
    by_item: dict = {}
    for item, _, label in triples:
        by_item.setdefault(item, Counter())[label] += 1
    return {
        item: sorted(label for label, n in counts.items() if n == max(counts.values()))
        for item, counts in by_item.items()
    }


@settings(max_examples=300, deadline=None)
@given(judgements)
def test_untied_items_get_crowd_kits_majority_and_ties_follow_the_rule(answers):
    triples = triples_of(answers)
    leaders = leaders_of(triples)
    frame = pd.DataFrame(triples, columns=["task", "worker", "label"])
    theirs = MajorityVote().fit_predict(frame).to_dict()
    for rule, pick in (("lower", min), ("higher", max)):
        ours = majority_vote(triples, tie_rule=rule)
        assert sorted(ours.ties) == sorted(item for item, tops in leaders.items() if len(tops) > 1)
        for item, tops in leaders.items():
            if len(tops) == 1:
                assert ours.labels[item] == theirs[item] == tops[0]
            else:
                assert ours.labels[item] == pick(tops)
                assert ours.tie_breaks[item] == rule
        assert set(ours.tie_breaks) == set(ours.ties)


def test_a_one_one_split_is_a_tie_and_each_rule_breaks_it_its_way():
    # k = 2: item "x" split 1–1, item "y" agreed.
    triples = [("x", "perfect", 1), ("x", "careless", 0), ("y", "perfect", 1), ("y", "careless", 1)]
    lower = majority_vote(triples, tie_rule="lower")
    assert lower.labels == {"x": 0, "y": 1} and lower.ties == ["x"]
    assert lower.confidence["x"] == 0.5 and lower.parameters == {"tie_rule": "lower"}
    higher = majority_vote(triples, tie_rule="higher")
    assert higher.labels == {"x": 1, "y": 1} and higher.tie_breaks == {"x": "higher"}


def test_the_gold_weighted_tie_break_follows_the_annotator_right_on_gold():
    # "perfect" answered both gold items right, "careless" both wrong: on the 1–1 split of "x" the
    # perfect annotator's label wins; "y" is not tied, so the weights do not touch it.
    gold = {"g1": 1, "g2": 0}
    triples = [
        ("g1", "perfect", 1), ("g2", "perfect", 0), ("g1", "careless", 0), ("g2", "careless", 1),
        ("x", "perfect", 1), ("x", "careless", 0),
        ("z", "perfect", 0), ("z", "careless", 1),
        ("y", "perfect", 0), ("y", "careless", 0),
    ]  # fmt: skip
    result = majority_vote(triples, tie_rule="gold_weighted", gold=gold)
    assert result.labels["x"] == 1 and result.labels["z"] == 0 and result.labels["y"] == 0
    assert result.tie_breaks["x"] == result.tie_breaks["z"] == "gold_weighted"
    assert result.confidence["x"] == 0.5  # still the vote's share: the weights only break the tie
    assert result.parameters == {"tie_rule": "gold_weighted"}


def test_equal_gold_weights_leave_the_tie_to_the_lower_label_and_say_so():
    result = majority_vote([("x", "a", 1), ("x", "b", 0)], tie_rule="gold_weighted", gold={})
    assert result.labels == {"x": 0} and result.tie_breaks == {"x": "lower"}
    with pytest.raises(ValueError, match="gold"):
        majority_vote([("x", "a", 1), ("x", "b", 0)], tie_rule="gold_weighted")


def exact_gold_weighted_break(triples: list[tuple], gold: dict) -> dict:
    """The label of each tied item by the gold-weighted tie-break, computed with fractions: among
    the tied labels, the greatest product of its voters' odds (K − 1)·a / (1 − a); equal products
    go to the lower label."""
    classes = sorted({label for _, _, label in triples})
    k = len(classes)
    answered: Counter = Counter()
    correct: Counter = Counter()
    for item, annotator, label in triples:
        if item in gold:
            answered[annotator] += 1
            correct[annotator] += label == gold[item]
    odds = {}
    for _, annotator, _ in triples:
        a = Fraction(correct[annotator] + 1, answered[annotator] + k)
        odds[annotator] = (k - 1) * a / (1 - a) if k > 1 else Fraction(1)
    decided = {}
    for item, tops in leaders_of(triples).items():
        if len(tops) < 2:
            continue
        products = dict.fromkeys(tops, Fraction(1))
        for other, annotator, label in triples:
            if other == item and label in products:
                products[label] *= odds[annotator]
        best = max(products.values())
        winners = [label for label in tops if products[label] == best]
        decided[item] = (winners[0], "gold_weighted" if len(winners) == 1 else "lower")
    return decided


@settings(max_examples=300, deadline=None)
@given(judgements, st.dictionaries(st.integers(0, 9), st.integers(0, 2), max_size=4))
def test_the_gold_weighted_tie_break_equals_the_exact_reference(answers, gold):
    triples = triples_of(answers)
    result = majority_vote(triples, tie_rule="gold_weighted", gold=gold)
    expected = exact_gold_weighted_break(triples, gold)
    assert sorted(result.ties) == sorted(expected)
    for item, (label, how) in expected.items():
        assert (result.labels[item], result.tie_breaks[item]) == (label, how)
    plain = majority_vote(triples)
    for item in set(plain.labels) - set(expected):
        assert result.labels[item] == plain.labels[item]


def test_old_rule_names_are_read_as_the_new_ones_and_unknown_ones_refused():
    assert tie_rule_named("smallest") == "lower" and tie_rule_named("largest") == "higher"
    assert majority_vote([("x", "a", 1), ("x", "b", 0)], tie_rule="largest").parameters == {
        "tie_rule": "higher"
    }
    with pytest.raises(ValueError, match="tie_rule"):
        tie_rule_named("coin")
    with pytest.raises(ValueError, match="tie_rule"):
        gold_weighted_vote(
            [("x", "a", 1)], {}, tie_rule="gold_weighted"
        )  # weights cannot break their own ties


def test_a_tie_is_two_or_more_labels_sharing_the_highest_count():
    assert tied([1, 0]) and tied([1, 1, 0, 0]) and tied([0, 1, 2])
    assert not tied([1, 1, 0]) and not tied([1]) and not tied([]) and not tied([2, 2])
    assert tied([0, 0, 1, 1, 2])  # 2–2–1


def test_ties_are_referred_when_the_tie_rule_says_so_and_disputes_keep_their_reason():
    labels = [("x", 1), ("x", 0), ("y", 1), ("y", 1), ("z", 1), ("z", 1), ("z", 0)]
    assert referrals(labels, OFF) == {}
    assert referrals(labels, OFF, refer_ties=True) == {"x": TIE}
    # The adjudication rule decides first: a tied item it disputes is referred as disputed.
    assert referrals(labels, NOT_UNANIMOUS, refer_ties=True) == {"x": DISPUTED, "z": DISPUTED}
    assert referrals(labels, "majority_below", 0.5, refer_ties=True) == {"x": TIE}


def test_the_aggregate_command_takes_the_same_rule_names_and_lists_its_ties(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "item,annotator,label\ng1,perfect,1\ng1,careless,0\nx,perfect,1\nx,careless,0\ny,perfect,1\ny,careless,1\n"
    )
    gold = tmp_path / "gold.csv"
    gold.write_text("item,label\ng1,1\n")
    assert main(["aggregate", str(labels)]) == 0
    captured = capsys.readouterr()
    assert "x,0,0.500000" in captured.out.splitlines()
    assert "2 items tied, broken 2 by lower: g1, x" in captured.err
    assert main(["aggregate", str(labels), "--tie-rule", "largest"]) == 0  # the old name of higher
    assert "x,1,0.500000" in capsys.readouterr().out.splitlines()
    assert main(["aggregate", str(labels), "--tie-rule", "gold_weighted", "--gold", str(gold)]) == 0
    captured = capsys.readouterr()
    assert "x,1,0.500000" in captured.out.splitlines()  # perfect was right on g1
    assert "broken 2 by gold_weighted" in captured.err
    assert main(["aggregate", str(labels), "--tie-rule", "gold_weighted"]) == 2
    assert "needs --gold" in capsys.readouterr().err
