"""Aggregating crowd labels into one label per item, with a confidence in [0, 1]."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .agreement import Triple, label_order

TIE_RULES = ("smallest", "largest", "random")


@dataclass(frozen=True)
class AggregationResult:
    """Labels per item, a confidence per item, the items that were ties, and how it was made."""

    labels: dict[Hashable, Hashable]
    confidence: dict[Hashable, float]
    ties: list[Hashable]
    method: str
    parameters: dict = field(default_factory=dict)


def majority_vote(
    labels: Iterable[Triple], *, tie_rule: str = "smallest", seed: int = 0
) -> AggregationResult:
    """The most frequent label per item; confidence is the winner's share of the votes.

    Ties are broken by a named rule and listed in ``ties``: ``smallest`` (the conservative choice
    for relevance: a 1–1 split is not relevant), ``largest``, or ``random`` (seeded, reproducible).
    """
    if tie_rule not in TIE_RULES:
        raise ValueError(f"tie_rule must be one of {', '.join(TIE_RULES)}, not {tie_rule!r}")
    data = encode(labels)
    votes = vote_counts(data)
    top = votes.max(axis=1)
    leaders = votes == top[:, None]
    if tie_rule == "smallest":
        winners = leaders.argmax(axis=1)
    elif tie_rule == "largest":
        winners = leaders.shape[1] - 1 - leaders[:, ::-1].argmax(axis=1)
    else:
        winners = (np.random.default_rng(seed).random(leaders.shape) * leaders).argmax(axis=1)
    share = top / votes.sum(axis=1)
    tied = leaders.sum(axis=1) > 1
    parameters = {"tie_rule": tie_rule} | ({"seed": seed} if tie_rule == "random" else {})
    return AggregationResult(
        dict(zip(data.items, (data.classes[w] for w in winners.tolist()), strict=True)),
        dict(zip(data.items, share.tolist(), strict=True)),
        [item for item, is_tied in zip(data.items, tied.tolist(), strict=True) if is_tied],
        "majority",
        parameters,
    )


def vote_counts(data: Encoded) -> np.ndarray:
    """Items × classes matrix of how many labels of each class every item received."""
    n_classes = len(data.classes)
    flat = np.bincount(data.item_index * n_classes + data.label_index, minlength=len(data.items) * n_classes)
    return flat.reshape(len(data.items), n_classes).astype(float)


@dataclass(frozen=True)
class Encoded:
    """Triples as integer arrays, with the original items, workers and labels for decoding."""

    items: list
    workers: list
    classes: list
    item_index: np.ndarray
    worker_index: np.ndarray
    label_index: np.ndarray


def encode(labels: Iterable[Triple]) -> Encoded:
    """Integer codes for items and workers (first-seen order) and labels (classes sorted
    numbers-first), via pandas' hash-based ``factorize``."""
    triples = labels if isinstance(labels, list) else list(labels)
    if not triples:
        raise ValueError("no labels to aggregate")
    frame = pd.DataFrame(triples, columns=["item", "worker", "label"])
    item_index, item_values = pd.factorize(frame["item"], sort=False)
    worker_index, worker_values = pd.factorize(frame["worker"], sort=False)
    label_codes, label_values = pd.factorize(frame["label"], sort=False)
    classes = sorted(label_values.tolist(), key=label_order)
    remap = np.array([classes.index(label) for label in label_values.tolist()], dtype=np.int64)
    return Encoded(
        item_values.tolist(),
        worker_values.tolist(),
        classes,
        item_index.astype(np.int64),
        worker_index.astype(np.int64),
        remap[label_codes],
    )


