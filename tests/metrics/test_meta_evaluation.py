"""Metric-versus-human correlation at three levels, Williams' test and pairwise accuracy, against
SciPy on the same vectors and a hand computation; and on DialSummEval (a test fixture only: its
terms forbid shipping it) against the figures its PROVENANCE.md gives."""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evaluation.metrics.meta_evaluation import (
    correlations,
    level_correlation,
    paired,
    pairwise_accuracy,
    system_means,
    williams_test,
)

SYSTEMS = [f"s{i}" for i in range(6)]
INPUTS = [f"d{i}" for i in range(30)]


def generated(seed: int = 1):
    rng = random.Random(seed)
    quality = {system: rng.random() for system in SYSTEMS}
    human, metric = [], []
    for system in SYSTEMS:
        for item in INPUTS:
            truth = quality[system] + rng.gauss(0, 0.3)
            human.append((system, item, round(truth * 4 + 1, 2)))
            metric.append((system, item, truth + rng.gauss(0, 0.4)))
    return metric, human


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_each_level_is_scipys_correlation_of_the_right_vectors(method):
    metric, human = generated()
    pairs = paired(metric, human)
    function = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[method]
    flat = list(pairs.values())
    assert level_correlation(pairs, "global", method) == pytest.approx(
        function([m for m, _ in flat], [h for _, h in flat]).statistic
    )
    m_means, h_means = system_means(metric), system_means(human)
    assert level_correlation(pairs, "system", method) == pytest.approx(
        function([m_means[s] for s in SYSTEMS], [h_means[s] for s in SYSTEMS]).statistic
    )
    per_input = [
        function([pairs[s, d][0] for s in SYSTEMS], [pairs[s, d][1] for s in SYSTEMS]).statistic
        for d in INPUTS
    ]
    assert level_correlation(pairs, "summary", method) == pytest.approx(sum(per_input) / len(per_input))


def test_bootstrap_intervals_surround_the_values_and_repeat_with_a_seed():
    metric, human = generated(2)
    first = correlations(metric, human, resamples=200, seed=4)
    assert first == correlations(metric, human, resamples=200, seed=4)
    assert len(first) == 9
    for result in first:
        assert result.low <= result.value <= result.high, result
    assert {r.n for r in first if r.level == "system"} == {len(SYSTEMS)}


def bootstrap_by_definition(metric, human, level, method, resamples, seed=0):
    """The replicates as the bootstrap defines them: draw the inputs with replacement, build the
    resampled outputs (each drawn copy of an input a new input), and correlate them at ``level``."""
    import numpy as np

    pairs = paired(metric, human)
    inputs = sorted({item for _, item in pairs})
    by_input = defaultdict(list)
    for (system, item), values in pairs.items():
        by_input[item].append((system, values))
    rng = np.random.default_rng(seed)
    replicates = []
    for _ in range(resamples):
        draw = rng.integers(0, len(inputs), len(inputs))
        sample = {
            (system, f"{inputs[index]}#{copy}"): values
            for copy, index in enumerate(draw)
            for system, values in by_input[inputs[index]]
        }
        value = level_correlation(sample, level, method)
        if not math.isnan(value):
            replicates.append(value)
    return [float(np.percentile(replicates, 2.5)), float(np.percentile(replicates, 97.5))]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_bootstrap_intervals_equal_resampling_by_definition(seed):
    """The fast path (weights per draw) against building every resampled sample, on outputs with
    gaps: a system missing some inputs, an input with a single output, a constant input."""
    metric, human = generated(seed)
    metric = [row for row in metric if not (row[0] == "s5" and row[1] in {"d1", "d2", "d3"})]
    metric = [row for row in metric if row[1] != "d4" or row[0] == "s0"]
    human = [(s, d, 3.0) if d == "d5" else (s, d, v) for s, d, v in human]
    found = correlations(metric, human, resamples=40, seed=seed)
    for result in found:
        expected = bootstrap_by_definition(metric, human, result.level, result.method, 40, seed)
        assert [result.low, result.high] == pytest.approx(expected, abs=1e-12), result


