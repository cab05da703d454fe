"""Cohen's kappa (Cohen 1960; weighted, Cohen 1968) for every pair of annotators, with the large-sample
standard errors, z and p of Fleiss, Cohen & Everitt (1969, Psychological Bulletin 72(5)); equal to
statsmodels' ``cohens_kappa``. The pairs' mean is weighted by the items each shares."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import stats

from annotation.crowd.agreement.weights import (
    Weights,
    disagreement_weights,
    expected_disagreement,
    weights_description,
)
from annotation.crowd.io.encoding import Encoded, Labels, as_encoded, factorize


@dataclass(frozen=True, eq=False)
class PairEntries:
    """Every (pair of annotators, shared item) of a data set, as arrays; pairs are oriented by the
    ``repr`` of the annotators, the smaller first. One label per (item, annotator), as ``encode``
    guarantees."""

    first: np.ndarray  # annotator code of the first annotator, per pair
    second: np.ndarray
    pair_index: np.ndarray  # per entry: which pair
    item_index: np.ndarray  # per entry: which item
    first_label: np.ndarray  # per entry: class code the first annotator gave
    second_label: np.ndarray


def pair_entries(data: Encoded) -> PairEntries:
    """Every (pair of annotators, shared item).

    1. Sort the labels by (item, annotator rank) with a stable sort, so each item is one block in
       which the first-named annotator of any pair comes first; of repeated (item, annotator)
       labels keep the last.
    2. For each block size m, lay those blocks out as a (blocks × m) array and take the
       m(m − 1)/2 column pairs at once.
    3. Number the pairs in order of their (rank, rank) code, through a dense table when the
       annotator × annotator space is small, a hash otherwise.
    A million labels with ten per item make 4.5 million entries, so arrays are 32-bit where the
    counts allow.
    """
    n_annotators = len(data.annotators)
    if len(data) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return PairEntries(empty, empty, empty, empty, empty, empty)
    small = np.int32 if max(len(data), n_annotators) < 2**31 else np.int64
    rank = np.empty(n_annotators, dtype=np.int64)
    rank[sorted(range(n_annotators), key=lambda a: repr(data.annotators[a]))] = np.arange(n_annotators)
    key = data.item_index * n_annotators + rank[data.annotator_index]
    order = np.argsort(key, kind="stable")
    key = key[order]
    items, ranks = np.divmod(key, n_annotators)
    classes = data.label_index[order]
    starts = np.flatnonzero(np.r_[True, items[1:] != items[:-1]])
    sizes = np.diff(np.r_[starts, len(items)])
    parts: list[tuple[np.ndarray, ...]] = []
    for size in np.unique(sizes[sizes >= 2]).tolist():
        upper_left, upper_right = np.triu_indices(size, 1)
        block_rows = starts[sizes == size][:, None] + np.arange(size)
        block_ranks, block_classes = ranks[block_rows].astype(small), classes[block_rows].astype(small)
        # np.take along axis 1 keeps the result C-ordered, so ravel is free.
        parts.append(
            (
                np.take(block_ranks, upper_left, axis=1).ravel(),
                np.take(block_ranks, upper_right, axis=1).ravel(),
                np.repeat(items[block_rows[:, 0]].astype(small), len(upper_left)),
                np.take(block_classes, upper_left, axis=1).ravel(),
                np.take(block_classes, upper_right, axis=1).ravel(),
            )
        )
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return PairEntries(empty, empty, empty, empty, empty, empty)
    first_rank, second_rank, pair_items, first_class, second_class = (
        np.concatenate(column) if len(column) > 1 else column[0] for column in zip(*parts, strict=True)
    )
    del parts
    codes = first_rank.astype(np.int64) * n_annotators + second_rank
    del first_rank, second_rank
    if n_annotators**2 <= 4 * len(codes) + 2**20:
        # Dense numbering: mark the codes that occur, number them in order.
        number = np.zeros(n_annotators**2, dtype=small)
        number[codes] = 1
        pair_codes = np.flatnonzero(number)
        number[pair_codes] = np.arange(len(pair_codes), dtype=small)
        pair_index = number[codes]
    else:
        # Hash first, then sort only the distinct pairs.
        first_seen_index, seen = factorize(codes)
        first_seen_codes = np.asarray(seen, dtype=codes.dtype)
        by_code = np.argsort(first_seen_codes)
        renumber = np.empty(len(by_code), dtype=small)
        renumber[by_code] = np.arange(len(by_code), dtype=small)
        pair_codes, pair_index = first_seen_codes[by_code], renumber[first_seen_index]
    annotator_at_rank = np.argsort(rank)
    return PairEntries(
        annotator_at_rank[pair_codes // n_annotators],
        annotator_at_rank[pair_codes % n_annotators],
        pair_index,
        pair_items,
        first_class,
        second_class,
    )


def pairwise_kappas(
    entries: PairEntries, n_classes: int, weights: Weights, entry_weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Cohen's kappa and the (weighted) number of shared items of every pair, NaN where undefined.

    kappa = 1 − Σ w·observed / Σ w·expected, the expected table being the product of the two
    annotators' label margins (Cohen 1960, 1968); this is statsmodels' ``cohens_kappa``, for all
    pairs at once. ``entry_weights`` (one per entry) serve the bootstrap, where an item drawn
    twice counts twice.
    """
    n_pairs = len(entries.first)
    table_weights = disagreement_weights(n_classes, weights)
    shared = np.bincount(entries.pair_index, weights=entry_weights, minlength=n_pairs)
    observed = np.bincount(
        entries.pair_index,
        weights=table_weights[entries.first_label, entries.second_label]
        * (1.0 if entry_weights is None else entry_weights),
        minlength=n_pairs,
    )
    rows = np.bincount(
        entries.pair_index * n_classes + entries.first_label,
        weights=entry_weights,
        minlength=n_pairs * n_classes,
    ).reshape(n_pairs, n_classes)
    columns = np.bincount(
        entries.pair_index * n_classes + entries.second_label,
        weights=entry_weights,
        minlength=n_pairs * n_classes,
    ).reshape(n_pairs, n_classes)
    expected = expected_disagreement(rows, columns, shared, weights)
    kappa = np.full(n_pairs, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.subtract(1.0, observed * shared / expected, out=kappa, where=expected > 0)
    return kappa, shared


STATISTIC_FIELDS = (
    "kappa",
    "kappa_max",
    "var_kappa",
    "std_kappa",
    "var_kappa0",
    "std_kappa0",
    "z_value",
    "pvalue_one_sided",
    "pvalue_two_sided",
    "kappa_low",
    "kappa_upp",
)


@dataclass(frozen=True)
class KappaStatistics:
    """Cohen's kappa with its large-sample standard errors, z test and interval; the fields and
    their names are statsmodels' ``KappaResults``. None where a figure is undefined.

    ``var_kappa``/``std_kappa``: variance and standard error of kappa (Fleiss, Cohen & Everitt
    1969, eq. 13 and its weighted form), behind the interval ``kappa_low``–``kappa_upp``
    (kappa ∓ z_{alpha} · std_kappa; ``alpha`` = 0.025 for 95%), truncated to [−1, 1] where
    statsmodels' would leave it (on few items it does). ``var_kappa0``/``std_kappa0``: under
    H0 kappa = 0, behind ``z_value`` = kappa / std_kappa0 and its normal p-values (one-sided:
    kappa > 0). ``kappa_max``: the largest (unweighted) kappa the two margins allow (Cohen 1960),
    reported for weighted kappa too, as statsmodels does. ``n_items``: the table's total.
    """

    kappa: float | None
    kappa_max: float | None
    var_kappa: float | None
    std_kappa: float | None
    var_kappa0: float | None
    std_kappa0: float | None
    z_value: float | None
    pvalue_one_sided: float | None
    pvalue_two_sided: float | None
    kappa_low: float | None
    kappa_upp: float | None
    alpha: float
    n_items: float
    weights: str | list[list[float]] = "none"

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in (*STATISTIC_FIELDS, "alpha", "n_items", "weights")}


