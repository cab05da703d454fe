"""Curves: interpolated precision-recall from a ranking; ROC (with AUC) and DET from scored outputs
against binary ground truth; Q-Q points.

ROC: Fawcett (2006), "An introduction to ROC analysis". DET: Martin et al. (1997), miss rate against
false-alarm rate on normal-deviate (probit) axes. Q-Q: Wilk & Gnanadesikan (1968); the one-sample
version uses statsmodels' ProbPlot. Functions return data; ``plotting`` draws it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.graphics.gofplots import ProbPlot, plotting_pos

from .trec_measures import RECALL_POINTS, interpolated_precision


@dataclass(frozen=True)
class PrecisionRecallCurve:
    """Precision and recall at each relevant document's rank (the full curve), and trec_eval's
    interpolated precision at the standard recall points (11 by default)."""

    recall: np.ndarray
    precision: np.ndarray
    recall_points: tuple[float, ...]
    interpolated_precision: list[float]


def precision_recall_curve(
    ranking: Sequence[str], relevant: Iterable[str], recall_points: Sequence[float] = RECALL_POINTS
) -> PrecisionRecallCurve:
    """The P-R curve of one ranked list against its relevant set; interpolation as trec_eval 10.0's
    iprec_at_recall (best precision at or after the ⌊p·R⌉-th relevant document)."""
    relevant = set(relevant)
    if len(set(ranking)) != len(ranking):
        raise ValueError("a ranking lists each document once")
    hits = np.fromiter((docno in relevant for docno in ranking), dtype=bool, count=len(ranking))
    ranks = np.flatnonzero(hits) + 1
    precision = np.arange(1, len(ranks) + 1) / ranks if len(ranks) else np.zeros(0)
    recall = np.arange(1, len(ranks) + 1) / len(relevant) if relevant else np.zeros(0)
    points = tuple(recall_points)
    return PrecisionRecallCurve(
        recall, precision, points, interpolated_precision(precision, len(relevant), points, "10.0")
    )


@dataclass(frozen=True)
class RocCurve:
    """False- and true-positive rates at every distinct score threshold, highest threshold first."""

    false_positive_rate: np.ndarray
    true_positive_rate: np.ndarray
    thresholds: np.ndarray
    auc: float


@dataclass(frozen=True)
class DetCurve:
    """False-alarm and miss rates, and their probit (normal-deviate) transforms for DET axes."""

    false_alarm_rate: np.ndarray
    miss_rate: np.ndarray
    false_alarm_deviate: np.ndarray
    miss_deviate: np.ndarray


def _validated(scores: Sequence[float], labels: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    values = np.asarray(scores, dtype=float)
    classes = np.asarray(labels)
    if values.shape != classes.shape or values.ndim != 1:
        raise ValueError(
            f"scores and labels must be equal-length 1-D sequences, got {values.shape}, {classes.shape}"
        )
    if not np.isin(classes, (0, 1)).all():
        raise ValueError("labels must be 0 (negative) or 1 (positive)")
    if classes.sum() in (0, len(classes)):
        raise ValueError("labels need at least one positive and one negative")
    if np.isnan(values).any():
        raise ValueError("scores must not be NaN")
    return values, classes.astype(int)


def roc_curve(scores: Sequence[float], labels: Sequence[int]) -> RocCurve:
    """ROC points at every distinct threshold (ties form one step), starting at (0, 0), and the
    area under the curve by the trapezoidal rule, which credits ties with half a pair."""
    values, classes = _validated(scores, labels)
    order = np.argsort(-values, kind="mergesort")
    values, classes = values[order], classes[order]
    last_of_each_score = np.r_[np.flatnonzero(np.diff(values)), len(values) - 1]
    true_positives = np.cumsum(classes)[last_of_each_score]
    false_positives = (last_of_each_score + 1) - true_positives
    tpr = np.r_[0.0, true_positives / classes.sum()]
    fpr = np.r_[0.0, false_positives / (len(classes) - classes.sum())]
    thresholds = np.r_[np.inf, values[last_of_each_score]]
    return RocCurve(fpr, tpr, thresholds, float(np.trapezoid(tpr, fpr)))


def det_curve(scores: Sequence[float], labels: Sequence[int]) -> DetCurve:
    """DET points (the ROC points as miss rate against false-alarm rate) with probit transforms;
    rates of exactly 0 or 1 have infinite deviates and are kept, for the caller to clip."""
    roc = roc_curve(scores, labels)
    miss = 1.0 - roc.true_positive_rate
    with np.errstate(divide="ignore"):
        return DetCurve(
            roc.false_positive_rate, miss, stats.norm.ppf(roc.false_positive_rate), stats.norm.ppf(miss)
        )


@dataclass(frozen=True)
class QQPoints:
    """Paired quantiles: ``x`` of the reference (sample or distribution), ``y`` of the sample."""

    x: np.ndarray
    y: np.ndarray


def qq_two_samples(sample: Sequence[float], reference: Sequence[float]) -> QQPoints:
    """Quantiles of two samples, paired at the plotting positions of the smaller one and
    interpolated in the larger with ``mquantiles``, as statsmodels' ``ProbPlot.qqplot(other=…)``."""
    ys, xs = np.sort(np.asarray(sample, dtype=float)), np.sort(np.asarray(reference, dtype=float))
    if len(ys) < 2 or len(xs) < 2:
        raise ValueError("each sample needs at least two values")
    if len(ys) < len(xs):
        xs = stats.mstats.mquantiles(xs, plotting_pos(len(ys), 0.0)).data
    elif len(xs) < len(ys):
        ys = stats.mstats.mquantiles(ys, plotting_pos(len(xs), 0.0)).data
    return QQPoints(xs, ys)


def qq_against_distribution(sample: Sequence[float], distribution=stats.norm, fit: bool = True) -> QQPoints:
    """Theoretical quantiles of ``distribution`` (fitted to the sample when ``fit``) against the
    sorted sample, exactly as statsmodels' ``ProbPlot(sample, dist, fit=fit)`` computes them."""
    plot = ProbPlot(np.asarray(sample, dtype=float), dist=distribution, fit=fit)
    return QQPoints(plot.theoretical_quantiles, plot.sample_quantiles)