def test_williams_test_equals_a_hand_computation():
    # r12 = 0.6 (metric A with humans), r13 = 0.4 (metric B with humans), r23 = 0.5 (A with B), n = 50:
    # |R| = 1 - .36 - .16 - .25 + 2(.6)(.4)(.5) = 0.47
    # t = 0.2 √(49 × 1.5) / √(2 × 49/47 × 0.47 + (1.0/2)² × 0.5³) = 1.714643 / 1.005609 = 1.705079
    result = williams_test(0.6, 0.4, 0.5, 50)
    assert result.t == pytest.approx(0.2 * math.sqrt(73.5) / math.sqrt(2 * 49 / 47 * 0.47 + 0.25 * 0.125))
    assert result.t == pytest.approx(1.705079, abs=1e-6)
    assert result.degrees_of_freedom == 47
    assert result.p_value == pytest.approx(stats.t.sf(1.705079, 47), abs=1e-6)
    assert williams_test(0.4, 0.6, 0.5, 50).t == pytest.approx(-result.t)  # antisymmetric
    assert williams_test(0.5, 0.5, 0.9, 30).p_value == pytest.approx(0.5)  # equal correlations
    # Two metrics that are one (a metric and its copy, or an error rate and its negation negated):
    # no difference, where the formula divides 0 by 0.
    same = williams_test(0.9994810586485823, 0.9994810586485823, 1.0, 10)
    assert (same.t, same.p_value, same.degrees_of_freedom) == (0.0, 0.5, 7)


def test_pairwise_accuracy_counts_pairs_ordered_as_the_humans_order_them():
    human = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 1.0}
    metric = {"a": 0.9, "b": 0.5, "c": 0.7, "d": 0.1}
    # Pairs the humans tell apart: ab ac ad bc bd (c = d is a human tie); the metric gets bc wrong.
    assert pairwise_accuracy(metric, human) == pytest.approx(4 / 5)


MODEL_NAMES = {"A": "GOLD", "B": "LONGEST_3", "D": "PGN", "E": "Transformer", "F": "BART"}


@pytest.fixture(scope="module")
def dialsummeval(data_set):
    rows = [json.loads(line) for line in (data_set("summ_dialsummeval") / "human_judgment.jsonl").open()]
    assert len(rows) == 1400
    return rows


def test_dialsummeval_mean_relevance_per_system_equals_its_provenance(dialsummeval):
    relevance = [
        (row["model_id"], row["id"], sum(a["relevance"] for a in row["annotations"]) / 3)
        for row in dialsummeval
    ]
    means = system_means(relevance)
    expected = {"A": 4.170, "B": 4.427, "F": 3.633, "D": 2.347, "E": 1.797}
    assert {model: round(means[model], 3) for model in expected} == expected


def test_dialsummeval_correlations_are_scipys_on_the_same_vectors(dialsummeval):
    """Summary length against mean coherence: a metric that needs no reference, so every system counts."""
    human = [
        (r["model_id"], r["id"], sum(a["coherence"] for a in r["annotations"]) / 3) for r in dialsummeval
    ]
    metric = [(r["model_id"], r["id"], float(len(r["summary"].split()))) for r in dialsummeval]
    pairs = paired(metric, human)
    by_system = defaultdict(list)
    for (system, _), values in pairs.items():
        by_system[system].append(values)
    system_m = [sum(m for m, _ in v) / len(v) for v in by_system.values()]
    system_h = [sum(h for _, h in v) / len(v) for v in by_system.values()]
    assert level_correlation(pairs, "system", "kendall") == pytest.approx(
        stats.kendalltau(system_m, system_h).statistic
    )
    flat = list(pairs.values())
    assert level_correlation(pairs, "global", "spearman") == pytest.approx(
        stats.spearmanr([m for m, _ in flat], [h for _, h in flat]).statistic
    )


