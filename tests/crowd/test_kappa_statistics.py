"""Kappa statistics against statsmodels: its own inter-rater test cases (statsmodels/stats/tests/
test_inter_rater.py, with their expected values: a SAS printout, R irr's kappa2 and kappam.fleiss,
Randolph's online calculator) and generated tables (hypothesis)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from annotation.crowd.agreement.bootstrap import bootstrap_agreement
from annotation.crowd.agreement.cohen import (
    STATISTIC_FIELDS,
    cohen_kappa,
    cohen_kappa_matrix,
    cohen_kappa_pairs,
    kappa_statistics,
)
from annotation.crowd.agreement.fleiss import fleiss_items, fleiss_kappa, fleiss_kappa_test, randolph_kappa
from annotation.crowd.agreement.report import agreement_summary
from annotation.crowd.agreement.weights import kappa_weights
from annotation.crowd.io.encoding import encode, on_scale
from annotation.crowd.io.labels import read_label_columns
from cranfield.cli import main

# statsmodels' test data (test_inter_rater.py), copied so that the test does not import a test module.
TABLE10 = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
WIKIPEDIA = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]
DIAGNOSES = np.array(
    [
        [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
    ]
)  # fmt: skip
ANXIETY = np.array(
    [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3,
     3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4,
     2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2]
).reshape(20, 3, order="F")  # fmt: skip


def table_triples(table) -> list[tuple[int, str, int]]:
    """Two annotators' labels giving ``table`` (rows: annotator a's label, columns b's)."""
    triples, item = [], 0
    for i, row in enumerate(np.asarray(table, dtype=int)):
        for j, count in enumerate(row):
            for _ in range(count):
                triples += [(item, "a", i), (item, "b", j)]
                item += 1
    return triples


def count_triples(table) -> list[tuple[int, int, int]]:
    """Items × categories counts as (item, annotator slot, category) triples."""
    return [
        (item, slot, category)
        for item, row in enumerate(np.asarray(table, dtype=int))
        for slot, category in enumerate(np.repeat(np.arange(len(row)), row))
    ]


def rater_triples(matrix) -> list[tuple[int, int, int]]:
    """An items × raters matrix of labels as triples."""
    return [(item, rater, int(label)) for item, row in enumerate(matrix) for rater, label in enumerate(row)]


def sas_fields(result) -> list[float]:
    return [
        result.kappa,
        result.std_kappa,
        result.kappa_low,
        result.kappa_upp,
        result.std_kappa0,
        result.z_value,
        result.pvalue_one_sided,
        result.pvalue_two_sided,
    ]


# -- statsmodels' TestUnweightedCohens / TestWeightedCohens (a SAS printout) ---------------------


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ("none", [0.4842, 0.1380, 0.2137, 0.7547, 0.1484, 3.2626, 0.0006, 0.0011]),
        ("linear", [0.4701, 0.1457, 0.1845, 0.7558, 0.1426, 3.2971, 0.0005, 0.0010]),
    ],
)
def test_the_sas_example_of_statsmodels_tests(weights, expected):
    np.testing.assert_almost_equal(sas_fields(kappa_statistics(TABLE10, weights)), expected, decimal=4)
    # The same from labels: one pair of annotators, every item shared.
    from_labels = cohen_kappa(table_triples(TABLE10), "a", "b", weights=weights)
    np.testing.assert_almost_equal(sas_fields(from_labels), expected, decimal=4)
    pairs = cohen_kappa_pairs(table_triples(TABLE10), weights=weights, statistics=True)
    np.testing.assert_almost_equal(sas_fields(pairs.pair_statistics[("a", "b")]), expected, decimal=4)


# -- statsmodels' test_cohenskappa_weights: equivalent weightings -------------------------------


