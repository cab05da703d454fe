"""Curves: interpolated precision-recall from a ranking; ROC (with AUC) and DET from scored outputs
against binary ground truth, and averaged over topics; Q-Q points.

ROC: Fawcett (2006), "An introduction to ROC analysis"; over topics, his vertical averaging (§8.1):
the mean true-positive rate at fixed false-positive rates, and the mean of the topics' AUCs. DET:
Martin et al. (1997), miss rate against false-alarm rate on normal-deviate (probit) axes. Q-Q:
Wilk & Gnanadesikan (1968); the one-sample version uses statsmodels' ProbPlot. Functions return
data; ``plotting`` draws it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.graphics.gofplots import ProbPlot, plotting_pos

from evaluation.metrics.trec.measures import RECALL_POINTS, interpolated_precision


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
class AveragedRocCurve:
    """ROC averaged vertically over topics: the mean true-positive rate at each false-positive rate
    of a fixed grid; ``auc`` is the mean of the topics' own AUCs; ``topics`` how many were averaged."""

    false_positive_rate: np.ndarray
    true_positive_rate: np.ndarray
    auc: float
    topics: int


def _averaging_grid() -> np.ndarray:
    """False-positive rates to average at: even on ROC's linear axis, and dense in the tails, where
    DET's probit axis spreads them out (0.1 % to 99.9 %)."""
    return np.unique(np.r_[np.linspace(0.0, 1.0, 201), stats.norm.cdf(np.linspace(-3.1, 3.1, 125))])


def true_positive_rate_at(curve: RocCurve, false_positive_rates: np.ndarray) -> np.ndarray:
    """The ROC curve's true-positive rate at each given false-positive rate (Fawcett's TPR_FOR_FPR):
    the highest rate reached at exactly that false-positive rate, else the straight line between
    the points on either side (a tie of scores is a diagonal step)."""
    fpr, tpr = curve.false_positive_rate, curve.true_positive_rate
    last = np.searchsorted(fpr, false_positive_rates, side="right") - 1  # the last point at or left
    following = np.minimum(last + 1, len(fpr) - 1)
    span = fpr[following] - fpr[last]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(span > 0, (false_positive_rates - fpr[last]) / span, 0.0)
    at_point = fpr[last] == false_positive_rates
    return np.where(at_point, tpr[last], tpr[last] + share * (tpr[following] - tpr[last]))


def topic_averaged_roc(per_topic: Iterable[tuple[Sequence[float], Sequence[int]]]) -> AveragedRocCurve:
    """Vertical average (Fawcett 2006, §8.1) of the ROC curves of the topics that have both a
    positive and a negative; the others have no curve and are left out. ValueError if none has.

    Per topic, because a score means something only against the scores of the same topic: a run's
    BM25 score of 12 may be its best document for one topic and its fortieth for another, so one
    threshold over every topic's scores ranks topics, not documents."""
    curves = []
    for scores, labels in per_topic:
        if 0 < sum(labels) < len(labels):
            curves.append(roc_curve(scores, labels))
    if not curves:
        raise ValueError("no topic has both a positive and a negative")
    grid = _averaging_grid()
    mean_tpr = np.mean([true_positive_rate_at(curve, grid) for curve in curves], axis=0)
    # From (0, 0), as every ROC curve: the grid's first point is the highest rate at no false positive.
    return AveragedRocCurve(
        np.r_[0.0, grid], np.r_[0.0, mean_tpr], float(np.mean([curve.auc for curve in curves])), len(curves)
    )


def averaged_det_curve(curve: AveragedRocCurve) -> DetCurve:
    """The topic-averaged ROC as a DET curve (miss rate = 1 − the mean true-positive rate)."""
    miss = 1.0 - curve.true_positive_rate
    with np.errstate(divide="ignore"):
        return DetCurve(
            curve.false_positive_rate, miss, stats.norm.ppf(curve.false_positive_rate), stats.norm.ppf(miss)
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
