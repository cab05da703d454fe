"""Assessor quality and rating summaries: pure functions over (item, worker, label) triples."""

from __future__ import annotations

import statistics
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from .aggregation import AggregationResult
from .agreement import Triple


@dataclass(frozen=True)
class AssessorQuality:
    worker: Hashable
    n_labels: int
    gold_answered: int
    gold_accuracy: float | None
    agreement_with_aggregate: float
    reliability: float | None
    median_seconds: float | None
    flagged: bool


def assessor_quality(
    labels: Iterable[Triple],
    aggregate: AggregationResult,
    *,
    gold: Mapping[Hashable, Hashable] | None = None,
    seconds: Mapping[tuple[Hashable, Hashable], float] | None = None,
    threshold: float = 0.7,
) -> list[AssessorQuality]:
    """One row per assessor, worst first.

    ``flagged`` when gold accuracy is below ``threshold``, or — for an assessor who answered no
    gold — when agreement with the aggregate is. ``reliability`` is Dawid–Skene's estimate when the
    aggregate came from it. ``seconds`` maps (item, worker) to time spent on that judgement.
    """
    gold = gold or {}
    seconds = seconds or {}
    reliability = aggregate.parameters.get("worker_reliability", {})
    per_worker: dict[Hashable, list[tuple[Hashable, Hashable]]] = {}
    for item, worker, label in labels:
        per_worker.setdefault(worker, []).append((item, label))
    rows = []
    for worker, answers in per_worker.items():
        on_gold = [(item, label) for item, label in answers if item in gold]
        gold_accuracy = (
            sum(label == gold[item] for item, label in on_gold) / len(on_gold) if on_gold else None
        )
        agreed = [label == aggregate.labels[item] for item, label in answers if item in aggregate.labels]
        agreement = sum(agreed) / len(agreed) if agreed else 0.0
        times = [seconds[(item, worker)] for item, _ in answers if (item, worker) in seconds]
        judged_by = gold_accuracy if gold_accuracy is not None else agreement
        rows.append(
            AssessorQuality(
                worker,
                len(answers),
                len(on_gold),
                gold_accuracy,
                agreement,
                reliability.get(worker),
                statistics.median(times) if times else None,
                judged_by < threshold,
            )
        )
    return sorted(
        rows,
        key=lambda row: row.gold_accuracy if row.gold_accuracy is not None else row.agreement_with_aggregate,
    )


def without_workers(labels: Iterable[Triple], blocked: Iterable[Hashable]) -> list[Triple]:
    """The labels minus those of blocked assessors, so ground truth can exclude them."""
    blocked = set(blocked)
    return [(item, worker, label) for item, worker, label in labels if worker not in blocked]


@dataclass(frozen=True)
class RatingSummary:
    """Likert ratings of one item on one dimension: centre, dispersion, and a confidence in [0, 1]."""

    mean: float
    median: float
    std: float
    iqr: float
    n: int
    confidence: float


def summarise_ratings(
    labels: Iterable[Triple], scale: tuple[float, float] = (1, 5)
) -> dict[Hashable, RatingSummary]:
    """Mean, median, population standard deviation and interquartile range per item.

    Confidence is 1 − std / std_max, where std_max = (high − low) / 2 is the largest standard
    deviation ratings on the scale can have (half at each end): unanimous ratings give 1.
    """
    low, high = scale
    if high <= low:
        raise ValueError(f"scale must be (low, high) with low < high, got {scale}")
    by_item: dict[Hashable, list[float]] = {}
    for item, _, value in labels:
        value = float(value)
        if not low <= value <= high:
            raise ValueError(f"rating {value} of item {item!r} is outside the scale {low}–{high}")
        by_item.setdefault(item, []).append(value)
    summaries = {}
    for item, values in by_item.items():
        array = np.asarray(values)
        q1, q3 = np.percentile(array, [25, 75])
        std = float(array.std())
        summaries[item] = RatingSummary(
            float(array.mean()),
            float(np.median(array)),
            std,
            float(q3 - q1),
            len(values),
            1 - std / ((high - low) / 2),
        )
    return summaries