def table_statistics(tables: np.ndarray, weights: np.ndarray, alpha: float = 0.025) -> dict[str, np.ndarray]:
    """Kappa and its standard errors for a stack of P tables (P × K × K counts, rows the first
    annotator) under one K × K disagreement matrix, every field of ``STATISTIC_FIELDS`` as a
    length-P array (NaN where undefined).

    Fleiss, Cohen & Everitt (1969), with agreement weights w = 1 − d / max d (kappa and both
    variances are invariant under that affine change; with d = 1 off the diagonal they reduce to
    the unweighted formulas), proportions p_ij, margins p_i. and p_.j, w̄_i. = Σ_j p_.j w_ij,
    w̄_.j = Σ_i p_i. w_ij, P_e = Σ w_ij p_i. p_.j:

        var(κ)  = [Σ p_ij (w_ij − (w̄_i. + w̄_.j)(1 − κ))² − (κ − P_e (1 − κ))²] / (n (1 − P_e)²)
        var0(κ) = [Σ p_i. p_.j (w_ij − (w̄_i. + w̄_.j))² − P_e²] / (n (1 − P_e)²)

    A numerator within 1e-12 of zero counts as 0 (statsmodels keeps the rounding noise: a
    standard error of 1e-8, or NaN from a variance of −1e-17, where the exact one is 0).
    """
    tables = np.asarray(tables, dtype=float)
    n = tables.sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = tables / n[:, None, None]
        rows, columns = p.sum(axis=2), p.sum(axis=1)
        largest = weights.max() if weights.size else 0.0
        disagreement = weights / largest if largest > 0 else weights
        agreement = 1.0 - disagreement
        # Kappa and 1 − P_e in disagreement form, as statsmodels computes kappa: exact where the
        # agreement form would round a tiny disagreement weight away.
        disagree_observed = np.einsum("pij,ij->p", p, disagreement)
        disagree_expected = np.einsum("pi,ij,pj->p", rows, disagreement, columns)
        kappa = 1 - disagree_observed / disagree_expected
        expected = 1 - disagree_expected
        row_mean = np.einsum("ij,pj->pi", agreement, columns)  # w̄_i.
        column_mean = np.einsum("pi,ij->pj", rows, agreement)  # w̄_.j
        margin_means = row_mean[:, :, None] + column_mean[:, None, :]
        centred = agreement[None] - margin_means
        spread = agreement[None] - margin_means * (1 - kappa)[:, None, None]
        scale = n * disagree_expected**2
        # Numerators are differences of O(1) sums: within rounding of 0 they are 0 (a table where
        # an annotator used one label has no variance, not 1e-17 or a negative one).
        numerator = np.einsum("pij,pij->p", p, spread**2) - (kappa - expected * (1 - kappa)) ** 2
        numerator0 = np.einsum("pi,pj,pij->p", rows, columns, centred**2) - expected**2
        var_kappa = np.where(np.abs(numerator) < 1e-12, 0.0, numerator) / scale
        var_kappa0 = np.where(np.abs(numerator0) < 1e-12, 0.0, numerator0) / scale
        agree_exp = np.einsum("pi,pi->p", rows, columns)
        kappa_max = (np.minimum(rows, columns).sum(axis=1) - agree_exp) / (1 - agree_exp)
        undefined = ~(disagree_expected > 0) | ~(n > 0)
        kappa[undefined] = np.nan
        var_kappa[undefined] = np.nan
        var_kappa0[undefined] = np.nan
        std_kappa, std_kappa0 = np.sqrt(var_kappa), np.sqrt(var_kappa0)
        z_value = np.where(std_kappa0 > 0, kappa / std_kappa0, np.nan)
        delta = stats.norm.isf(alpha) * std_kappa
    return {
        "kappa": kappa,
        "kappa_max": np.where(agree_exp < 1, kappa_max, np.nan),
        "var_kappa": var_kappa,
        "std_kappa": std_kappa,
        "var_kappa0": var_kappa0,
        "std_kappa0": std_kappa0,
        "z_value": z_value,
        "pvalue_one_sided": stats.norm.sf(z_value),
        "pvalue_two_sided": 2 * stats.norm.sf(np.abs(z_value)),
        # Kappa lies in [−1, 1]: the Wald interval is truncated there, which excludes no possible
        # value of kappa and so leaves its coverage as it was.
        "kappa_low": np.clip(kappa - delta, -1.0, 1.0),
        "kappa_upp": np.clip(kappa + delta, -1.0, 1.0),
    }


