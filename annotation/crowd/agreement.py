"""Inter-annotator agreement: Fleiss' kappa (statsmodels), Cohen's kappa for every pair of
annotators, Krippendorff's alpha (the ``krippendorff`` package), and agreement per label.

Every function takes judgements as (item, annotator, label) triples, a DataFrame, or an ``Encoded``
(``encoding.encode``; given one, nothing is encoded again), and every result says how many items
and annotators it rests on.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import krippendorff
import numpy as np
import pandas as pd
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from .encoding import Encoded, Labels, Triple, as_encoded, label_order

__all__ = [
    "AgreementResult",
    "LabelAgreement",
    "PairwiseKappa",
    "PerLabelAgreement",
    "Triple",
    "cohen_kappa_matrix",
    "cohen_kappa_pairs",
    "fleiss_kappa",
    "group_by_item",
    "krippendorff_alpha",
    "label_order",
    "per_label_agreement",
]

WEIGHTS = ("none", "linear", "quadratic")
LEVELS = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class AgreementResult:
    """An agreement figure and what it rests on. ``value`` is None where the statistic is undefined."""

    value: float | None
    n_items: int
    n_annotators: int
    n_items_excluded: int = 0


def group_by_item(labels: Iterable[Triple]) -> dict[Hashable, list[tuple[Hashable, Hashable]]]:
    """``{item: [(annotator, label), …]}`` in first-seen order."""
    items: dict[Hashable, list[tuple[Hashable, Hashable]]] = {}
    for item, annotator, label in labels:
        items.setdefault(item, []).append((annotator, label))
    return items


def _annotators_of(data: Encoded, item_mask: np.ndarray) -> int:
    """How many distinct annotators labelled the items in ``item_mask``."""
    rows = item_mask[data.item_index]
    return int(np.count_nonzero(np.bincount(data.annotator_index[rows], minlength=len(data.annotators))))


def fleiss_items(data: Encoded) -> tuple[np.ndarray, int]:
    """The items Fleiss' kappa uses (a mask over ``data.items``) and their number of ratings n.

    Rule for unbalanced data: n is the most common number of ratings among items with at least
    two (ties go to the larger n); items with another count are left out.
    """
    per_item = data.ratings_per_item
    frequency = np.bincount(per_item)
    frequency[:2] = 0
    if not frequency.any():
        return np.zeros(len(data.items), dtype=bool), 0
    n = int(len(frequency) - 1 - np.argmax(frequency[::-1]))  # the largest n among the most common
    return per_item == n, n


def fleiss_kappa(labels: Labels) -> AgreementResult:
    """Fleiss' kappa (Fleiss 1971) over items with a fixed number of ratings, via statsmodels.

    statsmodels (like Fleiss' formula) needs the same number of ratings n on every item; see
    ``fleiss_items`` for which items are used when they differ. Items left out are counted in
    ``n_items_excluded``. ``value`` is None when no item qualifies or chance agreement is 1 (one
    label only).
    """
    data = as_encoded(labels)
    kept, _ = fleiss_items(data)
    n_kept = int(kept.sum())
    if n_kept == 0:
        return AgreementResult(None, 0, len(data.annotators), len(data.items))
    table = data.counts[kept]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 when every rating is one label
        value = float(statsmodels_fleiss_kappa(table, method="fleiss"))
    return AgreementResult(
        None if math.isnan(value) else value, n_kept, _annotators_of(data, kept), len(data.items) - n_kept
    )


@dataclass(frozen=True)
class LabelAgreement:
    """Agreement on one label.

    ``fleiss_kappa``: Fleiss' (1971) kappa for that category, κ_j = 1 − Σ_i x_ij (n − x_ij) /
    (N n (n − 1) p_j q_j), on the items Fleiss' overall kappa uses; it equals Fleiss' kappa of the
    table collapsed to "this label or not". None when every or no rating is this label.
    ``specific_agreement``: the proportion of specific agreement, Σ_i x_ij (x_ij − 1) /
    Σ_i x_ij (n_i − 1) over every item with at least two ratings (any n_i): given that one rating
    of an item is this label, the chance that another rating of it is too. For two raters and a
    binary label it is the positive (or negative) agreement 2a / (2a + b + c) of Cicchetti &
    Feinstein (1990); the many-rater form is Uebersax's ("Raw agreement indices"; Fleiss, Levin &
    Paik 2003, ch. 18). None when no pairable item has this label.
    ``share``: the label's share of the ratings on pairable items; ``n_ratings``: their number.
    """

    label: Hashable
    fleiss_kappa: float | None
    specific_agreement: float | None
    share: float
    n_ratings: int


@dataclass(frozen=True)
class PerLabelAgreement:
    """Agreement on every label, with what each figure rests on.

    ``n_items``/``n_annotators``: the pairable items (two or more ratings) and their annotators,
    the base of ``specific_agreement``; ``fleiss_n_items``/``fleiss_n_annotators``: the base of the
    per-label Fleiss kappas (the same items as ``fleiss_kappa``).
    """

    labels: list[LabelAgreement]
    n_items: int
    n_annotators: int
    fleiss_n_items: int
    fleiss_n_annotators: int

    def as_dict(self) -> dict:
        return {
            "labels": [
                {
                    "label": row.label,
                    "fleiss_kappa": row.fleiss_kappa,
                    "specific_agreement": row.specific_agreement,
                    "share": row.share,
                    "n_ratings": row.n_ratings,
                }
                for row in self.labels
            ],
            "n_items": self.n_items,
            "n_annotators": self.n_annotators,
            "fleiss_n_items": self.fleiss_n_items,
            "fleiss_n_annotators": self.fleiss_n_annotators,
        }


def per_label_agreement(labels: Labels) -> PerLabelAgreement:
    """Per-label Fleiss kappa and proportion of specific agreement; see ``LabelAgreement``."""
    data = as_encoded(labels)
    counts = data.counts.astype(float)
    per_item = data.ratings_per_item
    pairable = per_item >= 2
    pairable_counts = counts[pairable]
    together = (pairable_counts * (pairable_counts - 1)).sum(axis=0)
    possible = (pairable_counts * (per_item[pairable, None] - 1)).sum(axis=0)
    specific = np.divide(together, possible, out=np.full(len(data.classes), np.nan), where=possible > 0)
    ratings = pairable_counts.sum(axis=0)
    share = ratings / ratings.sum() if ratings.sum() else np.zeros(len(data.classes))

    kept, n = fleiss_items(data)
    table = counts[kept]
    if len(table):
        p = table.sum(axis=0) / (len(table) * n)
        disagreement = (table * (n - table)).sum(axis=0)
        chance = len(table) * n * (n - 1) * p * (1 - p)
        kappas = np.divide(disagreement, chance, out=np.full(len(p), np.nan), where=chance > 0)
        kappas = np.where(chance > 0, 1 - kappas, np.nan)
    else:
        kappas = np.full(len(data.classes), np.nan)
    rows = [
        LabelAgreement(
            label,
            None if math.isnan(kappa) else float(kappa),
            None if math.isnan(agree) else float(agree),
            float(label_share),
            int(count),
        )
        for label, kappa, agree, label_share, count in zip(
            data.classes, kappas.tolist(), specific.tolist(), share.tolist(), ratings.tolist(), strict=True
        )
    ]
    return PerLabelAgreement(
        rows,
        int(pairable.sum()),
        _annotators_of(data, pairable),
        int(kept.sum()),
        _annotators_of(data, kept),
    )


def disagreement_weights(n_classes: int, weights: str) -> np.ndarray:
    """K × K disagreement weights over class positions: 1 off the diagonal (``none``), |i − j|
    (``linear``) or (i − j)² (``quadratic``). statsmodels divides them by (K − 1) or (K − 1)²,
    which cancels in kappa."""
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be none, linear or quadratic, not {weights!r}")
    positions = np.arange(n_classes, dtype=float)
    distance = np.abs(positions[:, None] - positions[None, :])
    if weights == "none":
        return (distance > 0).astype(float)
    return distance if weights == "linear" else distance**2


def expected_disagreement(
    rows: np.ndarray, columns: np.ndarray, shared: np.ndarray, weights: str
) -> np.ndarray:
    """Σ_ab w_ab r_a c_b per pair (n × the chance-expected weighted disagreement) from the pairs'
    label margins r (first annotator) and c (second). ``einsum``, not a matrix product: BLAS
    threads on a P × K by K × K product cost more than they save."""
    if weights == "none":
        return shared * shared - np.einsum("pa,pa->p", rows, columns)
    table_weights = disagreement_weights(rows.shape[1], weights)
    return np.einsum("pa,ab,pb->p", rows, table_weights, columns)


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
        first_seen_index, first_seen_codes = pd.factorize(codes, sort=False)
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
    entries: PairEntries, n_classes: int, weights: str, entry_weights: np.ndarray | None = None
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


class PairwiseKappa:
    """Cohen's kappa for every pair of annotators who share items, and their mean.

    ``mean``, ``n_items`` (items rated by two or more of the annotators in a counted pair),
    ``n_annotators`` and ``weights`` are plain attributes; ``pairs`` ({(annotator, annotator):
    kappa}) and ``shared_items`` ({(annotator, annotator): count}) are built on first use (a large
    pool has hundreds of thousands of pairs).
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
        weights: str,
    ) -> None:
        self.annotators = list(annotators)
        self.first, self.second, self.kappa, self.shared = first, second, kappa, shared
        self.mean = float(kappa.mean()) if len(kappa) else None
        self.n_items = n_items
        self.n_annotators = n_annotators
        self.weights = weights

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


