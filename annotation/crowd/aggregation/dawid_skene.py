"""Dawid & Skene (1979): each annotator's confusion matrix and the items' label probabilities by
expectation maximisation, optionally clamped to gold answers; equal to crowd-kit's ``DawidSkene``."""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np

from annotation.crowd.aggregation.base import (
    _CLIP,
    _LOG_FLOOR,
    AggregationResult,
    _decoded,
    _encoded,
    canonical,
    gold_clamp,
    vote_counts,
)
from annotation.crowd.io.encoding import Encoded, Labels


def dawid_skene(
    labels: Labels,
    *,
    max_iterations: int = 100,
    tolerance: float = 1e-5,
    smoothing: float = 0.0,
    gold: Mapping[Hashable, Hashable] | None = None,
    initial_confusion: Mapping[Hashable, Mapping[Hashable, Mapping[Hashable, float]]] | None = None,
    initial_strategy: str = "add",
) -> AggregationResult:
    """Dawid & Skene (1979): EM over per-annotator confusion matrices and class priors.

    A. P. Dawid and A. M. Skene, "Maximum likelihood estimation of observer error-rates using the
    EM algorithm", Applied Statistics 28(1), 1979. crowd-kit calls annotators workers: its
    ``DawidSkene`` fits the same model, with the same start, stopping rule and gold correction.

    1. Start from the majority-vote distribution of each item (vote shares) as posteriors q.
    2. M-step: priors are the mean posteriors; each annotator's confusion matrix row k is the
       posterior mass of true class k spread over the labels they gave, each entry the annotator
       used floored at 1e-10 (crowd-kit's ``_EPS``), plus ``smoothing`` (default 0).
    3. Evidence lower bound per judgement, as crowd-kit computes it (``DawidSkene._evidence_lower_bound``:
       Σ_judgements Σ_k q·(log confusion + log prior) + entropy(q), probabilities clipped at 1e-10,
       divided by the number of judgements). Stop when it gained less than ``tolerance`` since the
       last M-step, or after ``max_iterations`` E-steps.
    4. E-step: q ∝ prior × Π over the item's labels of confusion[annotator, k, label]; back to 2.
    Labels are the argmax of q (ties to the smallest class); confidence is its posterior.

    **A function of the data, not of the row order.** Items and annotators are put in a canonical
    (sorted) order before any sum, so shuffled rows give bit-identical posteriors. Smoothing is 0
    by default: an added count is evidence no annotator gave, and on symmetric data (crowd-kit's
    ``test_dawid_skene_overlap``) 0.01 was enough to push EM off the symmetric fixed point and
    label one task "no" with confidence 1.0. A positive ``smoothing`` is still accepted.

    **Gold** (semi-supervised Dawid–Skene, crowd-kit's ``fit(data, true_labels)``): the posterior of
    every item in ``gold`` is clamped to its known label at the start and after every E-step, so
    the confusion matrices and priors are learnt with those items known. Report accuracy only on
    items whose gold was not clamped (``cross_fitted_accuracy`` does it by k folds).

    **Initial confusion matrices** (crowd-kit's ``initial_error``): ``initial_confusion`` maps an
    annotator to {true label: {given label: count}}, e.g. from past projects. ``initial_strategy``
    ``"add"`` adds the counts to the first M-step's (crowd-kit's ``addition``; annotators may be
    missing), ``"assign"`` uses the given matrices instead of the first M-step's (crowd-kit's
    ``assign``; every annotator needed, counts or probabilities). Later M-steps use the data only.

    Both steps are one pass over the judgements each (``_Judgements``): summing q by (annotator,
    label) gives every confusion matrix at once, and summing the log confusion entries by item
    gives every item's log-likelihood.
    """
    if initial_strategy not in ("add", "assign"):
        raise ValueError(f"initial_strategy must be 'add' or 'assign', not {initial_strategy!r}")
    data = canonical(_encoded(labels))
    n_items, n_annotators, n_classes = len(data.items), len(data.annotators), len(data.classes)
    judgements = _Judgements(
        data.annotator_index * n_classes + data.label_index,
        data.item_index,
        n_annotators * n_classes,
        n_items,
    )
    used = (judgements.per_row > 0).reshape(n_annotators, n_classes, 1)
    ratings = data.ratings_per_item.astype(float)
    clamp = gold_clamp(data, gold)
    posterior = clamp(vote_counts(data) / ratings[:, None])
    first = _initial_mass(data, initial_confusion, initial_strategy)
    bound = -np.inf
    iterations = 0
    while True:
        # M-step. mass[a, l, k]: posterior mass of true class k on the items annotator a labelled l.
        priors = np.ones(n_items) @ posterior / n_items
        mass = judgements.to_rows(posterior).reshape(n_annotators, n_classes, n_classes)
        log_confusion = _log_confusion(
            mass, used, smoothing, first if iterations == 0 else None, initial_strategy
        )
        log_priors = np.log(np.maximum(priors, _CLIP))
        updated_bound = (
            float(np.vdot(mass, np.maximum(log_confusion, np.log(_CLIP))))
            + float((ratings @ posterior) @ log_priors)
            - float(np.vdot(posterior, np.log(np.maximum(posterior, _CLIP))))
        ) / len(data)
        if updated_bound - bound < tolerance or iterations == max_iterations:
            break
        bound = updated_bound
        # E-step.
        iterations += 1
        log_posterior = judgements.to_items(
            np.maximum(log_confusion, _LOG_FLOOR).reshape(n_annotators * n_classes, n_classes)
        )
        log_posterior += log_priors
        log_posterior -= log_posterior.max(axis=1, keepdims=True)
        posterior = np.exp(log_posterior, out=log_posterior)
        posterior /= posterior.sum(axis=1, keepdims=True)
        posterior = clamp(posterior)
    confusion = np.exp(log_confusion).transpose(0, 2, 1)  # annotators × true class × given label
    winners = posterior.argmax(axis=1)
    result_labels, confidence = _decoded(data, winners, posterior[np.arange(n_items), winners])
    # Each annotator's chance of giving the true label: Σ_k prior_k · confusion[a, k, k].
    reliability = np.diagonal(confusion, axis1=1, axis2=2) @ priors
    parameters = {
        "max_iterations": max_iterations,
        "tolerance": tolerance,
        "smoothing": smoothing,
        "iterations": iterations,
        "annotator_reliability": dict(zip(data.annotators, reliability.tolist(), strict=True)),
    }
    if gold:
        parameters["gold_items_clamped"] = int(clamp.count)
    if initial_confusion is not None:
        parameters["initial_strategy"] = initial_strategy
    return AggregationResult(
        result_labels,
        confidence,
        [],
        "dawid-skene",
        parameters,
        {
            "classes": data.classes,
            "annotators": data.annotators,
            "priors": priors,
            "confusion": confusion,
            "annotator_labels": np.bincount(data.annotator_index, minlength=n_annotators),
            "posterior": posterior,
            "items": data.items,
        },
    )