def _statistics_at(
    found: dict[str, np.ndarray], index: int, alpha: float, n_items: float, weights
) -> KappaStatistics:
    values = {name: float(found[name][index]) for name in STATISTIC_FIELDS}
    return KappaStatistics(
        **{name: None if math.isnan(value) else value for name, value in values.items()},
        alpha=alpha,
        n_items=n_items,
        weights=weights_description(weights),
    )


def kappa_statistics(
    table: np.ndarray | Sequence[Sequence[float]], weights: Weights = "none", *, alpha: float = 0.025
) -> KappaStatistics:
    """Cohen's kappa of one K × K table of counts (rows: the first annotator's labels, columns the
    second's) with its standard errors, z and p (``KappaStatistics``): statsmodels'
    ``cohens_kappa(table)`` for ``weights="none"``, ``cohens_kappa(table, wt="linear")`` or
    ``wt="quadratic"`` for those, ``cohens_kappa(table, weights=matrix)`` for a matrix."""
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or counts.shape[0] != counts.shape[1]:
        raise ValueError("the table must be square: one row and one column per class")
    matrix = disagreement_weights(counts.shape[0], weights)
    found = table_statistics(counts[None], matrix, alpha)
    return _statistics_at(found, 0, alpha, float(counts.sum()), weights)


