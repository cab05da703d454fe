"""One rule for an annotator who labelled an item twice, settled where labels are encoded, so that
every agreement and aggregation function, the summary, the bootstrap and the CLI follow it
(issue 11: Cohen's kappa kept the last label, Fleiss' kappa dropped the item, alpha counted both)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.agreement.bootstrap import bootstrap_agreement
from annotation.crowd.agreement.cohen import cohen_kappa, cohen_kappa_matrix, cohen_kappa_pairs
from annotation.crowd.agreement.fleiss import fleiss_kappa, fleiss_kappa_test, randolph_kappa
from annotation.crowd.agreement.krippendorff import krippendorff_alpha
from annotation.crowd.agreement.per_label import per_label_agreement
from annotation.crowd.agreement.report import agreement_summary
from annotation.crowd.io.encoding import DUPLICATE_RULES, DuplicateLabelError, encode, on_scale
from annotation.crowd.io.labels import DuplicateLineError, LabelFileError, read_label_columns
from annotation.crowd.quality.annotators import agreement_with_aggregate, annotator_quality
from cranfield.cli import main

# Annotator "a" labels item 1 twice (0, then 1); every other (item, annotator) once.
REPEATED = [(1, "a", 0), (1, "b", 1), (2, "a", 0), (1, "a", 1), (2, "b", 0), (3, "a", 1), (3, "b", 1)]
NEWEST = [(1, "b", 1), (2, "a", 0), (1, "a", 1), (2, "b", 0), (3, "a", 1), (3, "b", 1)]

FIGURES = {
    "fleiss_kappa": fleiss_kappa,
    "fleiss_kappa_test": fleiss_kappa_test,
    "randolph_kappa": randolph_kappa,
    "cohen_kappa_pairs": lambda data: [
        (pair, found.as_dict())
        for pair, found in cohen_kappa_pairs(data, statistics=True).pair_statistics.items()
    ],
    "cohen_kappa": lambda data: cohen_kappa(data, "a", "b"),
    "cohen_kappa_matrix": cohen_kappa_matrix,
    "krippendorff_alpha": krippendorff_alpha,
    "per_label_agreement": lambda data: per_label_agreement(data).as_dict(),
    "majority_vote": lambda data: majority_vote(data),
    "dawid_skene": lambda data: dawid_skene(data),
    "gold_weighted_vote": lambda data: gold_weighted_vote(data, {1: 1, 2: 0}),
    "agreement_with_aggregate": lambda data: agreement_with_aggregate(data, majority_vote(data)),
    "annotator_quality": lambda data: annotator_quality(data, majority_vote(data)),
    "agreement_summary": lambda data: {
        key: value
        for key, value in agreement_summary(data, intervals=True, resamples=30).items()
        if not key.startswith("duplicates")
    },
    "bootstrap_agreement": lambda data: {
        name: interval.replicates.tolist()
        for name, interval in bootstrap_agreement(data, resamples=30).items()
    },
}


def comparable(result):
    """Results as plain values (aggregation results without their NumPy model)."""
    if hasattr(result, "labels") and hasattr(result, "confidence"):
        return (result.labels, result.confidence, result.ties, result.method, result.parameters)
    return json.loads(
        json.dumps(result, default=lambda value: value.__dict__ if hasattr(value, "__dict__") else str(value))
    )


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_function_refuses_a_repeated_label_by_default(name):
    with pytest.raises(
        DuplicateLabelError, match=r"item 1 has a second label from annotator 'a' \(rows 0 and 3"
    ):
        FIGURES[name](REPEATED)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_function_given_the_newest_rule_sees_exactly_the_data_without_the_older_row(name):
    newest = encode(REPEATED, duplicates="newest")
    assert newest.triples() == NEWEST
    assert (newest.duplicates, newest.duplicates_dropped) == ("newest", 1)
    assert comparable(FIGURES[name](newest)) == comparable(FIGURES[name](NEWEST))


def test_the_three_old_answers_are_now_one():
    # Before the rule, this data gave Cohen 1.0 (last label kept), Fleiss over two items (item 1
    # dropped for its three ratings) and alpha over every rating; now all three see one table.
    newest = encode(REPEATED, duplicates="newest")
    assert cohen_kappa_pairs(newest).mean == pytest.approx(1.0)
    assert fleiss_kappa(newest).value == pytest.approx(1.0)
    assert fleiss_kappa(newest).n_items == 3
    assert krippendorff_alpha(newest).value == pytest.approx(1.0)
    # One annotator disagreeing with himself is no longer agreement data at all (Fleiss gave −1.0).
    with pytest.raises(DuplicateLabelError):
        fleiss_kappa([(1, "a", 0), (1, "a", 1)])
    alone = encode([(1, "a", 0), (1, "a", 1)], duplicates="newest")
    assert alone.triples() == [(1, "a", 1)]
    assert fleiss_kappa(alone).value is None and krippendorff_alpha(alone).value is None


def test_the_rule_is_named_and_checked_and_an_encoded_value_keeps_it():
    with pytest.raises(ValueError, match="duplicates must be one of refuse, newest"):
        encode(NEWEST, duplicates="first")
    assert DUPLICATE_RULES == ("refuse", "newest")
    data = encode(NEWEST)
    assert (data.duplicates, data.duplicates_dropped) == ("refuse", 0)
    newest = encode(REPEATED, duplicates="newest")
    assert on_scale(newest, [0, 1, 2]).duplicates == "newest"
    assert newest.select(slice(0, 3)).duplicates == "newest"
    assert agreement_summary(newest)["duplicates"] == "newest"
    assert agreement_summary(newest)["duplicates_dropped"] == 1


def test_dataframes_integer_arrays_and_text_follow_the_same_rule():
    frame = pd.DataFrame(REPEATED, columns=["task", "worker", "label"])
    with pytest.raises(DuplicateLabelError, match="rows 0 and 3"):
        encode(frame)
    assert encode(frame, duplicates="newest").triples() == NEWEST
    integers = [(1, 7, 0), (2, 7, 1), (1, 7, 1)]  # the all-integer fast path
    with pytest.raises(DuplicateLabelError) as caught:
        encode(integers)
    assert (caught.value.item, caught.value.annotator, caught.value.first_row, caught.value.row) == (
        1,
        7,
        0,
        2,
    )
    assert encode(integers, duplicates="newest").triples() == [(2, 7, 1), (1, 7, 1)]
    # A label no longer given after the older row goes is no longer a class.
    assert encode([(1, "a", "x"), (1, "a", "y")], duplicates="newest").classes == ["y"]


triples_with_repeats = st.lists(
    st.tuples(st.integers(0, 6), st.sampled_from("abcd"), st.integers(0, 2)), min_size=1, max_size=50
)


@settings(max_examples=100, deadline=None)
@given(triples_with_repeats)
def test_newest_equals_dropping_every_older_row_by_hand(triples):
    last = {(item, annotator): index for index, (item, annotator, _) in enumerate(triples)}
    kept = [triple for index, triple in enumerate(triples) if last[triple[:2]] == index]
    newest = encode(triples, duplicates="newest")
    plain = encode(kept)
    assert newest.triples() == kept
    assert (newest.items, newest.annotators, newest.classes) == (plain.items, plain.annotators, plain.classes)
    assert newest.duplicates_dropped == len(triples) - len(kept)
    if len(kept) < len(triples):
        with pytest.raises(DuplicateLabelError):
            encode(triples)
    assert fleiss_kappa(newest) == fleiss_kappa(plain)
    assert krippendorff_alpha(newest) == krippendorff_alpha(plain)
    assert np.array_equal(cohen_kappa_pairs(newest).kappa, cohen_kappa_pairs(plain).kappa, equal_nan=True)
    assert majority_vote(newest).labels == majority_vote(plain).labels


def test_a_labels_file_names_both_lines_of_a_repeat_and_the_newest_rule_keeps_the_later(tmp_path):
    labels = tmp_path / "labels.csv"
    # A blank line (skipped) before the repeat, and chunks of two rows so the repeat spans chunks.
    labels.write_text("item,annotator,label\nd1,a,0\nd1,b,1\n\nd2,a,0\nd1,a,1\nd2,b,0\n")
    for chunk_rows in (2, 500_000):
        with pytest.raises(
            DuplicateLineError,
            match=r"line 6: item 'd1' has a second label from annotator 'a' \(the first is on line 2\)",
        ):
            read_label_columns(labels, chunk_rows=chunk_rows)
        newest = read_label_columns(labels, chunk_rows=chunk_rows, duplicates="newest")
        assert newest.triples() == [("d1", "b", 1), ("d2", "a", 0), ("d1", "a", 1), ("d2", "b", 0)]
    assert issubclass(DuplicateLineError, LabelFileError)
    # The row-by-row reader (taken when the fast parser gives up) follows the same rule.
    odd = tmp_path / "odd.csv"
    odd.write_text('item,annotator,label\nd1,a,0\n"d1",a,"1"\n   \n')
    with pytest.raises(DuplicateLineError, match="line 3"):
        read_label_columns(odd)


def test_the_cli_refuses_with_the_line_or_keeps_the_newest(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("item,annotator,label\n" + "".join(f"{i},{a},{label}\n" for i, a, label in REPEATED))
    assert main(["agreement", str(labels)]) == 2
    error = capsys.readouterr().err
    assert "line 5: item '1' has a second label from annotator 'a' (the first is on line 2)" in error
    assert "--duplicates newest" in error
    assert main(["agreement", str(labels), "--duplicates", "newest", "--min-shared", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["duplicates"], report["duplicates_dropped"], report["n_labels"]) == ("newest", 1, 6)
    assert report["cohen_kappa_mean"] == pytest.approx(1.0)
    # aggregate reads through the same reader: the repeat stops it with the same line.
    assert main(["aggregate", str(labels)]) == 2
    assert "line 5" in capsys.readouterr().err