def test_equivalent_weightings_of_statsmodels_tests():
    rs = np.random.RandomState(9743678)
    table = rs.randint(0, 10, size=(5, 5)) + 5 * np.eye(5)
    merge = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 1, 1]])
    merged = merge @ table @ merge.T
    first = kappa_statistics(table, kappa_weights(np.arange(5) > 2, "linear"))
    second = kappa_statistics(merged, kappa_weights(np.arange(2), "linear"))
    assert first.kappa == pytest.approx(second.kappa, abs=1e-14)
    assert first.var_kappa == pytest.approx(second.var_kappa, abs=1e-14)

    linear = kappa_statistics(table, kappa_weights(2 * np.arange(5), "linear"))
    for other in (
        kappa_statistics(table, kappa_weights(2 * np.arange(5), "toeplitz")),
        kappa_statistics(table, "linear"),
        kappa_statistics(table, kappa_weights(np.arange(5), "linear") / 4),  # statsmodels' own matrix
    ):
        assert other.kappa == pytest.approx(linear.kappa, abs=1e-14)
        assert other.var_kappa == pytest.approx(linear.var_kappa, abs=1e-14)
    quadratic = kappa_statistics(table, kappa_weights(5 * np.arange(5) ** 2, "toeplitz"))
    other = kappa_statistics(table, kappa_weights(5 * np.arange(5), "quadratic"))
    assert other.kappa == pytest.approx(quadratic.kappa, abs=1e-14)
    assert other.var_kappa == pytest.approx(quadratic.var_kappa, abs=1e-14)
    assert kappa_statistics(table, "quadratic").var_kappa == pytest.approx(quadratic.var_kappa, abs=1e-14)


# -- statsmodels' test_cohens_kappa_irr (R irr's kappa2 on the anxiety data) ---------------------

IRR_UNWEIGHTED = (-0.006289308, -0.0604067, 0.9518317)
IRR_EQUAL = (0.1459075, 1.282472, 0.1996772)
IRR_SQUARED = (0.2520325, 1.437451, 0.1505898)
IRR_STEPS = (0.2391304, 1.223734, 0.2210526)


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ("none", IRR_UNWEIGHTED),
        ("linear", IRR_EQUAL),
        (kappa_weights(np.arange(5), "linear"), IRR_EQUAL),
        (kappa_weights(np.arange(5), "toeplitz"), IRR_EQUAL),
        ("quadratic", IRR_SQUARED),
        (kappa_weights(np.arange(5) ** 2, "toeplitz"), IRR_SQUARED),
        (kappa_weights(4 * np.arange(5) ** 2, "toeplitz"), IRR_SQUARED),
        (kappa_weights([0, 0, 1, 1, 2], "toeplitz"), IRR_STEPS),
    ],
)
def test_r_irr_kappa2_on_the_anxiety_data_of_statsmodels_tests(weights, expected):
    # irr drops the unused level 5 and works on the four-and-one levels 1, 2, 3, 4, 6; so do the
    # labels, whose classes are the levels used.
    triples = [
        (item, rater, int(label))
        for item, row in enumerate(ANXIETY[:, 1:])
        for rater, label in enumerate(row)
    ]
    result = cohen_kappa(triples, 0, 1, weights=weights)
    value, z, p = expected
    assert result.kappa == pytest.approx(value, abs=1e-6)
    assert result.z_value == pytest.approx(z, abs=1e-5)
    assert result.pvalue_two_sided == pytest.approx(p, abs=1e-6)


# -- Fleiss and Randolph (statsmodels' test_fleiss_kappa, test_fleiss_kappa_irr, test_fleis_randolph)


def test_fleiss_kappa_of_the_wikipedia_table_and_of_fleiss_diagnoses_with_irrs_z():
    assert fleiss_kappa(count_triples(WIKIPEDIA)).value == pytest.approx(0.210, abs=5e-4)
    test = fleiss_kappa_test(rater_triples(DIAGNOSES))
    assert test["kappa"] == pytest.approx(0.4302445, abs=1e-7)
    # R irr's kappam.fleiss: z = 17.65183, p = 0 (Fleiss, Nee & Landis 1979's standard error).
    assert test["z_value"] == pytest.approx(17.65183, abs=1e-5)
    assert test["pvalue_two_sided"] < 1e-60
    assert test["n_items"] == 30