def pair_tables(entries: PairEntries, n_classes: int) -> np.ndarray:
    """Every pair's K × K table of counts (rows: the pair's first annotator), P × K × K."""
    n_pairs = len(entries.first)
    cells = (
        entries.pair_index.astype(np.int64) * n_classes + entries.first_label
    ) * n_classes + entries.second_label
    return np.bincount(cells, minlength=n_pairs * n_classes * n_classes).reshape(
        n_pairs, n_classes, n_classes
    )


def cohen_kappa(
    labels: Labels, first: Hashable, second: Hashable, *, weights: Weights = "none", alpha: float = 0.025
) -> KappaStatistics:
    """Cohen's kappa of two annotators over the items both labelled, with its standard errors, z
    and p (``KappaStatistics``; ``kappa_statistics`` of their table). Rows of the table are
    ``first``'s labels; classes are the whole data's, as in ``cohen_kappa_pairs``. ValueError if
    either annotator is unknown."""
    data = as_encoded(labels)
    matrix = disagreement_weights(len(data.classes), weights)
    code = {annotator: index for index, annotator in enumerate(data.annotators)}
    missing = [annotator for annotator in (first, second) if annotator not in code]
    if missing or first == second:
        raise ValueError(
            f"two different annotators of the data are needed; unknown: {missing}"
            if missing
            else "two different annotators are needed"
        )
    n_classes = len(data.classes)
    table = np.zeros((n_classes, n_classes))
    of_first = data.annotator_index == code[first]
    of_second = data.annotator_index == code[second]
    label_of_second = np.full(len(data.items), -1)
    label_of_second[data.item_index[of_second]] = data.label_index[of_second]
    paired = label_of_second[data.item_index[of_first]]
    shared = paired >= 0
    np.add.at(table, (data.label_index[of_first][shared], paired[shared]), 1)
    found = table_statistics(table[None], matrix, alpha)
    return _statistics_at(found, 0, alpha, float(table.sum()), weights)