def test_system_scores_resample_inputs_and_equal_a_hand_computation():
    """The expanded percentile interval (Hesterberg 2015) of each system's mean over the same
    resampled inputs: the resampled means read at ``expanded_probabilities(30)``."""
    import numpy as np

    from evaluation.metrics.intervals import expanded_probabilities
    from evaluation.metrics.meta_evaluation import system_scores

    rng = np.random.default_rng(4)
    records = [(s, f"in{i}", float(rng.integers(1, 6))) for s in ("a", "b") for i in range(30)]
    rows = {row.system: row for row in system_scores(records, resamples=500, seed=9)}
    inputs = sorted({i for _, i, _ in records})
    draws = np.random.default_rng(9).integers(0, len(inputs), (500, len(inputs)))
    for system in ("a", "b"):
        values = np.array([v for s, i, v in sorted(records, key=lambda r: inputs.index(r[1])) if s == system])
        expected = np.quantile(values[draws].mean(axis=1), expanded_probabilities(30, 0.95))
        assert (rows[system].low, rows[system].high) == pytest.approx(tuple(expected))
        assert rows[system].mean == pytest.approx(values.mean()) and rows[system].median == np.median(values)
        assert rows[system].low <= rows[system].mean <= rows[system].high and rows[system].outputs == 30
        assert rows[system].inputs == 30 and rows[system].reason is None
    # Nine inputs are too few: no interval, and the reason.
    few = system_scores([r for r in records if int(r[1][2:]) < 9], resamples=500)
    assert all(
        row.low is None and row.reason == "too few inputs for an interval (9; needs at least 10)"
        for row in few
    )


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("abc"), st.integers(0, 14), st.integers(1, 5)), min_size=1, max_size=80
    )
)
def test_a_systems_rating_interval_lies_inside_the_scale_and_its_own_ratings(rows):
    from evaluation.metrics.meta_evaluation import system_scores

    records = [(system, f"in{i}", float(score)) for system, i, score in rows]
    for row in system_scores(records, resamples=200):
        ratings = [value for system, _, value in records if system == row.system]
        if row.low is None:
            assert row.inputs < 10 and row.reason
        else:
            assert 1 <= min(ratings) <= row.low <= row.mean <= row.high <= max(ratings) <= 5


def test_dialsummeval_system_scores_put_the_systems_in_the_provenance_order_with_intervals(dialsummeval):
    from evaluation.metrics.meta_evaluation import system_scores

    relevance = [
        (row["model_id"], row["id"], sum(a["relevance"] for a in row["annotations"]) / 3)
        for row in dialsummeval
    ]
    rows = {row.system: row for row in system_scores(relevance, resamples=300)}
    for model, mean in {"A": 4.170, "B": 4.427, "F": 3.633, "D": 2.347, "E": 1.797}.items():
        assert round(rows[model].mean, 3) == mean and rows[model].low < mean < rows[model].high
        assert rows[model].outputs == 100


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
def test_per_group_correlations_equal_scipys_on_each_group(method):
    """Hundreds of groups of 1 to 20 outputs, with ties (integer ratings), constant sides and
    single outputs, all sizes at once: each equals SciPy's correlation of that group (NaN where SciPy's
    is undefined or a group has one output)."""
    import numpy as np

    from evaluation.metrics.meta_evaluation import per_group_correlations

    rng = random.Random(11)
    groups = []
    for _ in range(400):
        size = rng.randint(1, 20)
        kind = rng.random()
        metric = [round(rng.random(), 2) for _ in range(size)]
        human = [float(rng.randint(1, 5)) for _ in range(size)]
        if kind < 0.05:
            human = [3.0] * size  # a constant side
        elif kind < 0.1:
            metric = [0.5] * size
        groups.append(list(zip(metric, human, strict=True)))
    found = per_group_correlations(groups, method)
    function = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[method]
    for group, value in zip(groups, found, strict=True):
        metric, human = [m for m, _ in group], [h for _, h in group]
        if len(group) < 2 or len(set(metric)) == 1 or len(set(human)) == 1:
            assert np.isnan(value), group
        else:
            assert value == pytest.approx(function(metric, human).statistic, abs=1e-12), group