@pytest.mark.parametrize(
    ("table", "fleiss", "randolph"),
    [
        ([[7, 0], [7, 0]], None, 1.0),
        ([[7, 1], [3, 5]], 0.161905, 0.214286),
        ([[7, 0], [0, 7]], 1.0, 1.0),
        ([[6, 1, 0], [0, 7, 0]], 0.708333, 0.785714),
    ],
)
def test_randolphs_online_calculator_cases_of_statsmodels_tests(table, fleiss, randolph):
    # The scale has every column of the table, used or not: Randolph's chance agreement is 1/k.
    data = on_scale(count_triples(table), list(range(len(table[0]))))
    assert randolph_kappa(data).value == pytest.approx(randolph, abs=6e-6)
    if fleiss is None:  # every rating one label: Fleiss' chance agreement is 1, kappa undefined
        assert fleiss_kappa(data).value is None
    else:
        assert fleiss_kappa(data).value == pytest.approx(fleiss, abs=6e-6)
    assert randolph_kappa(data).value >= (fleiss_kappa(data).value or -1)  # Warrens (2010)


def test_randolphs_kappa_needs_two_categories_and_counts_the_scale():
    assert randolph_kappa([(1, "a", 0), (1, "b", 0)]).value is None
    data = [(1, "a", 0), (1, "b", 0), (2, "a", 1), (2, "b", 0)]
    assert randolph_kappa(data).value == pytest.approx(0.0)  # P̄ = 1/2, k = 2
    assert randolph_kappa(on_scale(data, [0, 1, 2, 3])).value == pytest.approx((0.5 - 0.25) / 0.75)


# -- generated inputs -----------------------------------------------------------------------------

pair_labels = st.integers(2, 5).flatmap(
    lambda k: st.tuples(
        st.just(k), st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)), min_size=2, max_size=40)
    )
)


def sm_fields(table, **options) -> dict:
    with np.errstate(all="ignore"):
        result = cohens_kappa(table, **options)
    return {name: float(result[name]) for name in STATISTIC_FIELDS}


def assert_same(ours, theirs: dict) -> None:
    """Every field equal; where a variance is zero in exact arithmetic (one annotator used a single
    label), statsmodels keeps rounding noise (a standard error of 1e-8, or NaN from a variance of
    −1e-17) and ours is exactly 0, with z and p then undefined (None)."""
    flat = {"var_kappa": abs(theirs["var_kappa"]) < 1e-12, "var_kappa0": abs(theirs["var_kappa0"]) < 1e-12}
    for name in STATISTIC_FIELDS:
        mine, expected = getattr(ours, name), theirs[name]
        if name in ("var_kappa", "var_kappa0"):
            assert mine == pytest.approx(expected, rel=1e-9, abs=1e-12), name
        elif (name == "std_kappa" and flat["var_kappa"]) or (name == "std_kappa0" and flat["var_kappa0"]):
            assert mine == 0.0, name
        elif name in ("kappa_low", "kappa_upp") and flat["var_kappa"]:
            assert mine == pytest.approx(ours.kappa), name
        elif name.startswith(("z_", "pvalue")) and flat["var_kappa0"]:
            assert mine is None, name
        elif mine is None:
            assert not math.isfinite(expected), (name, expected)
        elif name in ("kappa_low", "kappa_upp"):  # statsmodels' Wald interval, truncated to [−1, 1]
            assert mine == pytest.approx(min(1.0, max(-1.0, expected)), rel=1e-9, abs=1e-9), name
        else:
            assert mine == pytest.approx(expected, rel=1e-9, abs=1e-9), name