class PairwiseKappa:
    """Cohen's kappa for every pair of annotators who share items, and their mean.

    ``mean`` weighs each pair by the items it shares, Σ shared · kappa / Σ shared: every (pair,
    shared item) counts once, so a pair that shares 3 items moves it as little as its 3 items
    warrant (with equal weights, 10 random judgements by a newcomer moved the demo's mean from
    0.30 to 0.07-0.27; BENCHMARKS.md). ``n_items`` (items rated by two or more of the annotators
    in a counted pair), ``n_annotators``, ``weights`` and ``pooled`` (the K × K table of every two
    ratings of one item, whatever the pair's overlap, rows the pair's first annotator; its
    ``pooled_items`` items) are plain attributes; ``pairs``
    ({(annotator, annotator): kappa}) and ``shared_items`` ({(annotator, annotator): count}) are
    built on first use (a large pool has hundreds of thousands of pairs).
    """

    def __init__(
        self,
        annotators: Sequence,
        first: np.ndarray,
        second: np.ndarray,
        kappa: np.ndarray,
        shared: np.ndarray,
        n_items: int,
        n_annotators: int,
        weights: Weights,
        statistics: dict[str, np.ndarray] | None = None,
        alpha: float = 0.025,
        pooled: np.ndarray | None = None,
        pooled_items: int = 0,
    ) -> None:
        self.annotators = list(annotators)
        self.first, self.second, self.kappa, self.shared = first, second, kappa, shared
        self.mean = float((kappa * shared).sum() / shared.sum()) if len(kappa) else None
        self.pooled = pooled
        self.pooled_items = pooled_items
        self.n_items = n_items
        self.n_annotators = n_annotators
        self.weights = weights
        self.statistics = statistics
        self.alpha = alpha

    @cached_property
    def pair_statistics(self) -> dict[tuple[Hashable, Hashable], KappaStatistics]:
        """``{(annotator, annotator): KappaStatistics}``, the pair's table oriented as the key;
        only when ``cohen_kappa_pairs`` was asked for ``statistics`` (ValueError otherwise)."""
        if self.statistics is None:
            raise ValueError("call cohen_kappa_pairs(..., statistics=True) for standard errors, z and p")
        return {
            key: _statistics_at(self.statistics, index, self.alpha, float(self.shared[index]), self.weights)
            for index, key in enumerate(self._keys())
        }

    def _keys(self) -> list[tuple[Hashable, Hashable]]:
        annotators = np.array(self.annotators, dtype=object)
        return list(zip(annotators[self.first].tolist(), annotators[self.second].tolist(), strict=True))

    @cached_property
    def pairs(self) -> dict[tuple[Hashable, Hashable], float]:
        return dict(zip(self._keys(), self.kappa.tolist(), strict=True))

    @cached_property
    def shared_items(self) -> dict[tuple[Hashable, Hashable], int]:
        return dict(zip(self._keys(), self.shared.astype(int).tolist(), strict=True))

    def __repr__(self) -> str:
        return (
            f"PairwiseKappa(mean={self.mean}, pairs={len(self.kappa)}, n_items={self.n_items}, "
            f"n_annotators={self.n_annotators}, weights={self.weights!r})"
        )