def test_williams_test_needs_eight_systems_and_says_why_below():
    from evaluation.metrics.meta_evaluation import williams_test, williams_tests

    rng = random.Random(8)
    for systems in (4, 7, 8, 12):
        names = [f"s{k}" for k in range(systems)]
        human = {s: rng.random() for s in names}
        metrics = {
            "good": {s: human[s] + rng.gauss(0, 0.1) for s in names},
            "poor": {s: rng.random() for s in names},
        }
        report = williams_tests("good", metrics, human)
        assert report.systems == systems
        if systems < 8:
            assert report.tests == []
            assert report.reason == f"too few systems for Williams' test ({systems}; needs at least 8)"
            continue
        (test,) = report.tests
        r = {
            pair: stats.pearsonr([a[s] for s in names], [b[s] for s in names]).statistic
            for pair, (a, b) in {
                "12": (human, metrics["good"]),
                "13": (human, metrics["poor"]),
                "23": (metrics["good"], metrics["poor"]),
            }.items()
        }
        expected = williams_test(r["12"], r["13"], r["23"], systems)
        assert report.reason is None and test["p_value"] == pytest.approx(expected.p_value)
        assert test["degrees_of_freedom"] == systems - 3


def test_a_correlation_on_four_systems_has_no_value_but_the_reason_and_others_keep_theirs():
    from evaluation.metrics.meta_evaluation import correlations

    rng = random.Random(4)
    human = [(f"s{k}", f"in{i}", rng.random()) for k in range(4) for i in range(12)]
    metric = [(s, i, h + rng.gauss(0, 0.2)) for s, i, h in human]
    found = {(c.level, c.method): c for c in correlations(metric, human, resamples=100)}
    for method in ("pearson", "spearman", "kendall"):
        system = found[("system", method)]
        assert math.isnan(system.value) and math.isnan(system.low) and system.n == 4
        assert system.reason == "too few systems for a correlation (4; needs at least 5)"
        for level in ("summary", "global"):
            other = found[(level, method)]
            assert other.reason is None and other.interval_reason is None
            assert -1 <= other.low <= other.high <= 1


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 11), st.floats(0, 1), st.floats(0, 1)),
        min_size=2,
        max_size=60,
        unique_by=lambda row: (row[0], row[1]),
    )
)
def test_every_correlation_interval_lies_in_minus_one_one(rows):
    from evaluation.metrics.meta_evaluation import correlations

    metric = [(f"s{s}", f"in{i}", m) for s, i, m, _ in rows]
    human = [(f"s{s}", f"in{i}", h) for s, i, _, h in rows]
    for found in correlations(metric, human, resamples=40):
        if not math.isnan(found.low):
            assert -1 <= found.low <= found.high <= 1
        if not math.isnan(found.value):
            assert -1 <= found.value <= 1


# -- the same outputs on both sides, and ties kept as ties (issue 24, item 6) ---------------------------


