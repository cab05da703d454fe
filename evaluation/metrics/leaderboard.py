"""A leaderboard's statistics from per-topic scores (pure; no Django): each system's mean with a
bootstrap interval over topics and rank, and paired significance tests between systems, corrected
for the number of comparisons made (statsmodels' ``multipletests``).

Scores come as ``{system: [score per topic]}``, every list in the same topic order (score runs with
trec_eval's ``-c`` so that a topic a run lacks counts 0 and the lists pair up). Below the stated
minimums (``annotation.crowd.minimums``) a row has no interval and a pair no verdict, and each says
why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from annotation.crowd.minimums import TOPICS_FOR_TEST, Minimum
from evaluation.metrics.intervals import OVER_TOPICS, IntervalMethod, mean_intervals
from evaluation.metrics.significance import compare_systems, correct

# Correction methods accepted besides statsmodels' own names: none leaves the p-values as they are.
NO_CORRECTION = "none"


@dataclass(frozen=True)
class BoardRow:
    system: str
    rank: int  # 1 = best; ties share no rank (broken by name, so the order is a function of scores)
    mean: float
    low: float | None  # the interval of the mean (``IntervalMethod``); None below its minimum
    high: float | None
    topics: int
    reason: str | None = None  # why there is no interval


@dataclass(frozen=True)
class PairComparison:
    first: str  # the better of the two by mean
    second: str
    difference: float  # mean of first − mean of second, ≥ 0
    p_value: float | None  # the test's own p; None below the minimum of topics
    corrected_p: float | None  # after the correction for the number of pairs compared
    significant: bool | None  # None: no verdict (too few topics)
    topics: int = 0


def ranking(scores: Mapping[str, Sequence[float]]) -> list[str]:
    """Systems best first by mean score (ties by name, so the order is a function of the scores)."""
    means = {
        system: float(np.mean(values)) if len(values) else float("nan") for system, values in scores.items()
    }
    return sorted(means, key=lambda system: (-means[system], system))


def board(scores: Mapping[str, Sequence[float]], method: IntervalMethod = OVER_TOPICS) -> list[BoardRow]:
    """Systems best first by mean score, each with its interval over topics by ``method`` (every
    system resampled over the same topics), or None bounds and the reason below its minimum."""
    systems = list(scores)
    intervals = dict(zip(systems, mean_intervals([scores[s] for s in systems], method), strict=True))
    return [
        BoardRow(system, rank, found.mean, found.low, found.high, found.n, found.reason)
        for rank, system in enumerate(ranking(scores), 1)
        for found in (intervals[system],)
    ]


def significance_reason(
    scores: Mapping[str, Sequence[float]], minimum: Minimum = TOPICS_FOR_TEST
) -> str | None:
    """Why the systems' pairs get no significance verdict (too few topics), or None."""
    topics = len(next(iter(scores.values()))) if scores else 0
    return minimum.reason(topics)


def compare_pairs(
    scores: Mapping[str, Sequence[float]],
    pairs: Sequence[tuple[str, str]],
    *,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    minimum: Minimum = TOPICS_FOR_TEST,
    **options,
) -> list[PairComparison]:
    """Test each pair of systems (paired over topics) and correct the p-values for the number of
    pairs; each result names the better system first. Below ``minimum`` topics no pair is tested:
    each keeps its difference, with no p and no verdict (``significance_reason`` says why)."""
    means = {system: float(np.mean(values)) for system, values in scores.items()}
    ordered = [(a, b) if means[a] >= means[b] else (b, a) for a, b in pairs]
    topics = len(next(iter(scores.values()))) if scores else 0
    if not minimum.met(topics):
        return [
            PairComparison(first, second, means[first] - means[second], None, None, None, topics)
            for first, second in ordered
        ]
    p_values = []
    for first, second in ordered:
        result = compare_systems(scores[first], scores[second], test, **options)
        p_values.append(1.0 if np.isnan(result.p_value) else result.p_value)  # identical: no evidence
    if correction == NO_CORRECTION or not p_values:
        corrected, reject = p_values, [p < alpha for p in p_values]
    else:
        reject, corrected = correct(p_values, correction, alpha)
    return [
        PairComparison(first, second, means[first] - means[second], p, q, significant, topics)
        for (first, second), p, q, significant in zip(ordered, p_values, corrected, reject, strict=True)
    ]


def all_pairs(scores: Mapping[str, Sequence[float]], **options) -> list[PairComparison]:
    """Every pair of systems compared (``compare_pairs``); with n systems that is n(n−1)/2 tests,
    which the correction accounts for."""
    ordered = ranking(scores)
    return compare_pairs(scores, list(combinations(ordered, 2)), **options)


def against_best(scores: Mapping[str, Sequence[float]], **options) -> tuple[str, list[PairComparison]]:
    """The best system by mean, and each other system compared with it (n−1 tests, corrected)."""
    ordered = ranking(scores)
    best = ordered[0]
    return best, compare_pairs(scores, [(best, other) for other in ordered[1:]], **options)
