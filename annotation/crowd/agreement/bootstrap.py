"""Bootstrap confidence intervals over items for Fleiss' kappa, mean pairwise Cohen's kappa and
Krippendorff's alpha.

Percentile bootstrap (Efron & Tibshirani 1993, *An Introduction to the Bootstrap*, ch. 13): draw
as many items as there are, with replacement, together with all their judgements (an item drawn
twice counts as two items); compute the statistic on that resample exactly as on the data
(including Fleiss' rule for unbalanced items; the label scale, i.e. which labels exist and their
positions for weighted kappa, stays the data's); the interval is the
(1 − c)/2 and (1 + c)/2 quantiles of the replicates. Replicates where a statistic is undefined
(say, a resample with a single label) are left out and counted.

One refinement for Cohen's kappa: a pair of annotators counts in a resample when it shares at least
``min_shared`` *distinct* items of the data. Copies of one item would otherwise let pairs that
share a single item (most pairs in a sparse crowd design) into every resample with a degenerate
kappa of ±1, and the interval would miss the estimate; within a counted pair, copies weigh as
often as they were drawn.

Every statistic here is a ratio of sums over items, so a replicate is the data's per-item
contributions weighted by how often each item was drawn: no resample is ever materialised, and
resample r draws the same items for every statistic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from annotation.crowd.agreement.cohen import pair_entries
from annotation.crowd.agreement.krippendorff import alpha_value_domain
from annotation.crowd.agreement.weights import Weights, disagreement_weights, expected_disagreement
from annotation.crowd.io.encoding import Encoded, Labels, as_encoded

STATISTICS = ("fleiss_kappa", "cohen_kappa_mean", "krippendorff_alpha")
_CHUNK = 32  # replicates whose item weights are held at once (32 × items floats)


@dataclass(frozen=True)
class BootstrapInterval:
    """A percentile interval. ``low``/``high`` are None when no replicate was defined."""

    low: float | None
    high: float | None
    confidence: float
    resamples: int
    defined: int
    replicates: np.ndarray = field(repr=False, compare=False)

    def as_dict(self) -> dict:
        return {
            "low": self.low,
            "high": self.high,
            "confidence": self.confidence,
            "resamples": self.resamples,
            "defined_resamples": self.defined,
            # Far from the estimate when the statistic is biased at this size (see the module notes).
            "mean_of_resamples": float(np.nanmean(self.replicates)) if self.defined else None,
        }


def resampled_items(n_items: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """The item indices of each resample, in order: ``n_items`` draws with replacement, seeded."""
    rng = np.random.default_rng(seed)
    for _ in range(resamples):
        yield rng.integers(0, n_items, n_items)


def _weight_chunks(n_items: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Resamples as rows of how many times each item was drawn, ``_CHUNK`` rows at a time."""
    rows = []
    for drawn in resampled_items(n_items, resamples, seed):
        rows.append(np.bincount(drawn, minlength=n_items).astype(float))
        if len(rows) == _CHUNK:
            yield np.stack(rows)
            rows = []
    if rows:
        yield np.stack(rows)