def cohen_kappa_pairs(
    labels: Labels,
    *,
    weights: Weights = "none",
    min_shared: int = 2,
    statistics: bool = False,
    alpha: float = 0.025,
) -> PairwiseKappa:
    """Cohen's kappa for every pair of annotators sharing at least ``min_shared`` items.

    ``weights``: ``none`` (plain), ``linear`` or ``quadratic`` (for graded and Likert labels, whose
    categories are then ordered numbers-first), or a K × K disagreement matrix over the classes
    (``disagreement_weights``). Categories are those of the whole data set, so every pair's table
    has the same shape and weighted distances count positions on that scale. A pair whose kappa
    is undefined (both gave one and the same label throughout) is left out of the mean and of
    ``pairs``; the mean weighs each pair by its shared items (``PairwiseKappa``). Equal to
    statsmodels' ``cohens_kappa`` pair by pair (tested).

    ``statistics``: also every counted pair's standard errors, z and p (``table_statistics``;
    ``PairwiseKappa.statistics`` as arrays, ``pair_statistics`` per pair) with two-sided
    intervals at 1 − 2·``alpha``. It holds a K × K table per pair, so it is opt-in.
    """
    data = as_encoded(labels)
    matrix = disagreement_weights(len(data.classes), weights)  # validates the name or the matrix
    entries = pair_entries(data)
    kappa, shared = pairwise_kappas(entries, len(data.classes), weights)
    counted = (shared >= min_shared) & ~np.isnan(kappa)
    found = None
    if statistics:
        tables = pair_tables(entries, len(data.classes))[counted]
        found = table_statistics(tables, matrix, alpha)
    # Every two ratings of one item, each once: a pool that rests on all the pairs, not only on those
    # that share enough items for a kappa of their own (its agreement is Fleiss' P̄ on balanced items).
    n_classes = len(data.classes)
    pooled = np.bincount(
        entries.first_label.astype(np.int64) * n_classes + entries.second_label,
        minlength=n_classes * n_classes,
    ).reshape(n_classes, n_classes)
    pooled_items = int(np.count_nonzero(np.bincount(entries.item_index, minlength=1)))
    counted_annotators = np.zeros(len(data.annotators), dtype=bool)
    counted_annotators[entries.first[counted]] = True
    counted_annotators[entries.second[counted]] = True
    # Items rated by at least two distinct counted annotators (whether or not that pair is counted).
    both_counted = (counted_annotators[entries.first] & counted_annotators[entries.second])[
        entries.pair_index
    ]
    n_items = int(np.count_nonzero(np.bincount(entries.item_index[both_counted], minlength=1)))
    return PairwiseKappa(
        data.annotators,
        entries.first[counted],
        entries.second[counted],
        kappa[counted],
        shared[counted],
        n_items,
        int(counted_annotators.sum()),
        weights,
        found,
        alpha,
        pooled,
        pooled_items,
    )


def cohen_kappa_matrix(
    labels: Labels,
    *,
    weights: Weights = "none",
    min_shared: int = 2,
    annotators: Sequence[Hashable] | None = None,
) -> dict:
    """Pairwise Cohen's kappa as an annotator × annotator matrix, for a heat-map (JSON-friendly).

    Returns ``{"annotators": [...], "kappa": [[...]], "shared_items": [[...]], "weights": ...,
    "min_shared": ...}``: ``kappa[i][j]`` is the kappa of annotators i and j (symmetric; None on
    the diagonal, for pairs sharing fewer than ``min_shared`` items, and where kappa is undefined),
    ``shared_items[i][j]`` how many items they both labelled. ``annotators`` picks and orders the
    rows (default: every annotator, in first-seen order); a pool of thousands makes a large
    matrix, so pass the annotators the page shows.
    """
    data = as_encoded(labels)
    entries = pair_entries(data)
    pair_kappa, pair_shared = pairwise_kappas(entries, len(data.classes), weights)
    chosen = list(data.annotators) if annotators is None else list(annotators)
    position = {annotator: index for index, annotator in enumerate(chosen)}
    code_position = np.array([position.get(annotator, -1) for annotator in data.annotators], dtype=np.int64)
    first, second = code_position[entries.first], code_position[entries.second]
    inside = (first >= 0) & (second >= 0)
    first, second = first[inside], second[inside]
    shared = np.zeros((len(chosen), len(chosen)), dtype=np.int64)
    shared[first, second] = shared[second, first] = pair_shared[inside]
    kappa = np.full((len(chosen), len(chosen)), np.nan)
    counted = np.where(pair_shared[inside] >= min_shared, pair_kappa[inside], np.nan)
    kappa[first, second] = kappa[second, first] = counted
    return {
        "annotators": chosen,
        "kappa": [[None if math.isnan(value) else value for value in row] for row in kappa.tolist()],
        "shared_items": shared.tolist(),
        "weights": weights_description(weights),
        "min_shared": min_shared,
    }
