"""Aggregating crowd labels into one label per item, with a confidence in [0, 1].

Every function takes judgements as (item, annotator, label) triples, a DataFrame with columns item
(or task), annotator (or worker), label, or an ``Encoded`` (``encoding.encode``; given one,
nothing is encoded again).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from annotation.crowd.encoding import Encoded, Labels, as_encoded, encode, label_order

__all__ = [
    "TIE_RULES",
    "AggregationResult",
    "Encoded",
    "dawid_skene",
    "encode",
    "gold_weighted_vote",
    "majority_vote",
    "vote_counts",
]

# How a vote's ties are broken: the lowest label of the tied ones (the conservative choice for
# relevance: a 1–1 split is not relevant), the highest, one drawn at random (seeded), or the one the
# annotators with the better gold accuracy gave (majority vote only; see ``majority_vote``).
TIE_RULES = ("lower", "higher", "random", "gold_weighted")
# The names these rules had before the project setting named them: still accepted, recorded as the new.
TIE_RULE_ALIASES = {"smallest": "lower", "largest": "higher"}


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


def majority_vote(
    labels: Labels,
    *,
    tie_rule: str = "lower",
    seed: int = 0,
    gold: Mapping[Hashable, Hashable] | None = None,
) -> AggregationResult:
    """The most frequent label per item; confidence is the winner's share of the votes.

    Ties are broken by a named rule (``TIE_RULES``) and listed in ``ties``, with how each was
    decided in ``tie_breaks``: ``lower`` (the lowest of the tied labels), ``higher``, ``random``
    (seeded, reproducible) or ``gold_weighted``: of the tied labels, the one whose voters weigh
    most in the gold-weighted vote (``gold_weighted_vote``'s weights, from each annotator's answers
    to the items of ``gold``, which ``labels`` must then hold, as for that vote; gold items are
    labelled too, like any item). Where the tied labels' weights are equal as well (no annotator
    answered gold, say), the lower label wins and ``tie_breaks`` says ``lower``. Only ties are
    weighed: every other item keeps its plain majority, so the labels equal crowd-kit's
    ``MajorityVote`` wherever the vote is not tied.
    """
    tie_rule = _check_tie_rule(tie_rule, TIE_RULES)
    if tie_rule == "gold_weighted" and gold is None:
        raise ValueError("tie_rule 'gold_weighted' needs the gold answers (gold=…)")
    data = _encoded(labels)
    votes = data.counts
    top = votes.max(axis=1)
    leaders = votes == top[:, None]
    tied = leaders.sum(axis=1) > 1
    if tie_rule == "gold_weighted":
        weighted = np.where(leaders, weighted_scores(data, gold_weights(data, gold or {})), -np.inf)
        best = weighted.max(axis=1)
        leaders &= weighted >= (best - _TIE_TOLERANCE * np.abs(best))[:, None]
        still_tied = leaders.sum(axis=1) > 1
        winners = _break_ties(leaders, "lower", seed)
    else:
        still_tied = tied
        winners = _break_ties(leaders, tie_rule, seed)
    result_labels, confidence = _decoded(data, winners, top / data.ratings_per_item)
    items = np.array(data.items, dtype=object)
    ties = items[tied].tolist()
    how = np.where(still_tied & (tie_rule == "gold_weighted"), "lower", tie_rule)[tied].tolist()
    return AggregationResult(
        result_labels,
        confidence,
        ties,
        "majority",
        _tie_parameters(tie_rule, seed),
        tie_breaks=dict(zip(ties, how, strict=True)),
    )


def tie_rule_named(name: str) -> str:
    """The rule's name as ``TIE_RULES`` writes it (``smallest`` and ``largest`` are the old names of
    ``lower`` and ``higher``); ValueError for an unknown one."""
    return _check_tie_rule(name, TIE_RULES)


def _check_tie_rule(tie_rule: str, allowed: tuple[str, ...]) -> str:
    tie_rule = TIE_RULE_ALIASES.get(tie_rule, tie_rule)
    if tie_rule not in allowed:
        raise ValueError(f"tie_rule must be one of {', '.join(allowed)}, not {tie_rule!r}")
    return tie_rule


def _tie_parameters(tie_rule: str, seed: int) -> dict:
    return {"tie_rule": tie_rule} | ({"seed": seed} if tie_rule == "random" else {})


def _break_ties(leaders: np.ndarray, tie_rule: str, seed: int) -> np.ndarray:
    """The winning class of every row of ``leaders`` (items × classes, True where a class leads)."""
    if tie_rule == "lower":
        return leaders.argmax(axis=1)
    if tie_rule == "higher":
        return leaders.shape[1] - 1 - leaders[:, ::-1].argmax(axis=1)
    return (np.random.default_rng(seed).random(leaders.shape) * leaders).argmax(axis=1)


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


def gold_weighted_vote(
    labels: Labels, gold: Mapping[Hashable, Hashable], *, tie_rule: str = "lower", seed: int = 0
) -> AggregationResult:
    """A vote weighted by each annotator's accuracy on gold questions (``gold_weights``).

    Confidence is the winner's share of the positive weight. Ties — labels whose weighted scores
    are equal, to a relative 1e-9 so that the order of a float sum does not decide — are broken by
    ``tie_rule`` (``lower``, ``higher`` or ``random``) as in ``majority_vote`` and listed in
    ``ties``. Items where no label has a positive score (every weight 0, say) fall back to
    ``majority_vote`` with the same rule; its ties are listed too.
    """
    tie_rule = _check_tie_rule(tie_rule, ("lower", "higher", "random"))
    data = _encoded(labels)
    weights = gold_weights(data, gold)
    scores = weighted_scores(data, weights)
    positive = np.where(scores > 0, scores, 0.0)
    weighted = positive.sum(axis=1) > 0
    top = scores.max(axis=1)
    leaders = scores >= (top - _TIE_TOLERANCE * np.abs(top))[:, None]
    winners = _break_ties(leaders, tie_rule, seed)
    share = np.divide(
        positive[np.arange(len(data.items)), winners],
        positive.sum(axis=1),
        out=np.zeros(len(data.items)),
        where=weighted,
    )
    result_labels, confidence = _decoded(data, winners, share)
    items = np.array(data.items, dtype=object)
    fallback = majority_vote(data, tie_rule=tie_rule, seed=seed)
    for item in items[~weighted].tolist():
        result_labels[item] = fallback.labels[item]
        confidence[item] = fallback.confidence[item]
    fallback_ties = set(fallback.ties)
    ties = [
        item
        for item, tied, by_weight in zip(items.tolist(), leaders.sum(axis=1) > 1, weighted, strict=True)
        if (tied if by_weight else item in fallback_ties)
    ]
    annotator_weights = dict(zip(data.annotators, weights.tolist(), strict=True))
    return AggregationResult(
        result_labels,
        confidence,
        ties,
        "gold-weighted",
        _tie_parameters(tie_rule, seed) | {"annotator_weights": annotator_weights},
        tie_breaks=dict.fromkeys(ties, tie_rule),
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