class _Judgements:
    """The judgements as (row, item) pairs, row = annotator·labels + label: the two sums EM needs,
    done with ``np.bincount`` (what a sparse incidence matrix's two products do, without SciPy's
    0.2 s import on every ``cranfield aggregate``)."""

    def __init__(self, rows: np.ndarray, items: np.ndarray, n_rows: int, n_items: int) -> None:
        self.rows, self.items, self.n_rows, self.n_items = rows, items, n_rows, n_items
        self.per_row = np.bincount(rows, minlength=n_rows)

    def to_rows(self, by_item: np.ndarray) -> np.ndarray:
        """Σ over each row's judgements of ``by_item[item]`` (n_rows × columns)."""
        return np.column_stack(
            [
                np.bincount(self.rows, weights=by_item[self.items, k], minlength=self.n_rows)
                for k in range(by_item.shape[1])
            ]
        )

    def to_items(self, by_row: np.ndarray) -> np.ndarray:
        """Σ over each item's judgements of ``by_row[row]`` (n_items × columns)."""
        return np.column_stack(
            [
                np.bincount(self.items, weights=by_row[self.rows, k], minlength=self.n_items)
                for k in range(by_row.shape[1])
            ]
        )


def _log_confusion(
    mass: np.ndarray, used: np.ndarray, smoothing: float, first: np.ndarray | None, strategy: str
) -> np.ndarray:
    """log P(given label l | true class k) as [annotator, l, k], from the posterior mass.

    As crowd-kit's M-step: every (annotator, label) the annotator used is floored at 1e-10, the
    labels they never used get probability 0 (log −inf; no judgement ever reads them)."""
    if first is not None:
        mass = first if strategy == "assign" else mass + first
    counts = np.where(used | (first is not None and strategy == "assign"), np.maximum(mass, _CLIP), 0.0)
    counts = counts + smoothing
    with np.errstate(divide="ignore"):
        log_confusion = np.log(counts)
        log_confusion -= np.log(counts.sum(axis=1, keepdims=True))
    return log_confusion


def _initial_mass(data: Encoded, initial: Mapping | None, strategy: str) -> np.ndarray | None:
    """``initial_confusion`` as [annotator, given label, true class] counts in ``data``'s codes."""
    if initial is None:
        return None
    n_classes = len(data.classes)
    code = {label: index for index, label in enumerate(data.classes)}
    first = np.zeros((len(data.annotators), n_classes, n_classes))
    missing = []
    for position, annotator in enumerate(data.annotators):
        matrix = initial.get(annotator)
        if matrix is None:
            missing.append(annotator)
            continue
        for true_label, row in matrix.items():
            for given_label, count in row.items():
                if true_label in code and given_label in code:
                    first[position, code[given_label], code[true_label]] = count
    if strategy == "assign" and missing:
        raise ValueError(
            f"initial_strategy 'assign' needs every annotator's matrix: {len(missing)} missing, "
            f"e.g. {missing[:3]}"
        )
    # As crowd-kit: matrices of values ≤ 1 are probabilities, and each true class must sum to 1.
    if strategy == "assign" and (first <= 1).all() and not np.allclose(first.sum(axis=1), 1.0):
        raise ValueError("initial_strategy 'assign' with probabilities: each true label's row must sum to 1")
    return first
