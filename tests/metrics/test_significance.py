"""Significance tests against SciPy's and statsmodels' own, plus the properties any such test has."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evaluation.metrics.significance import (
    TESTS,
    bootstrap_test,
    compare_systems,
    correct,
    paired_t_test,
    randomisation_test,
    wilcoxon_test,
)

RNG = np.random.default_rng(2007)
SYSTEM_A = RNG.uniform(0.1, 0.6, size=50)
SYSTEM_B = np.clip(SYSTEM_A + RNG.normal(0.03, 0.08, size=50), 0, 1)


def test_t_test_and_wilcoxon_equal_scipy():
    assert paired_t_test(SYSTEM_A, SYSTEM_B).p_value == pytest.approx(
        stats.ttest_rel(SYSTEM_A, SYSTEM_B).pvalue
    )
    assert wilcoxon_test(SYSTEM_A, SYSTEM_B).p_value == pytest.approx(
        stats.wilcoxon(SYSTEM_A, SYSTEM_B).pvalue
    )


def test_randomisation_approximates_the_exact_permutation_p_value():
    a, b = SYSTEM_A[:12], SYSTEM_B[:12]
    exact = stats.permutation_test(
        (a, b),
        lambda x, y: np.mean(x - y),
        permutation_type="samples",
        n_resamples=np.inf,
        alternative="two-sided",
    ).pvalue
    ours = randomisation_test(a, b, n_resamples=20_000, seed=1).p_value
    assert ours == pytest.approx(exact, abs=0.015)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "bootstrap", "randomisation"])
def test_identical_systems_are_not_different(test):
    assert compare_systems(SYSTEM_A, SYSTEM_A, test).p_value == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "bootstrap", "randomisation"])
def test_a_large_consistent_improvement_is_significant(test):
    result = compare_systems(SYSTEM_A + 0.2, SYSTEM_A, test)
    assert result.p_value < 0.001
    assert result.mean_difference == pytest.approx(0.2)


def test_bootstrap_and_randomisation_are_reproducible_with_a_seed():
    assert bootstrap_test(SYSTEM_A, SYSTEM_B, seed=5) == bootstrap_test(SYSTEM_A, SYSTEM_B, seed=5)
    assert randomisation_test(SYSTEM_A, SYSTEM_B, seed=5) == randomisation_test(SYSTEM_A, SYSTEM_B, seed=5)


def test_holm_correction_worked_example():
    # Holm (1979): sorted p-values times (m, m-1, …), made monotone.
    reject, corrected = correct([0.01, 0.04, 0.03, 0.005], method="holm")
    assert corrected == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert reject == [True, False, False, True]
    assert correct([0.01, 0.04], method="bonferroni")[1] == pytest.approx([0.02, 0.08])


def test_unpaired_or_too_short_input_is_refused():
    with pytest.raises(ValueError, match="paired"):
        paired_t_test([0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="at least two topics"):
        paired_t_test([0.1], [0.2])
    with pytest.raises(ValueError, match="test must be one of"):
        compare_systems(SYSTEM_A, SYSTEM_B, "anova")


def test_the_randomisation_test_is_the_exact_permutation_p_on_few_topics():
    for n in (4, 6, 9):
        a, b = SYSTEM_A[:n], SYSTEM_B[:n]
        exact = stats.permutation_test(
            (a, b),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            n_resamples=np.inf,
            alternative="two-sided",
            vectorized=True,
        ).pvalue
        assert randomisation_test(a, b).p_value == pytest.approx(exact, abs=1e-12)


def test_the_demo_runs_are_not_significantly_different_on_five_topics():
    """Issue 12's case: per-topic AP of the first demo's two runs against its reference qrels (five
    topics, before the demo became a 25-topic campaign; ``cranfield trec-eval -q -m map`` on them).
    The plain bootstrap of the mean gave p = 0.006; the exact randomisation p is 4/32."""
    fulltext = [0.5, 0.0833, 0.125, 0.1667, 0.0909]
    title = [0.4583, 0.0357, 0.0, 0.1667, 0.0384]
    assert randomisation_test(fulltext, title).p_value == pytest.approx(4 / 32)
    assert bootstrap_test(fulltext, title).p_value > 0.05
    assert paired_t_test(fulltext, title).p_value > 0.05


NULL_REPLICATES = 2000
# The Monte-Carlo interval of a 5 % rejection rate over 2,000 replicates (±1.96 standard errors).
NULL_HALF_WIDTH = 1.96 * np.sqrt(0.05 * 0.95 / NULL_REPLICATES)


@pytest.mark.parametrize("topics", [5, 10, 25, 50])
def test_under_the_null_no_test_rejects_more_often_than_its_level(topics):
    """2,000 pairs of systems with no difference (normal per-topic differences) per topic count.

    Every test's false-positive rate at α = 0.05 stays below the Monte-Carlo interval's upper end
    (never liberal); the t-test and, from 10 topics, the studentised bootstrap fall inside it. On 5
    topics a rank or sign test cannot reach p = 0.05 at all (its smallest two-sided p is 2/32), so
    Wilcoxon and the exact randomisation test never reject there, and the bootstrap is conservative.
    """
    rng = np.random.default_rng(topics)
    rejected = dict.fromkeys(TESTS, 0)
    for replicate in range(NULL_REPLICATES):
        a = rng.uniform(0.2, 0.8, topics)
        b = a + rng.normal(0, 0.1, topics)
        for test in TESTS:
            resampled = test in ("bootstrap", "randomisation")
            options = {"n_resamples": 999, "seed": replicate} if resampled else {}
            rejected[test] += compare_systems(a, b, test, **options).p_value <= 0.05
    rates = {test: count / NULL_REPLICATES for test, count in rejected.items()}
    low, high = 0.05 - NULL_HALF_WIDTH, 0.05 + NULL_HALF_WIDTH
    assert all(rate <= high for rate in rates.values()), rates
    assert low <= rates["t"] <= high, rates
    if topics >= 10:
        assert low <= rates["bootstrap"] <= high, rates
        assert low <= rates["randomisation"] <= high, rates