def test_equal_means_tie_whatever_order_or_thirds_they_are_summed_from():
    """Ratings averaged over three raters are thirds, which no float holds exactly: system means equal
    as fractions must be equal floats, or ranks, Kendall's tau and pairwise accuracy split a tie."""
    from fractions import Fraction
    from itertools import combinations_with_replacement

    by_exact_mean: dict[Fraction, set[float]] = defaultdict(set)
    naive: dict[Fraction, set[float]] = defaultdict(set)
    for ratings in combinations_with_replacement(range(3, 16), 4):
        thirds = [r / 3 for r in ratings]
        exact = Fraction(sum(ratings), 12)
        for order in (thirds, thirds[::-1]):
            (mean,) = system_means(("s", f"d{i}", v) for i, v in enumerate(order)).values()
            by_exact_mean[exact].add(mean)
            naive[exact].add(sum(order) / len(order))
    assert any(len(values) > 1 for values in naive.values())  # the float sums do split ties …
    assert all(len(values) == 1 for values in by_exact_mean.values())  # … the means do not
    assert all(abs(next(iter(v)) - float(k)) < 1e-11 for k, v in by_exact_mean.items())


def test_ranks_tau_and_pairwise_accuracy_see_exact_human_ties_as_ties():
    # Systems a and b have the same mean rating as fractions (14/12), from different thirds.
    human = [("a", "d0", 1.0), ("a", "d1", 1.0), ("a", "d2", 1.0), ("a", "d3", 5 / 3)]
    human += [("b", "d0", 1.0), ("b", "d1", 1.0), ("b", "d2", 4 / 3), ("b", "d3", 4 / 3)]
    human += [("c", f"d{i}", 2.0) for i in range(4)] + [("e", f"d{i}", 0.5) for i in range(4)]
    assert sum(v for s, _, v in human if s == "a") / 4 != sum(v for s, _, v in human if s == "b") / 4
    # Summed naively, a's mean is the larger (1.1666666666666667 against 1.1666666666666665), and the
    # metric, which puts b first, would be wrong on a pair the humans do not tell apart.
    metric = [(s, d, {"a": 0.6, "b": 0.7, "c": 0.9, "e": 0.1}[s]) for s, d, _ in human]
    means = system_means(human)
    assert means["a"] == means["b"]
    # The humans tie a and b: five pairs are left, all ordered as the metric orders them.
    assert pairwise_accuracy(system_means(metric), means) == 1.0
    exact = {"a": 14 / 12, "b": 14 / 12, "c": 2.0, "e": 0.5}
    systems = sorted(exact)
    expected = stats.kendalltau([system_means(metric)[s] for s in systems], [exact[s] for s in systems])
    assert level_correlation(paired(metric, human), "system", "kendall") == pytest.approx(expected.statistic)


def test_system_level_figures_use_the_outputs_both_sides_score():
    from evaluation.metrics.meta_evaluation import one_sided, paired_system_means, shared_outputs

    metric, human = generated()
    unrated = {(s, d) for s, d, _ in human if (int(s[1:]) * 7 + int(d[1:])) % 3 == 0}
    rated = [row for row in human if row[:2] not in unrated]
    metric_means, human_means = paired_system_means(metric, rated)
    kept = [row for row in metric if row[:2] not in unrated]
    assert metric_means == system_means(kept) and human_means == system_means(rated)
    assert metric_means != system_means(metric)  # over every output the metric's means differ
    systems = sorted(metric_means)
    x, y = [metric_means[s] for s in systems], [human_means[s] for s in systems]
    # The correlation beside them rests on the same means.
    pairs = paired(metric, rated)
    assert level_correlation(pairs, "system", "pearson") == pytest.approx(stats.pearsonr(x, y).statistic)
    assert level_correlation(pairs, "system", "kendall") == pytest.approx(stats.kendalltau(x, y).statistic)
    assert one_sided(metric, rated) == {
        "outputs_without_rating": len(unrated),
        "outputs_without_score": 0,
        "systems_without_rating": 0,
        "systems_without_score": 0,
    }
    other = [row for row in metric if row[0] != "s5"]
    shared_human, shared = shared_outputs(rated, {"m": metric, "o": other})
    keys = {row[:2] for row in shared_human}
    assert keys == {row[:2] for row in shared["m"]} == {row[:2] for row in shared["o"]}
    assert keys == {row[:2] for row in rated if row[0] != "s5"}
