"""Comparing two systems over the same topics, and correcting for many comparisons.

Paired t-test and Wilcoxon signed-rank through SciPy; the studentised paired bootstrap test (Efron &
Tibshirani 1993, §16.4: resample topics from the differences shifted to mean 0, compare t statistics)
and the randomisation (permutation) test (Fisher; Smucker, Allan & Carterette 2007: randomly swap each
topic's pair; exact on few topics) written here, seeded;
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
    first, second = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if first.shape != second.shape or first.ndim != 1:
        shapes = f"{first.shape}, {second.shape}"
        raise ValueError(f"per-topic scores must be paired 1-D sequences of equal length, got {shapes}")
    if len(first) < 2:
        raise ValueError("a paired test needs at least two topics")
    return first - second


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


def _t_statistics(samples: np.ndarray) -> np.ndarray:
    """Paired t statistics of each row of differences: mean / (sd / sqrt(n)).

    A row without spread has t = 0 if its mean is 0, else ±infinity (all the evidence there is).
    """
    n = samples.shape[-1]
    means = samples.mean(axis=-1)
    sds = samples.std(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.where(sds > 0, means / (sds / np.sqrt(n)), 0.0)
    flat = np.where(np.abs(means) > 1e-12, np.copysign(np.inf, means), 0.0)
    return np.where(sds > 0, spread, flat)


def bootstrap_test(
    a: Sequence[float], b: Sequence[float], n_resamples: int = 10_000, seed: int = 0
) -> TestResult:
    """Studentised paired bootstrap (Efron & Tibshirani 1993, §16.4 with the studentised statistic of
    §12.5; Sakai 2006's formulation for IR): resample topics from the differences shifted to mean 0,
    and count how often a resample's paired t is as extreme as the observed t.

    The t statistic, not the plain mean, is what is resampled: the mean's bootstrap distribution is
    too narrow on few topics (the plain version rejected a true null 14.7 % of the time at α = 0.05
    with 5 topics). Studentised, it holds its level from about 10 topics and is conservative below
    (tests/metrics/test_significance.py's null simulation).
    """
    differences = _paired(a, b)
    observed = float(differences.mean())
    observed_t = float(_t_statistics(differences))
    rng = np.random.default_rng(seed)
    shifted = differences - observed
    samples = _t_statistics(rng.choice(shifted, size=(n_resamples, len(differences)), replace=True))
    p_value = (np.count_nonzero(np.abs(samples) >= abs(observed_t) - 1e-12) + 1) / (n_resamples + 1)
    return TestResult("bootstrap", observed_t, float(min(p_value, 1.0)), observed, len(differences))


def randomisation_test(
    a: Sequence[float], b: Sequence[float], n_resamples: int = 10_000, seed: int = 0
) -> TestResult:
    """Paired randomisation test: swap each topic's pair with probability 1/2 (flip the sign of its
    difference) and count how often the mean difference is as extreme as observed.

    Exact (every one of the 2^n sign patterns) when there are no more of them than ``n_resamples``;
    otherwise ``n_resamples`` random patterns, counting the observed one too, so p is never 0.
    """
    differences = _paired(a, b)
    observed = differences.mean()
    n = len(differences)
    if 2**n <= n_resamples:
        patterns = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
        samples = ((1.0 - 2.0 * patterns) * differences).mean(axis=1)
        p_value = np.count_nonzero(np.abs(samples) >= abs(observed) - 1e-15) / 2**n
    else:
        rng = np.random.default_rng(seed)
        signs = rng.choice((-1.0, 1.0), size=(n_resamples, n))
        samples = (signs * differences).mean(axis=1)
        p_value = (np.count_nonzero(np.abs(samples) >= abs(observed) - 1e-15) + 1) / (n_resamples + 1)
    return TestResult("randomisation", float(observed), float(p_value), float(observed), n)


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
