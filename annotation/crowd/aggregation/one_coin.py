"""One-coin Dawid–Skene: one accuracy per annotator instead of a whole confusion matrix.

Y. Zhang, X. Chen, D. Zhou and M. I. Jordan, "Spectral methods meet EM: a provably optimal algorithm
for crowdsourcing", Journal of Machine Learning Research 17, 2016 (the one-coin model of its
section 2; crowd-kit's ``OneCoinDawidSkene``, whose EM this follows step for step).
"""

from __future__ import annotations

import numpy as np

from annotation.crowd.aggregation.base import (
    _CLIP,
    AggregationResult,
    _encoded,
    canonical,
    probability_result,
)
from annotation.crowd.io.encoding import Labels


def one_coin_dawid_skene(
    labels: Labels, *, max_iterations: int = 100, tolerance: float = 1e-5
) -> AggregationResult:
    """EM where annotator a gives the true label with probability s_a and each wrong one with
    (1 − s_a)/(K − 1).

    1. Posteriors q start as the vote shares; priors are the mean q.
    2. M-step: s_a is the mean, over a's judgements, of q[item, label given] (crowd-kit's skill);
       the confusion entries are clipped to [1e-10, 1 − 1e-10].
    3. E-step: q ∝ prior × Π_judgements (s_a if label = k else (1 − s_a)/(K − 1)); priors = mean q;
       the evidence lower bound per judgement (as in ``dawid_skene``) stops EM when it gains less
       than ``tolerance``, or after ``max_iterations`` E-steps.
    Items and annotators are taken in canonical order, so the row order does not matter.
    """
    data = canonical(_encoded(labels))
    n_classes = len(data.classes)
    counts = np.bincount(data.annotator_index, minlength=len(data.annotators))
    posterior = data.counts / data.ratings_per_item[:, None]
    priors = posterior.mean(axis=0)
    skills = _skills(data, posterior, counts)
    bound, iterations = -np.inf, 0
    while iterations < max_iterations:
        iterations += 1
        log_right, log_wrong = _log_entries(skills, n_classes)
        log_priors = np.log(np.maximum(priors, _CLIP))
        log_posterior = _item_log_likelihood(data, log_right, log_wrong) + log_priors
        log_posterior -= log_posterior.max(axis=1, keepdims=True)
        posterior = np.exp(log_posterior)
        posterior /= posterior.sum(axis=1, keepdims=True)
        priors = posterior.mean(axis=0)
        skills = _skills(data, posterior, counts)
        log_right, log_wrong = _log_entries(skills, n_classes)
        log_priors = np.log(np.maximum(priors, _CLIP))
        given = posterior[data.item_index, data.label_index]
        wrong = log_wrong[data.annotator_index]
        expectation = float(np.sum(given * (log_right[data.annotator_index] - wrong) + wrong))
        expectation += float(data.ratings_per_item @ posterior @ log_priors)
        entropy = -float(np.vdot(posterior, np.log(np.maximum(posterior, _CLIP))))
        updated = (expectation + entropy) / len(data)
        if updated - bound < tolerance:
            break
        bound = updated
    return probability_result(
        data,
        posterior,
        "one-coin-dawid-skene",
        {
            "max_iterations": max_iterations,
            "tolerance": tolerance,
            "iterations": iterations,
            "annotator_skill": dict(zip(data.annotators, skills.tolist(), strict=True)),
        },
        {"priors": priors, "skills": skills},
    )


def _skills(data, posterior: np.ndarray, counts: np.ndarray) -> np.ndarray:
    given = posterior[data.item_index, data.label_index]
    return np.bincount(data.annotator_index, weights=given, minlength=len(counts)) / np.maximum(counts, 1)


def _log_entries(skills: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """log P(label = truth) and log P(a given wrong label) per annotator, clipped as crowd-kit clips."""
    right = np.clip(skills, _CLIP, 1 - _CLIP)
    wrong = np.clip((1 - skills) / max(n_classes - 1, 1), _CLIP, 1 - _CLIP)
    return np.log(right), np.log(wrong)


def _item_log_likelihood(data, log_right: np.ndarray, log_wrong: np.ndarray) -> np.ndarray:
    n_items, n_classes = len(data.items), len(data.classes)
    base = np.bincount(data.item_index, weights=log_wrong[data.annotator_index], minlength=n_items)
    bonus = np.bincount(
        data.item_index * n_classes + data.label_index,
        weights=(log_right - log_wrong)[data.annotator_index],
        minlength=n_items * n_classes,
    ).reshape(n_items, n_classes)
    return bonus + base[:, None]
