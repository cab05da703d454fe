"""Set-based measures from a confusion matrix: precision, recall, F-beta, accuracy, specificity.

Definitions as in Manning, Raghavan & Schütze, *Introduction to Information Retrieval* (2008), §8.3;
F-beta after van Rijsbergen (1979): ``F_β = (1 + β²)·P·R / (β²·P + R)``. A ratio whose denominator
is zero is 0.0 (scikit-learn's ``zero_division=0``), so an empty result never raises.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class ConfusionMatrix:
    """Counts of true/false positives and negatives (a "positive" is a retrieved document)."""

    tp: int
    fp: int
    fn: int
    tn: int = 0

    def __post_init__(self) -> None:
        for name in ("tp", "fp", "fn", "tn"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")

    @classmethod
    def from_sets(
        cls, retrieved: Iterable, relevant: Iterable, collection_size: int | None = None
    ) -> ConfusionMatrix:
        """Counts from a retrieved set and a relevant set; ``tn`` needs the collection's size."""
        retrieved, relevant = set(retrieved), set(relevant)
        tp = len(retrieved & relevant)
        fp = len(retrieved - relevant)
        fn = len(relevant - retrieved)
        if collection_size is None:
            return cls(tp, fp, fn)
        tn = collection_size - tp - fp - fn
        if tn < 0:
            raise ValueError(
                f"collection_size {collection_size} is smaller than the documents named ({tp + fp + fn})"
            )
        return cls(tp, fp, fn, tn)


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def precision(m: ConfusionMatrix) -> float:
    """TP / (TP + FP): the fraction of retrieved documents that are relevant."""
    return _ratio(m.tp, m.tp + m.fp)


def recall(m: ConfusionMatrix) -> float:
    """TP / (TP + FN): the fraction of relevant documents that are retrieved."""
    return _ratio(m.tp, m.tp + m.fn)


def f_beta(m: ConfusionMatrix, beta: float = 1.0) -> float:
    """(1 + β²)·TP / ((1 + β²)·TP + β²·FN + FP); β > 1 weighs recall more, β < 1 precision."""
    if beta < 0:
        raise ValueError(f"beta must be >= 0, got {beta}")
    b2 = beta * beta
    return _ratio((1 + b2) * m.tp, (1 + b2) * m.tp + b2 * m.fn + m.fp)


def accuracy(m: ConfusionMatrix) -> float:
    """(TP + TN) / all: misleading in IR, where TN dwarfs everything, but asked for."""
    return _ratio(m.tp + m.tn, m.tp + m.fp + m.fn + m.tn)


def specificity(m: ConfusionMatrix) -> float:
    """TN / (TN + FP): the true-negative rate."""
    return _ratio(m.tn, m.tn + m.fp)


def fallout(m: ConfusionMatrix) -> float:
    """FP / (FP + TN): the false-alarm rate (1 − specificity when defined)."""
    return _ratio(m.fp, m.fp + m.tn)


def miss_rate(m: ConfusionMatrix) -> float:
    """FN / (FN + TP): 1 − recall when defined."""
    return _ratio(m.fn, m.fn + m.tp)