def cohen_kappa_pairs(labels: Labels, *, weights: str = "none", min_shared: int = 2) -> PairwiseKappa:
    """Cohen's kappa for every pair of annotators sharing at least ``min_shared`` items.

    ``weights``: ``none`` (plain), ``linear`` or ``quadratic`` (for graded and Likert labels, whose
    categories are then ordered numbers-first). Categories are those of the whole data set, so
    every pair's table has the same shape and weighted distances count positions on that scale.
    A pair whose kappa is undefined (both gave one and the same label throughout) is left out
    of the mean and of ``pairs``. Equal to statsmodels' ``cohens_kappa`` pair by pair (tested).
    """
    data = as_encoded(labels)
    disagreement_weights(1, weights)  # validates the name
    entries = pair_entries(data)
    kappa, shared = pairwise_kappas(entries, len(data.classes), weights)
    counted = (shared >= min_shared) & ~np.isnan(kappa)
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
    )


def cohen_kappa_matrix(
    labels: Labels,
    *,
    weights: str = "none",
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
        "weights": weights,
        "min_shared": min_shared,
    }


def alpha_value_domain(classes: Sequence, level: str) -> list:
    """Values the distance metric works on: class positions for nominal data, the numbers otherwise."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if level == "nominal":
        return list(range(len(classes)))
    if not all(isinstance(value, int | float) for value in classes):
        text = [value for value in classes if not isinstance(value, int | float)][:3]
        raise ValueError(f"level {level!r} needs numeric labels; found {text}")
    return [float(value) for value in classes]


def krippendorff_alpha(labels: Labels, level: str = "nominal") -> AgreementResult:
    """Krippendorff's alpha (the ``krippendorff`` package) for unbalanced designs: any number of
    ratings per item, missing ones allowed. ``level``: nominal, ordinal, interval or ratio; for
    ordinal and above the labels must be numbers.

    Alpha depends only on how often each value occurs within each item, so the package is given
    an items × values count table rather than an annotators × items matrix: memory grows with the
    items, not with items × annotators.
    """
    data = as_encoded(labels)
    value_domain = alpha_value_domain(data.classes, level)
    counts = data.counts
    pairable_rows = data.ratings_per_item >= 2
    pairable = int(pairable_rows.sum())
    if pairable == 0 or np.count_nonzero(counts[pairable_rows].sum(axis=0)) < 2:
        # Undefined (0/0) when the pairable ratings show no variation at all.
        return AgreementResult(None, pairable, len(data.annotators), len(data.items) - pairable)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        value = float(
            krippendorff.alpha(
                value_counts=counts[pairable_rows], value_domain=value_domain, level_of_measurement=level
            )
        )
    return AgreementResult(
        None if math.isnan(value) else value, pairable, len(data.annotators), len(data.items) - pairable
    )
