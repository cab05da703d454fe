"""Labels are encoded once: every function takes an ``Encoded`` in place of triples, encodes nothing
more, and gives the same result as from the triples."""

from __future__ import annotations

import random
from collections import Counter

import pandas as pd
import pytest

from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.agreement.bootstrap import bootstrap_agreement
from annotation.crowd.agreement.cohen import cohen_kappa_matrix, cohen_kappa_pairs
from annotation.crowd.agreement.fleiss import fleiss_kappa
from annotation.crowd.agreement.krippendorff import krippendorff_alpha
from annotation.crowd.agreement.per_label import per_label_agreement
from annotation.crowd.agreement.report import agreement_summary
from annotation.crowd.io import encoding
from annotation.crowd.io.encoding import Encoded, encode, on_scale
from annotation.crowd.quality.annotators import (
    agreement_with_aggregate,
    annotator_quality,
    busiest,
    confusion_against_aggregate,
    dawid_skene_annotators,
)

SCALE = [0, 1, 2, 3]


def judged(seed: int = 3) -> tuple[list, dict]:
    """Graded labels: 40 items, three to five of eight annotators each; gold for the first ten."""
    rng = random.Random(seed)
    triples = []
    truth = {item: rng.choice(SCALE[:3]) for item in range(40)}  # no one is right with a 3
    for item in range(40):
        for annotator in rng.sample(range(8), rng.randint(3, 5)):
            label = truth[item] if rng.random() < 0.7 else rng.choice(SCALE[:3])
            triples.append((item, f"a{annotator}", label))
    return triples, {item: truth[item] for item in range(10)}


def label_project(labels, gold: dict) -> dict:
    """Everything the ground truth of a graded label project computes, from ``labels``."""
    vote = majority_vote(labels)
    estimated = dawid_skene(labels)
    counts = _counts(labels)
    return {
        "summary": agreement_summary(labels, intervals=True, resamples=40, seed=1),
        "ordered": agreement_summary(
            on_scale(labels, SCALE), weights="linear", level="ordinal", intervals=True, resamples=40
        ),
        "majority": vote,
        "dawid_skene": estimated,
        "dawid_skene_annotators": dawid_skene_annotators(estimated),
        "gold_weighted": gold_weighted_vote(labels, gold),
        "agreement_with_aggregate": agreement_with_aggregate(labels, vote),
        "quality": annotator_quality(labels, estimated, gold=gold),
        "confusion": confusion_against_aggregate(labels, vote.labels, SCALE),
        "heat_map": cohen_kappa_matrix(labels, weights="linear", annotators=busiest(counts, 5)),
    }


def _counts(labels) -> Counter:
    """Labels per annotator, read from the triples or from the codes (no encoding either way)."""
    if isinstance(labels, Encoded):
        return Counter(labels.annotators[code] for code in labels.annotator_index.tolist())
    return Counter(annotator for _, annotator, _ in labels)


@pytest.fixture
def encodes(monkeypatch) -> list:
    """Every call of ``encoding.encode``, the one function that encodes."""
    calls = []
    real = encoding.encode

    def counted(labels):
        calls.append(type(labels).__name__)
        return real(labels)

    monkeypatch.setattr(encoding, "encode", counted)
    return calls


def test_a_whole_label_project_from_encoded_labels_encodes_nothing_more(encodes):
    triples, gold = judged()
    data = encode(triples)  # before the counter: the caller's one encoding
    label_project(data, gold)
    assert encodes == []


def test_given_triples_once_the_whole_computation_encodes_once(encodes):
    triples, gold = judged()
    data = encoding.encode(triples)
    label_project(data, gold)
    assert encodes == ["list"]


def test_the_summary_and_its_intervals_share_one_encoding(encodes):
    triples, _ = judged()
    agreement_summary(triples, intervals=True, resamples=20)
    assert encodes == ["list"]


def test_encoded_labels_give_the_same_results_as_triples():
    triples, gold = judged()
    from_triples = label_project(triples, gold)
    from_encoded = label_project(encode(triples), gold)
    assert from_encoded == from_triples
    data = encode(triples)
    for figure in (fleiss_kappa, per_label_agreement, krippendorff_alpha):
        assert figure(data) == figure(triples)
    assert vars(cohen_kappa_pairs(data)).keys() == vars(cohen_kappa_pairs(triples)).keys()
    assert cohen_kappa_pairs(data).pairs == cohen_kappa_pairs(triples).pairs
    by_data = bootstrap_agreement(data, resamples=30, seed=2)
    by_triples = bootstrap_agreement(triples, resamples=30, seed=2)
    assert {name: interval.as_dict() for name, interval in by_data.items()} == {
        name: interval.as_dict() for name, interval in by_triples.items()
    }


def test_a_selection_of_rows_is_coded_as_those_rows_alone():
    triples, _ = judged()
    extra = [(100, "a9", 3), (5, "a0", 3), (101, "a2", 1)]
    selected = encode(triples + extra).select(slice(0, len(triples)))
    alone = encode(triples)
    assert (selected.items, selected.annotators, selected.classes) == (
        alone.items,
        alone.annotators,
        alone.classes,
    )
    assert selected.triples() == alone.triples() == triples
    assert majority_vote(selected) == majority_vote(alone)
    assert encode(triples).select(slice(0, 0)).triples() == []


def test_an_annotator_column_or_crowd_kits_worker_column():
    triples, _ = judged()
    ours = pd.DataFrame(triples, columns=["item", "annotator", "label"])
    theirs = pd.DataFrame(triples, columns=["task", "worker", "label"])
    assert encode(ours).triples() == encode(theirs).triples() == triples