@settings(max_examples=150, deadline=None)
@given(pair_labels, st.sampled_from(["none", "linear", "quadratic", "matrix", "scores"]), st.randoms())
def test_cohens_kappa_statistics_equal_statsmodels_on_generated_tables(case, weighting, random):
    k, pairs = case
    triples = [
        (item, annotator, label)
        for item, pair in enumerate(pairs)
        for annotator, label in zip("ab", pair, strict=True)
    ]
    data = on_scale(triples, list(range(k)))
    table = np.zeros((k, k))
    for first, second in pairs:
        table[first, second] += 1
    if weighting == "none":
        weights, options = "none", {}
    elif weighting in ("linear", "quadratic"):
        weights, options = weighting, {"wt": weighting}
    elif weighting == "matrix":
        weights = np.array([[random.choice([0.0, 0.25, 1.0, 2.0, 5.0]) for _ in range(k)] for _ in range(k)])
        np.fill_diagonal(weights, 0)
        options = {"weights": weights}
    else:
        scores = sorted(random.randint(0, 9) for _ in range(k))
        if scores[0] == scores[-1]:
            scores[-1] += 1
        weights, options = kappa_weights(scores, "linear"), {"weights": scores, "wt": "linear"}
    theirs = sm_fields(table, **options)
    if not math.isfinite(theirs["kappa"]):
        assert kappa_statistics(table, weights).kappa is None
        return
    assert_same(kappa_statistics(table, weights), theirs)
    assert_same(cohen_kappa(data, "a", "b", weights=weights), theirs)
    pairs_found = cohen_kappa_pairs(data, weights=weights, statistics=True)
    assert_same(pairs_found.pair_statistics[("a", "b")], theirs)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from("abcde"), st.integers(0, 3)),
            min_size=2,
            max_size=5,
            unique_by=lambda r: r[0],
        ),
        min_size=2,
        max_size=25,
    )
)
def test_every_pairs_statistics_equal_statsmodels_on_that_pairs_table(items):
    triples = [(item, annotator, label) for item, ratings in enumerate(items) for annotator, label in ratings]
    data = encode(triples)
    k = len(data.classes)
    result = cohen_kappa_pairs(data, weights="quadratic", statistics=True, min_shared=1)
    for (first, second), found in result.pair_statistics.items():
        by_item = {}
        for item, annotator, label in triples:
            by_item.setdefault(item, {})[annotator] = data.classes.index(label)
        table = np.zeros((k, k))
        for ratings in by_item.values():
            if first in ratings and second in ratings:
                table[ratings[first], ratings[second]] += 1
        assert found.n_items == table.sum()
        assert_same(found, sm_fields(table, wt="quadratic"))


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 5), st.integers(2, 6), st.data())
def test_randolph_equals_statsmodels_on_generated_tables(k, n, draw):
    rows = draw.draw(
        st.lists(st.lists(st.integers(0, k - 1), min_size=n, max_size=n), min_size=1, max_size=20)
    )
    data = on_scale(rater_triples(rows), list(range(k)))
    table, _ = aggregate_raters(np.array(rows), n_cat=k)
    assert randolph_kappa(data).value == pytest.approx(sm_fleiss(table, method="randolph"), abs=1e-12)


# -- reachable from the summary, the heat map and the CLI ----------------------------------------


def test_the_summary_has_the_kappa_statistics_under_new_keys():
    two = table_triples(TABLE10)
    report = agreement_summary(two, weights="linear")
    statistics = report["cohen_kappa_statistics"]
    expected = sm_fields(TABLE10, wt="linear")
    for name in STATISTIC_FIELDS:
        assert statistics[name] == pytest.approx(expected[name], abs=1e-12)
    assert report["cohen_kappa_mean"] == pytest.approx(statistics["kappa"])
    assert report["randolph_kappa"] == pytest.approx(randolph_kappa(two).value)
    assert report["fleiss_kappa_test"]["kappa"] == report["fleiss_kappa"]
    assert report["duplicates"] == "refuse" and report["duplicates_dropped"] == 0
    json.dumps(report)

    three = rater_triples(DIAGNOSES[:, :3])
    report = agreement_summary(three, pair_statistics=True, confidence=0.9)
    assert report["cohen_kappa_statistics"] is None
    rows = report["cohen_kappa_pair_statistics"]
    assert [(row["first"], row["second"]) for row in rows] == [(0, 1), (0, 2), (1, 2)]
    assert all(row["alpha"] == pytest.approx(0.05) for row in rows)
    assert np.mean([row["kappa"] for row in rows]) == pytest.approx(report["cohen_kappa_mean"])


