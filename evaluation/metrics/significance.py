"""Comparing two systems over the same topics, and correcting for many comparisons.

Paired t-test and Wilcoxon signed-rank through SciPy; the paired bootstrap test (Efron & Tibshirani
1993, §16.4: resample topics, shift the differences to mean 0) and the randomisation (permutation)
test (Fisher; Smucker, Allan & Carterette 2007: randomly swap each topic's pair) written here, seeded;
multiple-comparison correction through statsmodels' ``multipletests``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests

TESTS = ("t", "wilcoxon", "bootstrap", "randomisation")


@dataclass(frozen=True)
class TestResult:
    """A two-sided test of "no difference in mean per-topic score" between systems A and B."""

    test: str
    statistic: float
    p_value: float
    mean_difference: float
    n_topics: int


def _paired(a: Sequence[float], b: Sequence[float]) -> np.ndarray:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(
            f"per-topic scores must be paired 1-D sequences of equal length, got {a.shape}, {b.shape}"
        )
    if len(a) < 2:
        raise ValueError("a paired test needs at least two topics")
    return a - b


def paired_t_test(a: Sequence[float], b: Sequence[float]) -> TestResult:
    """Student's paired t-test (scipy.stats.ttest_rel); identical systems give p = 1."""
    differences = _paired(a, b)
    if not differences.any():
        return TestResult("t", 0.0, 1.0, 0.0, len(differences))
    result = stats.ttest_rel(a, b)
    return TestResult(
        "t", float(result.statistic), float(result.pvalue), float(differences.mean()), len(differences)
    )


def wilcoxon_test(a: Sequence[float], b: Sequence[float]) -> TestResult:
    """Wilcoxon signed-rank test (scipy.stats.wilcoxon, zero differences dropped as Wilcoxon did)."""
    differences = _paired(a, b)
    if not differences.any():
        return TestResult("wilcoxon", 0.0, 1.0, 0.0, len(differences))
    result = stats.wilcoxon(a, b, zero_method="wilcox")
    return TestResult(
        "wilcoxon", float(result.statistic), float(result.pvalue), float(differences.mean()), len(differences)
    )


def bootstrap_test(
    a: Sequence[float], b: Sequence[float], n_resamples: int = 10_000, seed: int = 0
) -> TestResult:
    """Paired bootstrap: how often a resample of the mean-shifted differences is as extreme as observed."""
    differences = _paired(a, b)
    observed = differences.mean()
    rng = np.random.default_rng(seed)
    shifted = differences - observed
    samples = rng.choice(shifted, size=(n_resamples, len(differences)), replace=True).mean(axis=1)
    p_value = (np.count_nonzero(np.abs(samples) >= abs(observed) - 1e-15) + 1) / (n_resamples + 1)
    return TestResult(
        "bootstrap", float(observed), float(min(p_value, 1.0)), float(observed), len(differences)
    )


def randomisation_test(
    a: Sequence[float], b: Sequence[float], n_resamples: int = 10_000, seed: int = 0
) -> TestResult:
    """Paired randomisation test: swap each topic's pair with probability 1/2 (flip the sign of its
    difference); the p-value counts the observed arrangement too, so it is never 0."""
    differences = _paired(a, b)
    observed = differences.mean()
    rng = np.random.default_rng(seed)
    signs = rng.choice((-1.0, 1.0), size=(n_resamples, len(differences)))
    samples = (signs * differences).mean(axis=1)
    p_value = (np.count_nonzero(np.abs(samples) >= abs(observed) - 1e-15) + 1) / (n_resamples + 1)
    return TestResult("randomisation", float(observed), float(p_value), float(observed), len(differences))


def compare_systems(a: Sequence[float], b: Sequence[float], test: str = "t", **options) -> TestResult:
    """Run the named test: ``t``, ``wilcoxon``, ``bootstrap`` or ``randomisation``."""
    runners = {
        "t": paired_t_test,
        "wilcoxon": wilcoxon_test,
        "bootstrap": bootstrap_test,
        "randomisation": randomisation_test,
    }
    if test not in runners:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, not {test!r}")
    return runners[test](a, b, **options)


def correct(
    p_values: Sequence[float], method: str = "holm", alpha: float = 0.05
) -> tuple[list[bool], list[float]]:
    """Which hypotheses to reject, and the corrected p-values (statsmodels' multipletests; any of its
    methods: holm, bonferroni, fdr_bh, …)."""
    reject, corrected, _, _ = multipletests(list(p_values), alpha=alpha, method=method)
    return [bool(r) for r in reject], [float(p) for p in corrected]


@dataclass(frozen=True)
class ConfidenceInterval:
    mean: float
    low: float
    high: float
    level: float
    method: str


def mean_confidence_interval(
    scores: Sequence[float], level: float = 0.95, method: str = "t", n_resamples: int = 10_000, seed: int = 0
) -> ConfidenceInterval:
    """A confidence interval for a system's mean score: Student's t, or a percentile bootstrap."""
    values = np.asarray(scores, dtype=float)
    if len(values) < 2:
        raise ValueError("a confidence interval needs at least two scores")
    mean = float(values.mean())
    if method == "t":
        low, high = stats.t.interval(level, len(values) - 1, loc=mean, scale=stats.sem(values))
    elif method == "bootstrap":
        result = stats.bootstrap(
            (values,), np.mean, confidence_level=level, n_resamples=n_resamples, method="percentile", rng=seed
        )
        low, high = result.confidence_interval
    else:
        raise ValueError(f"method must be 't' or 'bootstrap', not {method!r}")
    return ConfidenceInterval(mean, float(low), float(high), level, method)
