"""Bootstrap intervals of means over topics (or inputs) that cannot leave the scores' range (pure).

The **expanded percentile bootstrap** (Hesterberg 2015, "What teachers should know about the
bootstrap", The American Statistician 69(4), §4.4; his R package ``resample``'s
``CI.percentile(expand = TRUE)``): resample the topics with replacement, take the mean of each
resample, and read the resampled means at the probabilities

    p_low = Φ(√(n / (n − 1)) · t_{(1 − level)/2, n − 1}),   p_high = 1 − p_low

instead of (1 − level)/2 and (1 + level)/2. A plain percentile interval is too narrow on few
topics (the bootstrap's spread uses a divisor of n, and the normal's tails are thinner than
Student's t with n − 1 degrees of freedom); the expansion corrects both, and as n grows it becomes
the plain percentile interval. Either way both ends are means of resampled scores, so they lie
between the smallest and the largest score: a measure in [0, 1] gets an interval inside [0, 1],
and a count such as ``num_ret`` one inside the counts observed, with nothing clipped.

Every system is resampled over the same drawn topics (the systems were scored on the same topics),
and a draw is the same as ``scipy.stats.bootstrap``'s with the same seed and resamples:
``stats.bootstrap((table,), np.mean, axis=-1, method="percentile", confidence_level=1 − 2 p_low,
rng=seed)`` gives the same interval (tests/metrics/test_intervals.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from annotation.crowd.minimums import INPUTS_FOR_INTERVAL, TOPICS_FOR_INTERVAL, Minimum

# Resamples drawn at once: a chunk's count matrix is CHUNK × units floats.
CHUNK = 1000


@dataclass(frozen=True)
class IntervalMethod:
    """How an interval of a mean over units (topics, inputs) is computed, to state it beside it."""

    level: float = 0.95
    resamples: int = 10_000
    seed: int = 0
    unit: str = "topics"
    minimum: Minimum = TOPICS_FOR_INTERVAL

    name = "expanded percentile bootstrap"

    def describe(self) -> str:
        """The method in words, as pages state it."""
        return (
            f"{self.level:.0%} {self.name} over {self.unit} (Hesterberg 2015), {self.resamples:,} resamples, "
            f"seed {self.seed}; none with fewer than {self.minimum.count} {self.unit}"
        )

    def signature(self) -> str:
        """The method as signature fields (sacrebleu's ``key:value|…`` style)."""
        return (
            f"ci:boot-xpct|level:{self.level:g}|B:{self.resamples}|seed:{self.seed}"
            f"|unit:{self.unit}|min:{self.minimum.count}"
        )

    def as_dict(self) -> dict:
        return {
            "method": self.name,
            "level": self.level,
            "resamples": self.resamples,
            "seed": self.seed,
            "unit": self.unit,
            "minimum": self.minimum.count,
            "description": self.describe(),
        }


# The leaderboard's intervals: a mean over topics.
OVER_TOPICS = IntervalMethod()
# A system's mean rating over inputs (the systems page; ``meta_evaluation.system_scores``).
OVER_INPUTS = IntervalMethod(resamples=1000, unit="inputs", minimum=INPUTS_FOR_INTERVAL)


@dataclass(frozen=True)
class MeanInterval:
    """A mean over ``n`` units with its interval, or None bounds and the ``reason`` there is none."""

    mean: float
    low: float | None
    high: float | None
    n: int
    reason: str | None = None


def expanded_probabilities(n: int, level: float) -> tuple[float, float]:
    """The probabilities at which the expanded percentile interval reads the resampled means."""
    from scipy import stats

    if n < 2:
        raise ValueError("an interval needs at least two units")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, not {level}")
    low = float(stats.norm.cdf(math.sqrt(n / (n - 1)) * stats.t.ppf((1 - level) / 2, n - 1)))
    return low, 1.0 - low


def resampled_means(table: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """The mean of every row of ``table`` (systems × units) over each resample of the units:
    ``resamples`` × systems. Resample r draws ``rng.integers(0, n, n)`` as SciPy's bootstrap does."""
    n = table.shape[1]
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, table.shape[0]))
    for start in range(0, resamples, CHUNK):
        size = min(CHUNK, resamples - start)
        drawn = rng.integers(0, n, (size, n))
        # How often each unit was drawn, row by row: the mean is then one matrix product.
        cells = (np.arange(size)[:, None] * n + drawn).ravel()
        counts = np.bincount(cells, minlength=size * n).reshape(size, n).astype(float)
        out[start : start + size] = counts @ table.T / n
    return out


def mean_intervals(
    columns: Sequence[Sequence[float]], method: IntervalMethod = OVER_TOPICS
) -> list[MeanInterval]:
    """Each sequence's mean with its expanded percentile interval (``method``), all resampled over
    the same units; sequences must have one value per unit, in the same order. Below
    ``method.minimum`` units there is no interval, and each result says why."""
    table = np.asarray(columns, dtype=float)
    if table.ndim != 2:
        raise ValueError("give one sequence of values per system, every one over the same units")
    n = table.shape[1]
    means = table.mean(axis=1) if n else np.full(len(table), math.nan)
    reason = method.minimum.reason(n, method.unit)
    if reason is not None or not len(table):
        return [MeanInterval(float(mean), None, None, n, reason) for mean in means]
    low_p, high_p = expanded_probabilities(n, method.level)
    replicates = resampled_means(table, method.resamples, method.seed)
    low, high = np.quantile(replicates, [low_p, high_p], axis=0)
    # Mathematically every resampled mean lies between the smallest and the largest value; keep the
    # ends there despite rounding, and a constant row's interval on its mean.
    low = np.clip(low, table.min(axis=1), table.max(axis=1))
    high = np.clip(high, table.min(axis=1), table.max(axis=1))
    constant = np.ptp(table, axis=1) == 0
    low, high = np.where(constant, means, low), np.where(constant, means, high)
    return [
        MeanInterval(float(mean), float(lo), float(hi), n)
        for mean, lo, hi in zip(means.tolist(), low.tolist(), high.tolist(), strict=True)
    ]