def test_a_weight_matrix_flows_through_pairs_heat_map_bootstrap_and_summary():
    triples = rater_triples(DIAGNOSES[:, :3])
    matrix = kappa_weights(np.arange(5), "linear")
    assert cohen_kappa_pairs(triples, weights=matrix).mean == pytest.approx(
        cohen_kappa_pairs(triples, weights="linear").mean
    )
    heat = cohen_kappa_matrix(triples, weights=matrix)
    assert heat["kappa"] == cohen_kappa_matrix(triples, weights="linear")["kappa"]
    assert heat["weights"] == matrix.tolist()
    found = bootstrap_agreement(triples, weights=matrix, resamples=20, statistics=("cohen_kappa_mean",))
    same = bootstrap_agreement(triples, weights="linear", resamples=20, statistics=("cohen_kappa_mean",))
    np.testing.assert_allclose(found["cohen_kappa_mean"].replicates, same["cohen_kappa_mean"].replicates)
    assert agreement_summary(triples, weights=matrix)["cohen_kappa_weights"] == matrix.tolist()
    with pytest.raises(ValueError, match="must be 5 × 5"):
        cohen_kappa_pairs(triples, weights=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="or a matrix"):
        cohen_kappa_pairs(triples, weights="cubic")


def test_the_cli_prints_the_statistics_and_takes_a_weight_matrix(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "item,annotator,label\n" + "".join(f"{i},{a},{label}\n" for i, a, label in table_triples(TABLE10))
    )
    assert main(["agreement", str(labels), "--weight-matrix", "0,1,2;1,0,1;2,1,0"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cohen_kappa_statistics"]["z_value"] == pytest.approx(3.2971, abs=1e-4)
    assert report["cohen_kappa_weights"] == [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
    assert {"randolph_kappa", "fleiss_kappa_test", "duplicates", "fleiss_kappa", "krippendorff_alpha"} <= set(
        report
    )
    assert main(["agreement", str(labels), "--pairs"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cohen_kappa_pair_statistics"][0]["std_kappa0"] == pytest.approx(0.1484, abs=1e-4)
    assert main(["agreement", str(labels), "--weight-matrix", "0,1;1,0"]) == 2
    assert "3 × 3" in capsys.readouterr().err
    assert main(["agreement", str(labels), "--weight-matrix", "0,1,2;1,0"]) == 2
    assert "square" in capsys.readouterr().err


# -- the real crowd sets --------------------------------------------------------------------------

REAL_SETS = {
    "rte": ("crowd_snow2008", "rte_labels.csv"),
    "temp": ("crowd_snow2008", "temp_labels.csv"),
    "wsd": ("crowd_snow2008", "wsd_labels.csv"),
    "duck": ("crowd_zheng2017", "duck_bluebirds/labels.csv"),
    "dog": ("crowd_zheng2017", "dog/labels.csv"),
    "face": ("crowd_zheng2017", "face_sentiment/labels.csv"),
    "product": ("crowd_zheng2017", "product/labels.csv"),
}


@pytest.mark.parametrize("name", sorted(REAL_SETS))
def test_the_real_crowd_sets_give_statsmodels_kappa_statistics(data_set, name):
    folder, path = REAL_SETS[name]
    data = read_label_columns(data_set(folder) / path)  # refuses repeats: the sets have none
    k = len(data.classes)
    pairs = cohen_kappa_pairs(data, weights="linear", statistics=True, min_shared=10)
    label_of = {}
    for item, annotator, label in data.triples():
        label_of[item, annotator] = data.classes.index(label)
    by_item = {}
    for (item, annotator), label in label_of.items():
        by_item.setdefault(item, {})[annotator] = label
    busiest = sorted(pairs.pair_statistics.items(), key=lambda entry: -entry[1].n_items)[:25]
    for (first, second), found in busiest:
        table = np.zeros((k, k))
        for ratings in by_item.values():
            if first in ratings and second in ratings:
                table[ratings[first], ratings[second]] += 1
        assert_same(found, sm_fields(table, wt="linear"))
    kept, _ = fleiss_items(data)
    assert randolph_kappa(data).value == pytest.approx(
        sm_fleiss(data.counts[kept], method="randolph"), abs=1e-12
    )
