"""MACE: Multi-Annotator Competence Estimation.

D. Hovy, T. Berg-Kirkpatrick, A. Vaswani and E. Hovy, "Learning whom to trust with MACE",
NAACL-HLT 2013. The model and its variational-Bayes training follow crowd-kit's ``MACE``
(its initialisation, priors and number of iterations), on arrays instead of DataFrames.
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, logsumexp

from annotation.crowd.aggregation.base import AggregationResult, _encoded, canonical, probability_result
from annotation.crowd.io.encoding import Encoded, Labels


def mace(
    labels: Labels,
    *,
    method: str = "vb",
    iterations: int = 50,
    restarts: int = 1,
    seed: int = 0,
    default_noise: float = 0.5,
    alpha: float = 0.5,
    beta: float = 0.5,
    strategy_prior: float = 10.0,
) -> AggregationResult:
    """Each annotator either knows the answer and gives the true label (probability 1 − spam_a) or
    spams, answering from their own label distribution ξ_a; true labels are uniform.

    E-step: q[i, k] ∝ Π_judgements (spam_a · ξ_a[label] + (1 − spam_a) · [label = k]) — in logs, so
    items with hundreds of labels do not underflow — and each judgement's expected spamming
    (1 − q_label + q_label · spam·ξ / (spam·ξ + 1 − spam)). M-step (``method="vb"``, the default):
    spam and ξ are exp(ψ(counts + prior)) / exp(ψ(Σ counts + prior)) with a Beta(``alpha``, ``beta``)
    prior on spamming and a symmetric Dirichlet(``strategy_prior``) on ξ; ``"em"`` normalises
    counts + 0.01/K instead. ``iterations`` rounds per restart, no other stopping rule (crowd-kit's).

    Initial spam and ξ: U(1, 2 + ``default_noise``) draws (scipy's ``uniform(1, 1 +
    default_noise)``, crowd-kit's) from NumPy's ``RandomState(seed)``, normalised, over
    annotators and labels in canonical (sorted) order, so the result does not depend on the row
    order. ``restarts`` > 1 repeats from seeds seed, seed + 1, … and keeps the highest marginal
    likelihood (crowd-kit's ten restarts all reuse one seed, so they equal one). crowd-kit
    differs in one respect: its M-step reads its per-(annotator, label) counts in sorted order
    but its E-step indexes them in first-seen order, so unless the rows meet annotators and
    labels in sorted order its annotators swap strategies; this module keeps one order.
    """
    if method not in ("vb", "em"):
        raise ValueError(f"method must be 'vb' or 'em', not {method!r}")
    data = canonical(_encoded(labels))
    n_annotators, n_classes = len(data.annotators), len(data.classes)
    best = None
    for restart in range(max(restarts, 1)):
        state = np.random.RandomState(seed + restart)
        spam = state.uniform(1, 1 + default_noise + 1, (n_annotators, 2))
        state = np.random.RandomState(seed + restart)
        strategy = state.uniform(1, 1 + default_noise + 1, (n_annotators, n_classes))
        spam /= spam.sum(axis=1, keepdims=True)
        strategy /= strategy.sum(axis=1, keepdims=True)
        likelihood, posterior, spam_counts, strategy_counts = _e_step(data, spam, strategy)
        for _ in range(iterations):
            if method == "vb":
                spam = _variational_normalise(spam_counts, np.array([alpha, beta]))
                strategy = _variational_normalise(strategy_counts, np.full(n_classes, strategy_prior))
            else:
                spam = _normalise(spam_counts, 0.01 / n_classes)
                strategy = _normalise(strategy_counts, 0.01 / n_classes)
            likelihood, posterior, spam_counts, strategy_counts = _e_step(data, spam, strategy)
        if best is None or likelihood > best[0]:
            best = (likelihood, posterior, spam, strategy)
    assert best is not None  # at least one restart ran
    likelihood, posterior, spam, strategy = best
    competence = spam[:, 1]
    return probability_result(
        data,
        posterior,
        "mace",
        {
            "method": method,
            "iterations": iterations,
            "restarts": restarts,
            "seed": seed,
            "log_marginal_likelihood": float(likelihood),
            "annotator_competence": dict(zip(data.annotators, competence.tolist(), strict=True)),
        },
        {"spamming": spam, "strategy": strategy},
    )


def _e_step(data: Encoded, spam: np.ndarray, strategy: np.ndarray):
    """Log marginal likelihood, item posteriors, expected (spamming, knowing) counts per annotator
    and expected spam counts per (annotator, label)."""
    n_items, n_annotators, n_classes = len(data.items), len(data.annotators), len(data.classes)
    who, label, item = data.annotator_index, data.label_index, data.item_index
    spam_mass = spam[who, 0] * strategy[who, label]  # P(this label, spamming)
    knowing = spam[who, 1]  # P(knowing): then the label is the truth
    with np.errstate(divide="ignore"):
        log_spam = np.log(spam_mass)
        log_both = np.log(spam_mass + knowing)
    log_joint = np.bincount(item, weights=log_spam, minlength=n_items)[:, None] + np.bincount(
        item * n_classes + label, weights=log_both - log_spam, minlength=n_items * n_classes
    ).reshape(n_items, n_classes)
    log_joint -= np.log(n_classes)
    log_evidence = logsumexp(log_joint, axis=1, keepdims=True)
    posterior = np.exp(log_joint - log_evidence)
    truth_given = posterior[item, label]
    knew = truth_given * knowing / (spam_mass + knowing)
    spammed = 1.0 - knew
    spam_counts = np.stack(
        [
            np.bincount(who, weights=spammed, minlength=n_annotators),
            np.bincount(who, weights=knew, minlength=n_annotators),
        ],
        axis=1,
    )
    strategy_counts = np.bincount(
        who * n_classes + label, weights=spammed, minlength=n_annotators * n_classes
    )
    return float(log_evidence.sum()), posterior, spam_counts, strategy_counts.reshape(n_annotators, n_classes)


def _normalise(counts: np.ndarray, smoothing: float) -> np.ndarray:
    smoothed = counts + smoothing
    total = smoothed.sum(axis=1, keepdims=True)
    return np.divide(smoothed, total, out=np.zeros_like(smoothed), where=~np.isclose(total, 0))


def _variational_normalise(counts: np.ndarray, prior: np.ndarray) -> np.ndarray:
    total = np.exp(digamma((counts + prior).sum(axis=1, keepdims=True)))
    return np.exp(digamma(counts + prior)) / total