def bootstrap_agreement(
    labels: Labels,
    *,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    weights: Weights = "none",
    level: str = "nominal",
    min_shared: int = 2,
    statistics: tuple[str, ...] = STATISTICS,
) -> dict[str, BootstrapInterval]:
    """Percentile intervals for the named ``statistics`` (default all three), keyed by name.

    ``weights`` (a name or a disagreement matrix) and ``min_shared`` are Cohen's, ``level`` is
    alpha's, as in ``agreement``.
    Deterministic for a ``seed``. Cost: one pass over the items per resample for Fleiss and
    alpha, one pass over every (pair of annotators, shared item) for Cohen, which dominates with
    many annotators per item.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    unknown = set(statistics) - set(STATISTICS)
    if unknown:
        raise ValueError(f"unknown statistics {sorted(unknown)}; known: {', '.join(STATISTICS)}")
    data = as_encoded(labels)
    replicators: dict[str, Callable[[], Callable[[np.ndarray], np.ndarray]]] = {
        "fleiss_kappa": lambda: _FleissReplicates(data),
        "cohen_kappa_mean": lambda: _CohenReplicates(data, weights, min_shared),
        "krippendorff_alpha": lambda: _AlphaReplicates(data, level),
    }
    chosen = {name: replicators[name]() for name in STATISTICS if name in statistics}
    values: dict[str, list[np.ndarray]] = {name: [] for name in chosen}
    if len(data.items):
        for chunk in _weight_chunks(len(data.items), resamples, seed):
            for name, replicator in chosen.items():
                values[name].append(replicator(chunk))
    intervals = {}
    for name, parts in values.items():
        replicates = np.concatenate(parts) if parts else np.full(resamples, np.nan)
        defined = replicates[~np.isnan(replicates)]
        if len(defined):
            low, high = np.quantile(defined, [(1 - confidence) / 2, (1 + confidence) / 2]).tolist()
        else:
            low = high = None
        intervals[name] = BootstrapInterval(low, high, confidence, resamples, len(defined), replicates)
    return intervals


class _FleissReplicates:
    """Fleiss' kappa = (P̄ − Σ p_j²) / (1 − Σ p_j²) with P̄ and p_j means over items, so weighted
    sums; the rule choosing n (the most common number of ratings) is re-applied per resample."""

    def __init__(self, data: Encoded) -> None:
        per_item = data.ratings_per_item
        self.candidates = np.unique(per_item[per_item >= 2])
        self.counts = data.counts.astype(float)
        self.per_item = per_item
        pairable = np.flatnonzero(per_item >= 2)
        # membership[i, c]: item i has candidates[c] ratings; weights × membership counts items per n.
        self.membership = sparse.csr_matrix(
            (
                np.ones(len(pairable)),
                (pairable, np.searchsorted(self.candidates, per_item[pairable])),
            ),
            shape=(len(per_item), len(self.candidates)),
        )

    def __call__(self, item_weights: np.ndarray) -> np.ndarray:
        result = np.full(len(item_weights), np.nan)
        if not len(self.candidates):
            return result
        frequency = (self.membership.T @ item_weights.T).T  # resamples × candidate n
        # The largest n among the most frequent (``agreement.fleiss_items``); none if nothing pairable.
        winner = len(self.candidates) - 1 - np.argmax(frequency[:, ::-1], axis=1)
        winner[frequency.max(axis=1) == 0] = -1
        for choice in np.unique(winner[winner >= 0]).tolist():
            n = float(self.candidates[choice])
            rows = np.flatnonzero(winner == choice)
            kept = self.per_item == self.candidates[choice]
            table = self.counts[kept]
            agreement = ((table**2).sum(axis=1) - n) / (n * (n - 1))
            weights = item_weights[rows][:, kept]
            total = weights.sum(axis=1)
            mean_agreement = weights @ agreement / total
            shares = weights @ table / (total * n)[:, None]
            chance = (shares**2).sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                kappa = (mean_agreement - chance) / (1 - chance)
            result[rows] = np.where(chance < 1, kappa, np.nan)
        return result


class _CohenReplicates:
    """Each pair's kappa from its weighted table; entries sorted by pair so sums are contiguous.
    A pair counts when its shared items drawn at least once number ``min_shared`` or more; the
    mean weighs each counted pair by its shared items as drawn."""

    def __init__(self, data: Encoded, weights: Weights, min_shared: int) -> None:
        entries = pair_entries(data)
        order = np.argsort(entries.pair_index, kind="stable")
        self.pair = entries.pair_index[order]
        self.items = entries.item_index[order]
        self.n_pairs = len(entries.first)
        self.n_classes = len(data.classes)
        self.starts = np.flatnonzero(np.r_[True, self.pair[1:] != self.pair[:-1]]) if len(order) else order
        self.table_weights = disagreement_weights(self.n_classes, weights)
        self.disagreement = self.table_weights[entries.first_label[order], entries.second_label[order]]
        self.row_cell = self.pair.astype(np.int64) * self.n_classes + entries.first_label[order]
        self.column_cell = self.pair.astype(np.int64) * self.n_classes + entries.second_label[order]
        self.min_shared = min_shared
        self.weights = weights

    def __call__(self, item_weights: np.ndarray) -> np.ndarray:
        result = np.full(len(item_weights), np.nan)
        if not self.n_pairs:
            return result
        size = self.n_pairs * self.n_classes
        for index, weights in enumerate(item_weights):
            entry_weights = weights[self.items]
            shared = np.add.reduceat(entry_weights, self.starts)
            distinct = np.add.reduceat((entry_weights > 0).astype(float), self.starts)
            observed = np.add.reduceat(entry_weights * self.disagreement, self.starts)
            rows = np.bincount(self.row_cell, entry_weights, minlength=size).reshape(self.n_pairs, -1)
            columns = np.bincount(self.column_cell, entry_weights, minlength=size).reshape(self.n_pairs, -1)
            expected = expected_disagreement(rows, columns, shared, self.weights)
            counted = (distinct >= self.min_shared) & (expected > 0)
            if counted.any():
                kappa = 1 - observed[counted] * shared[counted] / expected[counted]
                # Weighted by the resample's shared items, as ``PairwiseKappa.mean`` on the data.
                result[index] = (kappa * shared[counted]).sum() / shared[counted].sum()
        return result


class _AlphaReplicates:
    """Alpha = 1 − Σ o·δ / Σ e·δ; the coincidence matrix o is a sum of per-item contributions
    (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"), the expected e and, for
    ordinal data, the distances δ follow from its margins."""

    def __init__(self, data: Encoded, level: str) -> None:
        self.level = level
        self.values = np.array(alpha_value_domain(data.classes, level), dtype=float)
        k = self.n_classes = len(data.classes)
        counts = data.counts
        per_item = data.ratings_per_item
        item, label = np.nonzero(counts * (per_item >= 2)[:, None])
        count = counts[item, label].astype(float)
        # Every ordered pair (c, k) of labels present in an item, the label with itself included.
        starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]]) if len(item) else item
        sizes = np.diff(np.r_[starts, len(item)])
        left_parts, right_parts = [], []
        for size in np.unique(sizes).tolist():
            block = starts[sizes == size][:, None]
            grid_left, grid_right = np.divmod(np.arange(size * size), size)
            left_parts.append((block + grid_left).ravel())
            right_parts.append((block + grid_right).ravel())
        left = np.concatenate(left_parts) if left_parts else np.zeros(0, dtype=np.int64)
        right = np.concatenate(right_parts) if right_parts else np.zeros(0, dtype=np.int64)
        contribution = (count[left] * count[right] - np.where(left == right, count[left], 0.0)) / (
            per_item[item[left]] - 1
        )
        self.by_cell = sparse.csr_matrix(
            (contribution, (label[left] * k + label[right], item[left])), shape=(k * k, len(per_item))
        )
        self.fixed_distances = None if level == "ordinal" else self._distances(None)

    def _distances(self, margins: np.ndarray | None) -> np.ndarray:
        values = self.values
        if self.level == "nominal":
            return (values[:, None] != values[None, :]).astype(float)
        if self.level == "interval":
            return (values[:, None] - values[None, :]) ** 2
        if self.level == "ratio":
            total = values[:, None] + values[None, :]
            difference = values[:, None] - values[None, :]
            return np.divide(difference, total, out=np.zeros_like(total), where=total != 0) ** 2
        # Ordinal: (Σ_{g between c and k} n_g − (n_c + n_k) / 2)², per resample's margins.
        assert margins is not None  # only the fixed (non-ordinal) distances are computed without them
        cumulative = np.concatenate([np.zeros((len(margins), 1)), np.cumsum(margins, axis=1)], axis=1)
        low = np.minimum.outer(np.arange(self.n_classes), np.arange(self.n_classes))
        high = np.maximum.outer(np.arange(self.n_classes), np.arange(self.n_classes))
        between = cumulative[:, high + 1] - cumulative[:, low]
        return (between - (margins[:, :, None] + margins[:, None, :]) / 2) ** 2

    def __call__(self, item_weights: np.ndarray) -> np.ndarray:
        k = self.n_classes
        coincidences = (self.by_cell @ item_weights.T).T.reshape(len(item_weights), k, k)
        margins = coincidences.sum(axis=1)
        total = margins.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = (margins[:, :, None] * margins[:, None, :] - margins[:, :, None] * np.eye(k)) / (
                total - 1
            )[:, None, None]
            distances = self.fixed_distances if self.fixed_distances is not None else self._distances(margins)
            observed_disagreement = (coincidences * distances).sum(axis=(1, 2))
            expected_disagreement = (expected * distances).sum(axis=(1, 2))
            alpha = 1 - observed_disagreement / expected_disagreement
        return np.where((total > 1) & (expected_disagreement > 0), alpha, np.nan)
