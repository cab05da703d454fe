"""What every aggregation method shares: its result (labels, confidences, parameters), vote counts, the
canonical order that makes results independent of input order, gold clamping and weighted scores."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from annotation.crowd.io.encoding import Encoded, Labels, as_encoded, label_order


@dataclass(frozen=True)
class AggregationResult:
    """Labels per item, a confidence per item, the items that were ties, and how it was made.

    ``parameters`` names every setting (it goes into a snapshot's signature). ``model`` holds what
    the method estimated, as NumPy arrays, for reports: Dawid–Skene's ``classes``, ``annotators``,
    ``priors`` (K), ``confusion`` (annotators × true class × given label), ``annotator_labels``
    (labels per annotator) and ``posterior`` (items × K); see ``quality.dawid_skene_annotators``.
    """

    labels: dict[Hashable, Hashable]
    confidence: dict[Hashable, float]
    ties: list[Hashable]
    method: str
    parameters: dict = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # How each item of ``ties`` was decided: the tie rule's name, or ``lower`` where the rule could
    # not decide (the gold-weighted tie-break when the tied labels' weights are equal too).
    tie_breaks: dict[Hashable, str] = field(default_factory=dict)


def vote_counts(data: Encoded) -> np.ndarray:
    """Items × classes matrix of how many labels of each class every item received."""
    return data.counts.astype(float)


def _encoded(labels: Labels) -> Encoded:
    data = as_encoded(labels)
    if len(data) == 0:
        raise ValueError("no labels to aggregate")
    return data


def _decoded(data: Encoded, winners: np.ndarray, confidence: np.ndarray) -> tuple[dict, dict]:
    classes = np.array(data.classes, dtype=object)
    return (
        dict(zip(data.items, classes[winners].tolist(), strict=True)),
        dict(zip(data.items, confidence.tolist(), strict=True)),
    )


class _GoldClamp:
    """Sets the posterior of every gold item to its known label (crowd-kit's
    ``_correct_probas_with_golden``); ``count`` is how many items it clamps."""

    def __init__(self, rows: np.ndarray, codes: np.ndarray):
        self.rows, self.codes, self.count = rows, codes, len(rows)

    def __call__(self, posterior: np.ndarray) -> np.ndarray:
        if self.count:
            posterior[self.rows] = 0.0
            posterior[self.rows, self.codes] = 1.0
        return posterior


def gold_clamp(data: Encoded, gold: Mapping[Hashable, Hashable] | None) -> _GoldClamp:
    """The clamp for ``gold`` on ``data``: items absent from the data, or whose gold label no
    annotator gave (so it is no class of the model), are left alone."""
    if not gold:
        return _GoldClamp(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    code = {label: index for index, label in enumerate(data.classes)}
    pairs = [
        (row, code[gold[item]]) for row, item in enumerate(data.items) if item in gold and gold[item] in code
    ]
    rows = np.array([row for row, _ in pairs], dtype=np.int64)
    codes = np.array([label for _, label in pairs], dtype=np.int64)
    return _GoldClamp(rows, codes)


def canonical(data: Encoded) -> Encoded:
    """``data`` with items and annotators in sorted order (numbers first, as ``label_order``), rows
    sorted by (item, annotator, label): the same judgements in any row order give the same arrays,
    so every sum of an EM step is taken in the same order and the result depends on the data only."""
    item_order = _sorted_positions(data.items)
    annotator_order = _sorted_positions(data.annotators)
    item_rank = np.empty(len(item_order), dtype=np.int64)
    item_rank[item_order] = np.arange(len(item_order))
    annotator_rank = np.empty(len(annotator_order), dtype=np.int64)
    annotator_rank[annotator_order] = np.arange(len(annotator_order))
    item_index = item_rank[data.item_index]
    annotator_index = annotator_rank[data.annotator_index]
    rows = _row_order(item_index, annotator_index, data.label_index, len(annotator_order), len(data.classes))
    items = [data.items[i] for i in item_order.tolist()]
    annotators = [data.annotators[i] for i in annotator_order.tolist()]
    return Encoded(
        items, annotators, data.classes, item_index[rows], annotator_index[rows], data.label_index[rows]
    )


def _row_order(
    items: np.ndarray, annotators: np.ndarray, labels: np.ndarray, n_annotators: int, n_classes: int
) -> np.ndarray:
    """The rows sorted by (item, annotator, label): one stable sort of a single integer key when the
    key fits in 63 bits (a tenth of the time of lexsort's three sorts), else lexsort."""
    if len(items) and (int(items.max()) + 1) * max(n_annotators, 1) * max(n_classes, 1) < 2**62:
        key = (items * max(n_annotators, 1) + annotators) * max(n_classes, 1) + labels
        return np.argsort(key, kind="stable")
    return np.lexsort((labels, annotators, items))


def _sorted_positions(values: list) -> np.ndarray:
    """Positions that sort ``values`` (numbers first, then strings), NumPy's sort when all share a type."""
    array = np.asarray(values) if values else np.zeros(0, dtype=np.int64)
    if array.ndim == 1 and array.dtype.kind in "iuU" and len({type(v) for v in values}) == 1:
        return np.argsort(array, kind="stable")
    return np.array(sorted(range(len(values)), key=lambda i: label_order(values[i])), dtype=np.int64)


# crowd-kit's floor for probabilities inside logarithms (``_EPS`` in its dawid_skene.py).
_CLIP = 1e-10


# log 0 (a label the annotator never gave) as a finite number, so that 0 × it in a sum over judgements is 0.
_LOG_FLOOR = -1e300


# Weighted scores this close (relative) are a tie: sums of the same weights in another order differ
# in the last bits.
_TIE_TOLERANCE = 1e-9


def weighted_scores(data: Encoded, weights: np.ndarray) -> np.ndarray:
    """Items × classes: the sum of the weights of the annotators who gave each label to each item."""
    n_classes = len(data.classes)
    return np.bincount(
        data.item_index * n_classes + data.label_index,
        weights=weights[data.annotator_index],
        minlength=len(data.items) * n_classes,
    ).reshape(len(data.items), n_classes)


def agreement_with(data: Encoded, winners: np.ndarray) -> np.ndarray:
    """Each annotator's share of judgements equal to ``winners`` (a class code per item): crowd-kit's
    ``get_accuracy(data, labels, by="worker")``."""
    n_annotators = len(data.annotators)
    agreed = np.bincount(
        data.annotator_index, weights=(data.label_index == winners[data.item_index]), minlength=n_annotators
    )
    return agreed / np.maximum(np.bincount(data.annotator_index, minlength=n_annotators), 1)


def probability_result(
    data: Encoded, posterior: np.ndarray, method: str, parameters: dict, model: dict | None = None
) -> AggregationResult:
    """An ``AggregationResult`` from items × classes probabilities (or normalised scores): the label
    is the argmax (ties, equal to 1e-12, to the smallest class, listed), confidence its probability."""
    n_items = len(data.items)
    winners = posterior.argmax(axis=1)
    top = posterior[np.arange(n_items), winners]
    tied = np.flatnonzero((posterior >= (top - 1e-12)[:, None]).sum(axis=1) > 1)
    result_labels, confidence = _decoded(data, winners, np.clip(top, 0.0, 1.0))
    items = np.array(data.items, dtype=object)
    return AggregationResult(
        result_labels,
        confidence,
        items[tied].tolist(),
        method,
        parameters,
        {"classes": data.classes, "annotators": data.annotators, "items": data.items, "posterior": posterior}
        | (model or {}),
    )


def gold_weights(data: Encoded, gold: Mapping[Hashable, Hashable]) -> np.ndarray:
    """Each annotator's weight in the gold-weighted vote, from their answers to the items of ``gold``.

    Weight = log((K − 1)·a / (1 − a)), the optimal weight for an annotator who is right with
    probability a and otherwise picks uniformly among the K − 1 wrong labels (Nitzan & Paroush
    1982); a is Laplace-smoothed, (correct + 1) / (answered + K), so an annotator with no gold
    answers has a = 1/K and weight 0.
    """
    n_classes = len(data.classes)
    if n_classes < 2:  # one label: nothing to weigh (and a = 1 would give an infinite weight)
        return np.zeros(len(data.annotators))
    # Each item's gold label as a class code; -1 for items without gold (or a gold label no one gave,
    # which no judgement can match).
    code = {label: index for index, label in enumerate(data.classes)}
    gold_code = np.array([code.get(gold[item], -2) if item in gold else -1 for item in data.items])
    item_gold = gold_code[data.item_index]
    on_gold = item_gold != -1
    answered = np.bincount(data.annotator_index[on_gold], minlength=len(data.annotators))
    correct = np.bincount(
        data.annotator_index[on_gold & (data.label_index == item_gold)], minlength=len(data.annotators)
    )
    accuracy = (correct + 1) / (answered + n_classes)
    return np.log((n_classes - 1) * accuracy / (1 - accuracy))