def dawid_skene(
    labels: Iterable[Triple],
    *,
    max_iterations: int = 100,
    tolerance: float = 1e-5,
    stable_tolerance: float = 1e-3,
    smoothing: float = 0.01,
) -> AggregationResult:
    """Dawid & Skene (1979): EM over per-worker confusion matrices and class priors.

    1. Start from the majority-vote distribution of each item (vote shares).
    2. M-step: priors are the mean posteriors; each worker's confusion matrix row k is the posterior
       mass of true class k spread over the labels they gave, plus ``smoothing`` so that no
       probability is 0 (a label never seen from a worker does not veto a class).
    3. E-step: posterior ∝ prior × Π over the item's labels of confusion[worker, k, label].
    4. Stop when no posterior moves more than ``tolerance``; or when no item's label changed and
       no posterior moved more than ``stable_tolerance`` (further steps only sharpen confidences);
       or after ``max_iterations``.
    Labels are the posterior's argmax (ties to the smallest class); confidence is its posterior.
    Vectorised with NumPy: every step is a few ``bincount`` calls over all labels at once.
    """
    data = encode(labels)
    n_workers, n_classes = len(data.workers), len(data.classes)
    # Sorted by item, each item's labels are one contiguous block for np.add.reduceat.
    order = np.argsort(data.item_index, kind="stable")
    items, workers, observed = data.item_index[order], data.worker_index[order], data.label_index[order]
    block_starts = np.flatnonzero(np.r_[True, items[1:] != items[:-1]])
    posterior = vote_counts(data)
    posterior /= posterior.sum(axis=1, keepdims=True)
    # confusion[w, k, l] is entry w·K² + k·K + l; one bincount fills every worker's matrix.
    cell = ((workers * n_classes * n_classes + observed)[:, None] + np.arange(n_classes) * n_classes).ravel()
    label_counts = np.diff(np.r_[block_starts, len(items)])
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007 - reported below
        priors = posterior.mean(axis=0)
        confusion = np.bincount(
            cell,
            weights=np.repeat(posterior, label_counts, axis=0).ravel(),
            minlength=n_workers * n_classes**2,
        ).reshape(n_workers, n_classes, n_classes)
        confusion += smoothing
        confusion /= confusion.sum(axis=2, keepdims=True)
        log_confusion = np.log(confusion)
        per_label = log_confusion.ravel()[cell].reshape(-1, n_classes)
        log_posterior = np.add.reduceat(per_label, block_starts, axis=0)
        log_posterior += np.log(np.maximum(priors, 1e-300))
        log_posterior -= log_posterior.max(axis=1, keepdims=True)
        updated = np.exp(log_posterior)
        updated /= updated.sum(axis=1, keepdims=True)
        change = float(np.abs(updated - posterior).max())
        settled = bool((updated.argmax(axis=1) == posterior.argmax(axis=1)).all())
        posterior = updated
        if change < tolerance or (settled and change < stable_tolerance):
            break
    winners = posterior.argmax(axis=1)
    return AggregationResult(
        {item: data.classes[w] for item, w in zip(data.items, winners, strict=True)},
        {item: float(posterior[i, w]) for i, (item, w) in enumerate(zip(data.items, winners, strict=True))},
        [],
        "dawid-skene",
        {
            "max_iterations": max_iterations,
            "tolerance": tolerance,
            "stable_tolerance": stable_tolerance,
            "smoothing": smoothing,
            "iterations": iterations,
            # Each worker's chance of giving the true label: Σ_k prior_k · confusion[w, k, k].
            "worker_reliability": {
                worker: float(np.dot(priors, np.diag(confusion[index])))
                for index, worker in enumerate(data.workers)
            },
        },
    )


def gold_weighted_vote(labels: Iterable[Triple], gold: Mapping[Hashable, Hashable]) -> AggregationResult:
    """A vote weighted by each worker's accuracy on gold questions.

    Weight = log((K − 1)·a / (1 − a)), the optimal weight for a worker who is right with
    probability a and otherwise picks uniformly among the K − 1 wrong labels (Nitzan & Paroush
    1982); a is Laplace-smoothed, (correct + 1) / (answered + K), so a worker with no gold answers
    has a = 1/K and weight 0. Items where every weight is 0 fall back to the plain majority
    vote (smallest label on ties). Confidence is the winner's share of the positive weight.
    """
    triples = list(labels)
    data = encode(triples)
    n_classes = len(data.classes)
    correct = np.zeros(len(data.workers))
    answered = np.zeros(len(data.workers))
    for (item, _, label), worker in zip(triples, data.worker_index, strict=True):
        if item in gold:
            answered[worker] += 1
            correct[worker] += label == gold[item]
    accuracy = (correct + 1) / (answered + n_classes)
    weights = np.log(max(n_classes - 1, 1) * accuracy / (1 - accuracy))
    scores = np.zeros((len(data.items), n_classes))
    np.add.at(scores, (data.item_index, data.label_index), weights[data.worker_index])
    fallback = majority_vote(triples)
    fallback_ties = set(fallback.ties)
    result_labels, confidence, ties = {}, {}, []
    for index, item in enumerate(data.items):
        row = scores[index]
        if not np.any(row > 0):
            result_labels[item] = fallback.labels[item]
            confidence[item] = fallback.confidence[item]
            ties.extend([item] if item in fallback_ties else [])
            continue
        winner = int(np.argmax(row))
        result_labels[item] = data.classes[winner]
        confidence[item] = float(row[winner] / row[row > 0].sum())
    worker_weights = {worker: float(w) for worker, w in zip(data.workers, weights, strict=True)}
    return AggregationResult(
        result_labels, confidence, ties, "gold-weighted", {"worker_weights": worker_weights}
    )
