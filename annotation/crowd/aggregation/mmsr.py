"""M-MSR: annotator skills by robust rank-one matrix completion, then a weighted vote.

Q. Ma and A. Olshevsky, "Adversarial crowdsourcing through robust rank-one matrix completion",
NeurIPS 2020. The steps (covariance of annotators, the trimmed alternating updates, the sign
recovery and the clipping of skills) are crowd-kit's ``MMSR``, vectorised: one sorted matrix per
half-step instead of a Python loop over annotators.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse import linalg as sparse_linalg

from annotation.crowd.aggregation.base import AggregationResult, _encoded, weighted_scores
from annotation.crowd.io.encoding import Encoded, Labels


def mmsr(
    labels: Labels, *, max_iterations: int = 10_000, tolerance: float = 1e-10, seed: int = 0
) -> AggregationResult:
    """Skills s from E[K/(K−1)·C − 1/(K−1)] = s sᵀ (C: how often two annotators agree on shared
    items), estimated by Matrix Mean-Subsequence-Reduced iterations: u and v are updated in turn,
    each entry the mean of its column's (row's) ratios X/u (X/v) after dropping the F largest and
    F smallest (F = ⌊fewest co-annotators / 2⌋ − 1, crowd-kit's rule, including its reading of
    F = −1 as "the largest ratio only"); stop when ‖u vᵀ − previous‖_F < ``tolerance``. Signs come
    from the eigenvector of the smallest eigenvalue of a signed graph of the annotators; skills are
    clipped to [−1/(K−1) + 1/√n, 1 − 1/√n] (n items), turned into a probability p of a right answer
    and into the weight log((K − 1)·p / (1 − p)).

    Labels: crowd-kit's rule, the argmax of each item's label weights divided by their sum (ties to
    the smallest label, listed); confidence is that share, clipped to [0, 1]. Where an item's
    weights sum below 0 the rule picks the label with the *lowest* sum: it undoes a global sign
    flip of the skills, which the sign recovery leaves on RTE (Snow 2008), where the plain argmax
    of the sums scores 0.660 and this rule 0.8575, crowd-kit's figure.
    Random start: u = v = U(0, 1) draws from NumPy's ``RandomState(seed)`` (as crowd-kit's).
    """
    data = _encoded(labels)
    n_items, n_classes = len(data.items), len(data.classes)
    covariance, shared = _covariance(data)
    weights = _skills(covariance, shared, n_items, n_classes, max_iterations, tolerance, seed)
    if not np.isfinite(weights).all():
        # An estimate reached 0, a ratio 0/0 survived the (here absent or too light) trimming and
        # spread NaN: crowd-kit fails at this point too ("Skill value is missing"), e.g. on D_Product.
        raise ValueError(
            f"M-MSR diverged: {int((~np.isfinite(weights)).sum())} of {len(weights)} annotators' skills "
            "are not finite (too few shared items per pair of annotators to trim); use another method"
        )
    scores = weighted_scores(data, weights)
    total = scores.sum(axis=1, keepdims=True)
    shares = np.divide(scores, total, out=np.full_like(scores, 1 / n_classes), where=total != 0)
    top = shares.max(axis=1)
    leaders = shares >= (top - 1e-12 * np.maximum(np.abs(top), 1))[:, None]
    winners = leaders.argmax(axis=1)
    confidence = np.clip(shares[np.arange(n_items), winners], 0.0, 1.0)
    classes = np.array(data.classes, dtype=object)
    items = np.array(data.items, dtype=object)
    return AggregationResult(
        dict(zip(data.items, classes[winners].tolist(), strict=True)),
        dict(zip(data.items, confidence.tolist(), strict=True)),
        items[leaders.sum(axis=1) > 1].tolist(),
        "mmsr",
        {
            "max_iterations": max_iterations,
            "tolerance": tolerance,
            "seed": seed,
            "annotator_weight": dict(zip(data.annotators, weights.tolist(), strict=True)),
        },
        {
            "classes": data.classes,
            "annotators": data.annotators,
            "items": data.items,
            "scores": scores,
            "skills": weights,
        },
    )


def _covariance(data: Encoded) -> tuple[np.ndarray, np.ndarray]:
    """K/(K−1) × (share of shared items two annotators labelled alike) − 1/(K−1), and the number
    of items each pair shares (0 on the diagonal)."""
    n_items, n_annotators, n_classes = len(data.items), len(data.annotators), len(data.classes)
    ones = np.ones(len(data))
    answered = sparse.csr_matrix(
        (ones, (data.annotator_index, data.item_index)), shape=(n_annotators, n_items)
    )
    answered.data = np.minimum(answered.data, 1.0)
    gave = sparse.csr_matrix(
        (ones, (data.annotator_index, data.item_index * n_classes + data.label_index)),
        shape=(n_annotators, n_items * n_classes),
    )
    shared = (answered @ answered.T).toarray()
    np.fill_diagonal(shared, 0)
    agreed = (gave @ gave.T).toarray()
    share = np.divide(agreed, shared, out=np.zeros_like(agreed), where=shared > 0)
    return share * n_classes / (n_classes - 1) - 1 / (n_classes - 1), shared


def _skills(covariance, shared, n_items, n_classes, max_iterations, tolerance, seed) -> np.ndarray:
    n = len(covariance)
    trim = int(np.floor(np.min((shared != 0).sum(axis=0)) / 2)) - 1
    u = np.random.RandomState(seed).uniform(size=n)
    v = np.random.RandomState(seed).uniform(size=n)
    observed = shared != 0
    x = np.abs(covariance)
    for _ in range(max_iterations):
        u_previous, v_previous = u.copy(), v.copy()
        with np.errstate(divide="ignore", invalid="ignore"):
            v = _trimmed_means(x / u[:, None], observed, v, trim, n_items)
            u = _trimmed_means(x.T / v[:, None], observed.T, u, trim, n_items)
        if np.linalg.norm(np.outer(u, v) - np.outer(u_previous, v_previous)) < tolerance:
            break
    magnitude = u / np.sqrt(np.linalg.norm(u) / np.linalg.norm(v))
    signed = _signs(covariance, magnitude)
    clipped = np.maximum(
        np.minimum(signed, 1 - 1 / np.sqrt(n_items)), -1 / (n_classes - 1) + 1 / np.sqrt(n_items)
    )
    right = clipped * (n_classes - 1) / n_classes + 1 / n_classes
    return np.log(right * (n_classes - 1) / (1 - right))


def _trimmed_means(ratios: np.ndarray, observed: np.ndarray, current: np.ndarray, trim: int, n_items: int):
    """Per column of ``ratios`` (only where ``observed``), crowd-kit's
    ``_remove_largest_and_smallest_F_value`` around the column's current value, then the mean of
    what is left (the current value if nothing is).

    As in crowd-kit, a ratio over a zero estimate (0/0 = NaN, x/0 = inf) stays in the column and
    sorts after every number (numbers < inf < NaN), counts as neither below nor above the current
    value, and makes the mean NaN or inf if it survives the trimming (it rarely does: it is among
    the largest, which are trimmed)."""
    count = observed.sum(axis=0)
    if trim == 0:  # nothing is trimmed: the plain mean of each column (NaN/inf propagate as in crowd-kit)
        total = np.where(observed, ratios, 0.0).sum(axis=0)
        means = np.divide(total, count, out=current.astype(float).copy(), where=count > 0)
        return np.where((count == 1) & (total == 0), 1 / np.sqrt(n_items), means)
    if np.isfinite(ratios[observed]).all():  # the usual case: one sort, unobserved last as +inf
        ordered = np.sort(np.where(observed, ratios, np.inf), axis=0)
        finite = np.isfinite(ordered)
        ordered[~finite] = 0.0
    else:
        category = np.where(observed, np.where(np.isnan(ratios), 2, np.where(np.isinf(ratios), 1, 0)), 3)
        order = np.lexsort((np.where(category == 0, ratios, 0.0), category), axis=0)
        ordered = np.take_along_axis(np.where(observed, ratios, 0.0), order, axis=0)
        finite = np.take_along_axis(category, order, axis=0) == 0
    nans = (observed & np.isnan(ratios)).sum(axis=0)  # sorted last among the observed
    below = (finite & (ordered < current)).sum(axis=0)
    rows = np.arange(len(ordered))[:, None]
    if trim < 0:  # ⌊fewest co-annotators / 2⌋ − 1 = −1: crowd-kit's y[F:] keeps the largest |F| values
        start, end = np.maximum(count + trim, 0), count
    else:
        # Stage 1: fewer than F below the current value: keep y >= it (a filter, which drops NaN);
        # otherwise drop the F smallest (a slice, which keeps NaN).
        filtered = below < trim
        start = np.where(filtered, below, trim)
        end = np.where(filtered, count - nans, count)
        # Stage 2: the same on the largest side; NaN is never above, and a filter drops it.
        above = ((rows >= start) & (rows < end) & (ordered > current)).sum(axis=0)
        nans_in = np.where(filtered, 0, np.minimum(nans, np.maximum(end - start, 0)))
        end = np.where(above < trim, end - above - nans_in, end - trim)
        end = np.maximum(end, start)
    kept = end - start
    with np.errstate(invalid="ignore"):
        total = np.where((rows >= start) & (rows < end), ordered, 0.0).sum(axis=0)
    means = np.divide(total, kept, out=current.astype(float).copy(), where=kept > 0)
    lone_zero = (kept == 1) & (total == 0)
    return np.where(lone_zero, 1 / np.sqrt(n_items), means)


def _signs(covariance: np.ndarray, magnitude: np.ndarray) -> np.ndarray:
    """crowd-kit's ``_sign_determination_valid``: positive pairs become a new node between the two
    annotators, negative pairs an edge; the eigenvector of the smallest eigenvalue of I + D⁻¹A
    splits the graph into two signs, the majority taken as +. Built sparse (the dense graph has a
    row per positive pair)."""
    valid = np.flatnonzero(covariance.sum(axis=1) != 0)
    signs = np.sign(covariance[np.ix_(valid, valid)])
    k = len(valid)
    first, second = np.nonzero(np.triu(signs == 1))
    m = len(first)
    negative = sparse.coo_matrix(np.abs(np.where(signs == 1, 0.0, signs)))
    pair_rows = np.concatenate([np.arange(m), np.arange(m)]) + k
    pair_cols = np.concatenate([first, second])
    rows = np.concatenate([negative.row, pair_rows, pair_cols])
    cols = np.concatenate([negative.col, pair_cols, pair_rows])
    adjacency = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(k + m, k + m))
    adjacency.sum_duplicates()
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    walk = sparse.diags(1.0 / degree) @ adjacency + sparse.identity(k + m)
    _, vectors = sparse_linalg.eigs(walk, 1, which="SM")
    sign_vector = np.sign(vectors.real[:k, 0])
    result = np.zeros(len(covariance))
    result[valid] = np.sign(sign_vector.sum()) * magnitude[valid] * sign_vector
    return result
