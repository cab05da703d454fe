"""GLAD: annotator ability and item difficulty.

J. Whitehill, P. Ruvolo, T. Wu, J. Bergsma and J. Movellan, "Whose vote should count more: optimal
integration of labels from labelers of unknown expertise", NIPS 2009. The EM below is crowd-kit's
``GLAD`` step for step (its parametrisation, priors, conjugate-gradient M-step and stopping rule),
on arrays instead of DataFrames.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from annotation.crowd.aggregation.base import AggregationResult, _encoded, probability_result
from annotation.crowd.io.encoding import Encoded, Labels

_HALF_LOG_TWO_PI = 0.5 * np.log(2 * np.pi)


def glad(
    labels: Labels,
    *,
    max_iterations: int = 100,
    tolerance: float = 1e-5,
    m_step_max_iterations: int = 25,
    m_step_tolerance: float = 1e-2,
) -> AggregationResult:
    """P(annotator a gives the true label of item i) = σ(α_a · e^{β_i}); a wrong label is each of
    the K − 1 others with equal probability. α (ability) and β (log inverse difficulty) start at 1
    with standard normal priors around 1; class priors are uniform and stay so.

    E-step: q[i, k] ∝ prior_k × Π_judgements of i the probability of the label given if k were true.
    M-step: α and β maximise Q = Σ q · log-likelihood + log N(α − 1) + log N(β − 1) by conjugate
    gradients (``m_step_max_iterations`` steps, tolerance ``m_step_tolerance``). EM stops when Q per
    (judgement, class) gains less than ``tolerance``. As in crowd-kit, the labels are those of the
    last E-step (before the last M-step).
    """
    data = _encoded(labels)
    n_items, n_annotators, n_classes = len(data.items), len(data.annotators), len(data.classes)
    model = _Glad(data)
    alpha = np.ones(n_annotators)
    beta = np.ones(n_items)
    posterior = model.e_step(alpha, beta)
    q_value = model.q(alpha, beta, posterior)
    iterations = 0
    for _ in range(max_iterations):
        iterations += 1
        last = q_value
        posterior = model.e_step(alpha, beta)
        given = posterior[data.item_index, data.label_index]
        result = minimize(
            lambda x, given=given: -model.q_of(x, given),
            np.concatenate([alpha, beta]),
            method="CG",
            jac=lambda x, given=given: -model.gradient(x, given),
            tol=m_step_tolerance,
            options={"disp": False, "maxiter": m_step_max_iterations},
        )
        alpha, beta = result.x[:n_annotators], result.x[n_annotators:]
        q_value = model.q(alpha, beta, posterior) / (len(data) * n_classes)
        if q_value - last < tolerance:
            break
    return probability_result(
        data,
        posterior,
        "glad",
        {
            "max_iterations": max_iterations,
            "tolerance": tolerance,
            "iterations": iterations,
            "annotator_ability": dict(zip(data.annotators, alpha.tolist(), strict=True)),
        },
        {"alpha": alpha, "beta": beta},
    )


def _softplus(x: np.ndarray, limit: float = 30.0) -> np.ndarray:
    """log(1 + e^x), with crowd-kit's cut-offs (x beyond ±30 is taken as x or 0)."""
    inside = np.abs(x) <= limit
    return np.where(inside, np.log1p(np.exp(np.where(inside, x, 0.0))), np.where(x > limit, x, 0.0))


class _Glad:
    def __init__(self, data: Encoded):
        self.data = data
        self.n_annotators = len(data.annotators)
        self.n_classes = len(data.classes)
        self.log_wrong_share = np.log(self.n_classes - 1) if self.n_classes > 1 else 0.0
        self.log_prior = np.log(1.0 / self.n_classes)

    def _log_terms(self, alpha: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        product = alpha[self.data.annotator_index] * np.exp(beta[self.data.item_index])
        return -_softplus(-product), -_softplus(product) - self.log_wrong_share

    def e_step(self, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
        data = self.data
        right, wrong = self._log_terms(alpha, beta)
        n_items = len(data.items)
        log_posterior = np.bincount(data.item_index, weights=wrong, minlength=n_items)[:, None] + np.bincount(
            data.item_index * self.n_classes + data.label_index,
            weights=right - wrong,
            minlength=n_items * self.n_classes,
        ).reshape(n_items, self.n_classes)
        log_posterior += self.log_prior
        log_posterior -= log_posterior.max(axis=1, keepdims=True)
        posterior = np.exp(log_posterior)
        return posterior / posterior.sum(axis=1, keepdims=True)

    def q(self, alpha: np.ndarray, beta: np.ndarray, posterior: np.ndarray) -> float:
        return self._q(alpha, beta, posterior[self.data.item_index, self.data.label_index])

    def q_of(self, x: np.ndarray, given: np.ndarray) -> float:
        return self._q(x[: self.n_annotators], x[self.n_annotators :], given)

    def _q(self, alpha: np.ndarray, beta: np.ndarray, given: np.ndarray) -> float:
        # Σ_k q_k · log P(label | k) = q_label · log σ + (1 − q_label) · (log(1 − σ) − log(K − 1)).
        right, wrong = self._log_terms(alpha, beta)
        value = float(np.sum(given * right + (1 - given) * wrong))
        value -= 0.5 * float(np.sum((alpha - 1) ** 2) + np.sum((beta - 1) ** 2))
        value -= _HALF_LOG_TWO_PI * (len(alpha) + len(beta))
        return value if np.isfinite(value) else -np.inf

    def gradient(self, x: np.ndarray, given: np.ndarray) -> np.ndarray:
        data = self.data
        alpha, beta = x[: self.n_annotators], x[self.n_annotators :]
        scale = np.exp(beta[data.item_index])
        residual = given - expit(alpha[data.annotator_index] * scale)
        d_alpha = np.bincount(data.annotator_index, weights=residual * scale, minlength=len(alpha))
        d_beta = np.bincount(
            data.item_index, weights=residual * scale * alpha[data.annotator_index], minlength=len(beta)
        )
        return np.concatenate([d_alpha - (alpha - 1), d_beta - (beta - 1)])
