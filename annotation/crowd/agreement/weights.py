"""Disagreement weights of weighted kappa (Cohen 1968): none, linear or quadratic over the scale's order, or
any matrix."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from annotation.crowd.agreement.base import WEIGHTS

#: A weighting: one of ``WEIGHTS`` or a K × K matrix of disagreement weights over the classes.
Weights = str | np.ndarray | Sequence[Sequence[float]]


def disagreement_weights(n_classes: int, weights: Weights) -> np.ndarray:
    """K × K disagreement weights over class positions: 1 off the diagonal (``none``), |i − j|
    (``linear``) or (i − j)² (``quadratic``). statsmodels divides them by (K − 1) or (K − 1)²,
    which cancels in kappa (and in its standard errors).

    Or a K × K matrix of disagreement weights given by the caller (statsmodels' ``cohens_kappa``
    with a 2-D ``weights``; Cohen 1968): entry (i, j) is how much a label ``classes[i]`` from the
    first annotator against ``classes[j]`` from the second counts as disagreement, 0 on the
    diagonal for full credit. Rows and columns follow the data's classes (``Encoded.classes``:
    numbers first, in order; ``encoding.on_scale`` fixes a scale). Only ratios matter: kappa and
    its standard errors are unchanged when the matrix is multiplied by a positive number.
    ``kappa_weights`` builds one from category scores.
    """
    if not isinstance(weights, str):
        matrix = np.array(weights, dtype=float)
        if matrix.shape != (n_classes, n_classes):
            raise ValueError(
                f"a weight matrix must be {n_classes} × {n_classes} (one row and column per class), "
                f"not {' × '.join(map(str, matrix.shape))}"
            )
        if not np.isfinite(matrix).all() or (matrix < 0).any():
            raise ValueError("a weight matrix must hold finite disagreement weights of 0 or more")
        return matrix
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be none, linear, quadratic or a matrix, not {weights!r}")
    positions = np.arange(n_classes, dtype=float)
    distance = np.abs(positions[:, None] - positions[None, :])
    if weights == "none":
        return (distance > 0).astype(float)
    return distance if weights == "linear" else distance**2


def kappa_weights(scores: Sequence[float], kind: str = "linear") -> np.ndarray:
    """A disagreement weight matrix from category scores, as statsmodels' ``cohens_kappa`` builds
    it from a 1-D ``weights`` and its ``wt``: ``linear`` |s_i − s_j| (Cicchetti & Allison 1971),
    ``quadratic`` (s_i − s_j)² (Fleiss & Cohen 1973), ``toeplitz`` s_|i−j| (the weight depends
    only on how many levels apart two labels are). Scores [0, 0, 1, 1] with ``linear`` merge the
    first two and the last two levels. statsmodels' division by the score range cancels."""
    values = np.asarray(scores, dtype=float)
    if values.ndim != 1:
        raise ValueError("scores must be one number per class")
    if kind == "linear":
        return np.abs(values[:, None] - values[None, :])
    if kind == "quadratic":
        return (values[:, None] - values[None, :]) ** 2
    if kind == "toeplitz":
        steps = np.abs(np.arange(len(values))[:, None] - np.arange(len(values))[None, :])
        return values[steps]
    raise ValueError(f"kind must be linear, quadratic or toeplitz, not {kind!r}")


def weights_description(weights: Weights) -> str | list[list[float]]:
    """The weighting as a report records it: its name, or the matrix as nested lists."""
    return weights if isinstance(weights, str) else np.asarray(weights, dtype=float).tolist()


def expected_disagreement(
    rows: np.ndarray, columns: np.ndarray, shared: np.ndarray, weights: Weights
) -> np.ndarray:
    """Σ_ab w_ab r_a c_b per pair (n × the chance-expected weighted disagreement) from the pairs'
    label margins r (first annotator) and c (second). ``einsum``, not a matrix product: BLAS
    threads on a P × K by K × K product cost more than they save."""
    if isinstance(weights, str) and weights == "none":
        return shared * shared - np.einsum("pa,pa->p", rows, columns)
    table_weights = disagreement_weights(rows.shape[1], weights)
    return np.einsum("pa,ab,pb->p", rows, table_weights, columns)
