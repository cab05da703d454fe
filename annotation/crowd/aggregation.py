"""Aggregating crowd labels into one label per item, with a confidence in [0, 1]."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

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
    rng = random.Random(seed)
    votes: dict[Hashable, Counter] = {}
    for item, _, label in labels:
        votes.setdefault(item, Counter())[label] += 1
    winners: dict[Hashable, Hashable] = {}
    confidence: dict[Hashable, float] = {}
    ties: list[Hashable] = []
    for item, counter in votes.items():
        top = max(counter.values())
        leaders = sorted((label for label, count in counter.items() if count == top), key=label_order)
        if len(leaders) > 1:
            ties.append(item)
        if tie_rule == "smallest":
            winners[item] = leaders[0]
        elif tie_rule == "largest":
            winners[item] = leaders[-1]
        else:
            winners[item] = rng.choice(leaders)
        confidence[item] = top / sum(counter.values())
    parameters = {"tie_rule": tie_rule} | ({"seed": seed} if tie_rule == "random" else {})
    return AggregationResult(winners, confidence, ties, "majority", parameters)


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
    """Integer codes for items, workers and labels (classes sorted numbers-first), in one pass."""
    item_codes: dict = {}
    worker_codes: dict = {}
    raw_labels: list = []
    item_index, worker_index = [], []
    for item, worker, label in labels:
        item_index.append(item_codes.setdefault(item, len(item_codes)))
        worker_index.append(worker_codes.setdefault(worker, len(worker_codes)))
        raw_labels.append(label)
    classes = sorted(set(raw_labels), key=label_order)
    class_codes = {label: code for code, label in enumerate(classes)}
    return Encoded(
        list(item_codes),
        list(worker_codes),
        classes,
        np.asarray(item_index, dtype=np.int64),
        np.asarray(worker_index, dtype=np.int64),
        np.fromiter((class_codes[label] for label in raw_labels), dtype=np.int64, count=len(raw_labels)),
    )


def dawid_skene(
    labels: Iterable[Triple], *, max_iterations: int = 100, tolerance: float = 1e-5, smoothing: float = 0.01
) -> AggregationResult:
    """Dawid & Skene (1979): EM over per-worker confusion matrices and class priors.

    1. Start from the majority-vote distribution of each item (vote shares).
    2. M-step: priors are the mean posteriors; each worker's confusion matrix row k is the posterior
       mass of true class k spread over the labels they gave, plus ``smoothing`` so that no
       probability is 0 (a label never seen from a worker does not veto a class).
    3. E-step: posterior ∝ prior × Π over the item's labels of confusion[worker, k, label].
    4. Stop when no posterior moves more than ``tolerance``, or after ``max_iterations``.
    Labels are the posterior's argmax (ties to the smallest class); confidence is its posterior.
    Vectorised with NumPy: every step is a few ``bincount`` calls over all labels at once.
    """
    data = encode(labels)
    n_items, n_workers, n_classes = len(data.items), len(data.workers), len(data.classes)
    items, workers, observed = data.item_index, data.worker_index, data.label_index
    votes = np.zeros((n_items, n_classes))
    np.add.at(votes, (items, observed), 1.0)
    posterior = votes / votes.sum(axis=1, keepdims=True)
    worker_label = workers * n_classes + observed
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007 - reported below
        priors = posterior.mean(axis=0)
        confusion = np.empty((n_workers, n_classes, n_classes))
        for k in range(n_classes):
            confusion[:, k, :] = np.bincount(
                worker_label, weights=posterior[items, k], minlength=n_workers * n_classes
            ).reshape(n_workers, n_classes)
        confusion += smoothing
        confusion /= confusion.sum(axis=2, keepdims=True)
        log_confusion = np.log(confusion)
        log_posterior = np.tile(np.log(np.maximum(priors, 1e-300)), (n_items, 1))
        for k in range(n_classes):
            log_posterior[:, k] += np.bincount(
                items, weights=log_confusion[workers, k, observed], minlength=n_items
            )
        log_posterior -= log_posterior.max(axis=1, keepdims=True)
        updated = np.exp(log_posterior)
        updated /= updated.sum(axis=1, keepdims=True)
        change = float(np.abs(updated - posterior).max())
        posterior = updated
        if change < tolerance:
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
    result_labels, confidence, ties = {}, {}, []
    for index, item in enumerate(data.items):
        row = scores[index]
        if not np.any(row > 0):
            result_labels[item] = fallback.labels[item]
            confidence[item] = fallback.confidence[item]
            ties.extend([item] if item in fallback.ties else [])
            continue
        winner = int(np.argmax(row))
        result_labels[item] = data.classes[winner]
        confidence[item] = float(row[winner] / row[row > 0].sum())
    worker_weights = {worker: float(w) for worker, w in zip(data.workers, weights, strict=True)}
    return AggregationResult(
        result_labels, confidence, ties, "gold-weighted", {"worker_weights": worker_weights}
    )
