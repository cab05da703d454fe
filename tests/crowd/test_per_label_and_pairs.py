"""Per-label agreement against Fleiss (1971) and statsmodels, and the vectorised pairwise Cohen's
kappa against statsmodels' ``cohens_kappa`` pair by pair on designs with many annotators."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from annotation.crowd.agreement.cohen import cohen_kappa_matrix, cohen_kappa_pairs
from annotation.crowd.agreement.fleiss import fleiss_kappa
from annotation.crowd.agreement.krippendorff import krippendorff_alpha
from annotation.crowd.agreement.per_label import per_label_agreement
from annotation.crowd.io.encoding import encode, on_scale
from tests.crowd.test_basics import FLEISS_1971

# A design: every annotator labels an item or not (None); labels 0..3.
designs = st.lists(
    st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=2, max_size=6), min_size=2, max_size=25
)


def triples_of(design):
    return [
        (item, f"w{w}", label)
        for item, row in enumerate(design)
        for w, label in enumerate(row)
        if label is not None
    ]


def test_fleiss_1971_per_category_kappas():
    # Fleiss (1971) reports the per-category kappas of the psychiatric-diagnosis example as
    # .245 (depression), .245 (personality disorder), .520 (schizophrenia), .471 (neurosis),
    # .566 (other); R's irr::kappam.fleiss(diagnoses, detail = TRUE) gives the same.
    triples = [(i, f"slot{s}", label) for i, row in enumerate(FLEISS_1971) for s, label in enumerate(row)]
    result = per_label_agreement(triples)
    assert [row.label for row in result.labels] == [1, 2, 3, 4, 5]
    assert [round(row.fleiss_kappa, 3) for row in result.labels] == [0.245, 0.245, 0.520, 0.471, 0.566]
    assert (result.fleiss_n_items, result.n_items) == (30, 30)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda n: st.lists(st.lists(st.integers(0, 3), min_size=n, max_size=n), min_size=2, max_size=30)
    )
)
def test_per_label_fleiss_kappa_is_fleiss_kappa_of_the_collapsed_table(rows):
    triples = [
        (item, annotator, label) for item, row in enumerate(rows) for annotator, label in enumerate(row)
    ]
    result = per_label_agreement(triples)
    table, categories = aggregate_raters(np.array(rows))
    n = len(rows[0])
    for row in result.labels:
        column = table[:, list(categories).index(row.label)]
        with np.errstate(all="ignore"):
            expected = sm_fleiss(np.c_[column, n - column])
        if np.isnan(expected):
            assert row.fleiss_kappa is None
        else:
            assert row.fleiss_kappa == pytest.approx(expected, abs=1e-12)
        assert row.n_ratings == column.sum()


@settings(max_examples=150, deadline=None)
@given(designs)
def test_specific_agreement_counts_ordered_pairs_of_ratings_within_items(design):
    triples = triples_of(design)
    if not triples:
        return
    result = per_label_agreement(triples)
    # Independent count: over every item, every ordered pair of two different ratings.
    both, first = {}, {}
    for row in design:
        given_labels = [label for label in row if label is not None]
        for a, b in itertools.permutations(given_labels, 2):
            first[a] = first.get(a, 0) + 1
            both[a] = both.get(a, 0) + (a == b)
    for row in result.labels:
        if first.get(row.label, 0) == 0:
            assert row.specific_agreement is None
        else:
            assert row.specific_agreement == pytest.approx(both[row.label] / first[row.label])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=40))
def test_two_raters_binary_specific_agreement_is_positive_and_negative_agreement(pairs):
    triples = [(i, "a", x) for i, (x, _) in enumerate(pairs)] + [
        (i, "b", y) for i, (_, y) in enumerate(pairs)
    ]
    a = sum(1 for x, y in pairs if x == y == 1)
    d = sum(1 for x, y in pairs if x == y == 0)
    b_plus_c = sum(1 for x, y in pairs if x != y)
    by_label = {row.label: row.specific_agreement for row in per_label_agreement(triples).labels}
    if 2 * a + b_plus_c:
        assert by_label[1] == pytest.approx(2 * a / (2 * a + b_plus_c))  # Cicchetti & Feinstein (1990)
    if 2 * d + b_plus_c:
        assert by_label[0] == pytest.approx(2 * d / (2 * d + b_plus_c))


@settings(max_examples=150, deadline=None)
@given(designs, st.sampled_from(["none", "linear", "quadratic"]), st.integers(1, 3))
def test_every_pair_gets_statsmodels_kappa(design, weights, min_shared):
    triples = triples_of(design)
    if not triples:
        return
    result = cohen_kappa_pairs(triples, weights=weights, min_shared=min_shared)
    classes = sorted({label for _, _, label in triples})
    index = {label: i for i, label in enumerate(classes)}
    expected = {}
    for w1, w2 in itertools.combinations(range(len(max(design, key=len))), 2):
        shared = [
            (row[w1], row[w2])
            for row in design
            if w1 < len(row) and w2 < len(row) and row[w1] is not None and row[w2] is not None
        ]
        if len(shared) < min_shared:
            continue
        table = np.zeros((len(classes), len(classes)))
        for x, y in shared:
            table[index[x], index[y]] += 1
        with np.errstate(all="ignore"):
            value = cohens_kappa(table, wt=None if weights == "none" else weights, return_results=False)
        if not math.isnan(value):
            expected[(f"w{w1}", f"w{w2}")] = (value, len(shared))
    assert set(result.pairs) == set(expected)
    for pair, (value, shared) in expected.items():
        assert result.pairs[pair] == pytest.approx(value, abs=1e-12)
        assert result.shared_items[pair] == shared
    if expected:  # each pair weighted by its shared items
        values, weights_ = zip(*expected.values(), strict=True)
        assert result.mean == pytest.approx(np.average(values, weights=weights_))
    else:
        assert result.mean is None


def test_an_annotator_labelling_an_item_twice_is_refused_unless_the_newest_label_is_kept():
    # The rule is encode's (tests/crowd/test_duplicates.py has it for every function).
    triples = [(1, "a", 0), (1, "b", 1), (1, "a", 1), (2, "a", 0), (2, "b", 0)]
    with pytest.raises(ValueError, match="item 1 has a second label from annotator 'a'"):
        cohen_kappa_pairs(triples)
    assert cohen_kappa_pairs(encode(triples, duplicates="newest")).pairs[("a", "b")] == pytest.approx(1.0)


def test_the_heat_map_matrix_is_symmetric_and_matches_the_pairs():
    triples = [(i, w, (i + (w == "c")) % 2) for i in range(6) for w in ("a", "b", "c")] + [(9, "d", 1)]
    pairs = cohen_kappa_pairs(triples)
    matrix = cohen_kappa_matrix(triples)
    annotators = matrix["annotators"]
    assert annotators == ["a", "b", "c", "d"]
    for (first, second), value in pairs.pairs.items():
        i, j = annotators.index(first), annotators.index(second)
        assert matrix["kappa"][i][j] == matrix["kappa"][j][i] == pytest.approx(value)
        assert matrix["shared_items"][i][j] == matrix["shared_items"][j][i] == 6
    assert matrix["kappa"][0][0] is None and matrix["shared_items"][3] == [0, 0, 0, 0]
    chosen = cohen_kappa_matrix(triples, annotators=["c", "a"])
    assert chosen["kappa"][0][1] == pytest.approx(pairs.pairs[("a", "c")])


def test_a_dataframe_and_triples_give_the_same_figures():
    triples = [(i, f"w{(i * 7 + k) % 5}", (i * k) % 3) for i in range(40) for k in range(3)]
    frame = pd.DataFrame(triples, columns=["task", "worker", "label"])
    assert fleiss_kappa(frame) == fleiss_kappa(triples) == fleiss_kappa(encode(triples))
    assert cohen_kappa_pairs(frame).mean == pytest.approx(cohen_kappa_pairs(triples).mean)
    assert krippendorff_alpha(frame) == krippendorff_alpha(triples)


def test_no_labels_give_undefined_figures_not_errors():
    assert fleiss_kappa([]).value is None
    assert cohen_kappa_pairs([]).mean is None
    assert krippendorff_alpha([]).value is None
    assert per_label_agreement([]).labels == []


def test_on_scale_keeps_levels_no_one_used_and_refuses_labels_outside_it():
    data = on_scale([(1, "a", 0), (1, "b", 3), (2, "a", 1)], [0, 1, 2, 3])
    assert data.classes == [0, 1, 2, 3]
    assert data.label_index.tolist() == [0, 3, 1]
    with pytest.raises(ValueError, match="outside the scale"):
        on_scale([(1, "a", 5)], [0, 1])
