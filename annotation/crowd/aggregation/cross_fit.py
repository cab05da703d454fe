"""Accuracy of a gold-aware aggregation with every item's own gold held out (k-fold cross-fitting).

A method that is given gold answers (``dawid_skene(…, gold=…)``, ``gold_weighted_vote``) labels the
gold items themselves perfectly or nearly so; scoring it on them measures nothing. Cross-fitting
(as in V. Chernozhukov et al., "Double/debiased machine learning", Econometrics Journal 21, 2018,
and ordinary k-fold cross-validation) splits the gold items into k folds; each fold is labelled by
the method given the *other* folds' gold only, and scored on its own gold.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

import numpy as np

from annotation.crowd.aggregation.base import AggregationResult
from annotation.crowd.io.encoding import Labels, as_encoded, label_order


@dataclass(frozen=True)
class CrossFitted:
    """``accuracy`` over every gold item found in the data; ``labels`` the held-out label of each;
    ``fold_accuracy`` one figure per fold."""

    accuracy: float
    labels: dict[Hashable, Hashable]
    fold_accuracy: list[float]
    folds: int
    seed: int


def cross_fitted_accuracy(
    labels: Labels,
    gold: Mapping[Hashable, Hashable],
    aggregate: Callable[..., AggregationResult],
    *,
    folds: int = 5,
    seed: int = 0,
) -> CrossFitted:
    """Split the gold items present in ``labels`` into ``folds`` random folds (seeded; items first
    put in sorted order, so the split does not depend on dict or row order); for each fold call
    ``aggregate(data, known_gold)`` with the other folds' gold and score its labels of the fold."""
    if folds < 2:
        raise ValueError("cross-fitting needs at least 2 folds")
    data = as_encoded(labels)
    present = set(data.items)
    items = sorted((item for item in gold if item in present), key=label_order)
    if len(items) < folds:
        raise ValueError(f"{len(items)} gold items in the data: fewer than {folds} folds")
    order = np.random.default_rng(seed).permutation(len(items))
    fold_of = np.empty(len(items), dtype=np.int64)
    fold_of[order] = np.arange(len(items)) % folds
    held_out: dict[Hashable, Hashable] = {}
    fold_accuracy = []
    for fold in range(folds):
        scored = [item for item, f in zip(items, fold_of.tolist(), strict=True) if f == fold]
        known = {item: gold[item] for item, f in zip(items, fold_of.tolist(), strict=True) if f != fold}
        result = aggregate(data, known)
        right = 0
        for item in scored:
            held_out[item] = result.labels[item]
            right += result.labels[item] == gold[item]
        fold_accuracy.append(right / len(scored))
    accuracy = sum(held_out[item] == gold[item] for item in items) / len(items)
    return CrossFitted(accuracy, held_out, fold_accuracy, folds, seed)
