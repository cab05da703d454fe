"""A leaderboard's statistics from per-topic scores (pure; no Django): each system's mean with a
confidence interval and rank, and paired significance tests between systems, corrected for the
number of comparisons made (statsmodels' ``multipletests``).

Scores come as ``{system: [score per topic]}``, every list in the same topic order (score runs with
trec_eval's ``-c`` so that a topic a run lacks counts 0 and the lists pair up).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from .significance import compare_systems, correct, mean_confidence_interval

# Correction methods accepted besides statsmodels' own names: none leaves the p-values as they are.
NO_CORRECTION = "none"


@dataclass(frozen=True)
class BoardRow:
    system: str
    rank: int  # 1 = best; ties share no rank (broken by name, so the order is a function of scores)
    mean: float
    low: float  # the confidence interval of the mean (equal to it with fewer than two topics)
    high: float
    topics: int


@dataclass(frozen=True)
class PairComparison:
    first: str  # the better of the two by mean
    second: str
    difference: float  # mean of first − mean of second, ≥ 0
    p_value: float  # the test's own p
    corrected_p: float  # after the correction for the number of pairs compared
    significant: bool


def board(scores: Mapping[str, Sequence[float]], level: float = 0.95, method: str = "t") -> list[BoardRow]:
    """Systems best first by mean score, each with a ``level`` confidence interval of its mean
    (``method`` t or bootstrap, as ``significance.mean_confidence_interval``)."""
    rows = []
    for system, given in scores.items():
        values = np.asarray(given, dtype=float)
        if len(values) >= 2 and np.ptp(values) > 0:
            interval = mean_confidence_interval(list(given), level, method)
            low, high = interval.low, interval.high
        else:  # one topic, or every topic the same: no spread to speak of
            low = high = float(values.mean()) if len(values) else float("nan")
        mean = float(values.mean()) if len(values) else float("nan")
        rows.append((system, mean, low, high, len(values)))
    rows.sort(key=lambda row: (-row[1], row[0]))
    return [
        BoardRow(system, rank, mean, low, high, n)
        for rank, (system, mean, low, high, n) in enumerate(rows, 1)
    ]


def compare_pairs(
    scores: Mapping[str, Sequence[float]],
    pairs: Sequence[tuple[str, str]],
    *,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    **options,
) -> list[PairComparison]:
    """Test each pair of systems (paired over topics) and correct the p-values for the number of
    pairs; each result names the better system first."""
    raw = []
    for a, b in pairs:
        first, second = (a, b) if np.mean(scores[a]) >= np.mean(scores[b]) else (b, a)
        result = compare_systems(scores[first], scores[second], test, **options)
        p_value = 1.0 if np.isnan(result.p_value) else result.p_value  # identical scores: no evidence
        raw.append((first, second, float(np.mean(scores[first]) - np.mean(scores[second])), p_value))
    p_values = [p for *_, p in raw]
    if correction == NO_CORRECTION or not raw:
        corrected, reject = p_values, [p < alpha for p in p_values]
    else:
        reject, corrected = correct(p_values, correction, alpha)
    return [
        PairComparison(first, second, difference, p, q, significant)
        for (first, second, difference, p), q, significant in zip(raw, corrected, reject, strict=True)
    ]


def all_pairs(scores: Mapping[str, Sequence[float]], **options) -> list[PairComparison]:
    """Every pair of systems compared (``compare_pairs``); with n systems that is n(n−1)/2 tests,
    which the correction accounts for."""
    ordered = [row.system for row in board(scores)]
    return compare_pairs(scores, list(combinations(ordered, 2)), **options)


def against_best(scores: Mapping[str, Sequence[float]], **options) -> tuple[str, list[PairComparison]]:
    """The best system by mean, and each other system compared with it (n−1 tests, corrected)."""
    ordered = [row.system for row in board(scores)]
    best = ordered[0]
    return best, compare_pairs(scores, [(best, other) for other in ordered[1:]], **options)
