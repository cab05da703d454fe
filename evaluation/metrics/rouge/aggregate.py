"""Corpus-level ROUGE: the mean of per-item scores with bootstrap confidence intervals.

ROUGE-1.5.5 (``computeAverages``, ``bootstrapResampling``) averages the per-item recall,
precision and F separately and estimates a confidence interval from ``-r`` bootstrap resamples of
the items (default 1000, ``-c`` 95 %). From the sorted resample means it reads the bounds at
fractional ranks: with δ = B·(100 − c)/200, the lower bound interpolates between ranks ⌊δ⌋ and
⌊δ⌋+1 and the upper one between ⌊B − δ − 1⌋ and the next, both with the fraction
B − δ − 1 − ⌊B − δ − 1⌋ (for B = 1000, c = 95: ranks 25 and 974, 0-based). We use that rule.
Two differences, both deliberate: our point estimate is the plain mean of the items (ROUGE-1.5.5
prints the mean of its resample means, which moves with the random draw), and our resamples come
from NumPy's seeded generator (Perl's ``srand``/``rand`` cannot be reproduced across builds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

STATISTICS = ("precision", "recall", "fmeasure")
_CHUNK = 100_000  # resampled item indices drawn at a time, to bound memory


def confidence_bounds(sorted_means: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """ROUGE-1.5.5's interpolated order statistics of sorted resample means (rows = resamples)."""
    resamples = len(sorted_means)
    delta = resamples * (100 - confidence) / 200
    upper_a = int(resamples - delta - 1)
    lower_a = int(delta)
    ratio = resamples - delta - 1 - upper_a
    upper_b = min(upper_a + 1, resamples - 1)
    lower_b = min(lower_a + 1, resamples - 1)
    low = sorted_means[lower_a] + (sorted_means[lower_b] - sorted_means[lower_a]) * ratio
    high = sorted_means[upper_a] + (sorted_means[upper_b] - sorted_means[upper_a]) * ratio
    return low, high


def bootstrap_means(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Means of ``resamples`` bootstrap resamples of the rows of ``values`` (items × columns)."""
    rng = np.random.default_rng(seed)
    n = len(values)
    means = np.empty((resamples, values.shape[1]))
    per_chunk = max(1, _CHUNK // n)
    for start in range(0, resamples, per_chunk):
        stop = min(resamples, start + per_chunk)
        picks = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = values[picks].mean(axis=1)
    return means


def aggregate(
    items: Sequence[Mapping[str, Sequence[float]]],
    *,
    bootstrap: int = 1000,
    confidence: float = 95.0,
    seed: int = 0,
) -> dict[str, dict]:
    """Mean precision, recall and F per ROUGE type over items, with optional bootstrap intervals.

    ``items`` holds, per item, a mapping from ROUGE type to (precision, recall, fmeasure).
    With ``bootstrap`` ≥ 2 resamples (default 1000, ROUGE-1.5.5's ``-r``; 0 for none) each type
    also gets ``"confidence_interval"``: the level, the number of resamples, the seed and
    [low, high] per statistic.
    """
    if not items:
        raise ValueError("no items to aggregate")
    if bootstrap == 1 or bootstrap < 0:
        raise ValueError("bootstrap needs at least 2 resamples (0 turns it off)")
    if not 0 < confidence < 100:
        raise ValueError(f"confidence must be between 0 and 100, got {confidence}")
    types = list(items[0])
    # One matrix, items × (type, statistic), so every type is resampled with the same draws.
    values = np.array([[value for name in types for value in item[name]] for item in items], dtype=float)
    means = values.mean(axis=0)
    if bootstrap:
        resampled = np.sort(bootstrap_means(values, bootstrap, seed), axis=0)
        low, high = confidence_bounds(resampled, confidence)
    result: dict[str, dict] = {}
    for index, rouge_type in enumerate(types):
        columns = slice(3 * index, 3 * index + 3)
        summary: dict = {name: float(mean) for name, mean in zip(STATISTICS, means[columns], strict=True)}
        if bootstrap:
            bounds = zip(STATISTICS, low[columns], high[columns], strict=True)
            summary["confidence_interval"] = {
                "level": confidence / 100,
                "resamples": bootstrap,
                "seed": seed,
                **{name: [float(lo), float(hi)] for name, lo, hi in bounds},
            }
        result[rouge_type] = summary
    return result
