"""Inter-assessor agreement. The kappas are statsmodels' (``statsmodels.stats.inter_rater``).

Every result says how many items and assessors it rests on.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import krippendorff
import numpy as np
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

Triple = tuple[Hashable, Hashable, Hashable]


@dataclass(frozen=True)
class AgreementResult:
    """An agreement figure and what it rests on. ``value`` is None where the statistic is undefined."""

    value: float | None
    n_items: int
    n_workers: int
    n_items_excluded: int = 0


def group_by_item(labels: Iterable[Triple]) -> dict[Hashable, list[tuple[Hashable, Hashable]]]:
    """``{item: [(worker, label), …]}`` in first-seen order."""
    items: dict[Hashable, list[tuple[Hashable, Hashable]]] = {}
    for item, worker, label in labels:
        items.setdefault(item, []).append((worker, label))
    return items


def fleiss_kappa(labels: Iterable[Triple]) -> AgreementResult:
    """Fleiss' kappa (Fleiss 1971) over items with a fixed number of ratings, via statsmodels.

    statsmodels (like Fleiss' formula) needs the same number of ratings n on every item. Rule for
    unbalanced data: n is the most common number of ratings among items with at least two (ties go
    to the larger n); items with another count are left out and counted in ``n_items_excluded``.
    ``value`` is None when fewer than one item qualifies or chance agreement is 1 (one label only).
    """
    items = group_by_item(labels)
    counts = Counter(len(ratings) for ratings in items.values() if len(ratings) >= 2)
    if not counts:
        workers = {worker for ratings in items.values() for worker, _ in ratings}
        return AgreementResult(None, 0, len(workers), len(items))
    n = max(counts, key=lambda count: (counts[count], count))
    kept = [ratings for ratings in items.values() if len(ratings) == n]
    workers = {worker for ratings in kept for worker, _ in ratings}
    categories = sorted({label for ratings in kept for _, label in ratings}, key=label_order)
    code = {label: index for index, label in enumerate(categories)}
    coded = np.array([[code[label] for _, label in ratings] for ratings in kept])
    table, _ = aggregate_raters(coded, n_cat=len(categories))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 when every rating is one label
        value = float(statsmodels_fleiss_kappa(table, method="fleiss"))
    return AgreementResult(
        None if math.isnan(value) else value, len(kept), len(workers), len(items) - len(kept)
    )


@dataclass(frozen=True)
class PairwiseKappa:
    """Cohen's kappa for every pair of assessors who share items, and their mean."""

    pairs: dict[tuple[Hashable, Hashable], float]
    shared_items: dict[tuple[Hashable, Hashable], int]
    mean: float | None
    n_items: int
    n_workers: int
    weights: str


def cohen_kappa_pairs(
    labels: Iterable[Triple], *, weights: str = "none", min_shared: int = 2
) -> PairwiseKappa:
    """Cohen's kappa (statsmodels' ``cohens_kappa``) for every pair sharing ``min_shared`` items.

    ``weights``: ``none`` (plain), ``linear`` or ``quadratic`` (for graded and Likert labels, whose
    categories are then ordered numbers-first). Categories are those of the whole data set, so
    every pair's table has the same shape. A pair whose kappa is undefined (both gave one and the
    same label throughout) is left out of the mean and of ``pairs``.
    """
    if weights not in {"none", "linear", "quadratic"}:
        raise ValueError(f"weights must be none, linear or quadratic, not {weights!r}")
    items = group_by_item(labels)
    categories = sorted({label for ratings in items.values() for _, label in ratings}, key=label_order)
    code = {label: index for index, label in enumerate(categories)}
    by_pair: dict[tuple, list[tuple[int, int]]] = {}
    for ratings in items.values():
        seen = sorted({worker: label for worker, label in ratings}.items(), key=lambda wl: repr(wl[0]))
        for i, (first, first_label) in enumerate(seen):
            for second, second_label in seen[i + 1 :]:
                by_pair.setdefault((first, second), []).append((code[first_label], code[second_label]))
    pairs, shared = {}, {}
    n = len(categories)
    for pair, coded in by_pair.items():
        if len(coded) < min_shared:
            continue
        table = np.zeros((n, n))
        for a, b in coded:
            table[a, b] += 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if weights == "none":
                value = cohens_kappa(table, return_results=False)
            else:
                value = cohens_kappa(table, wt=weights, return_results=False)
        if not math.isnan(value):
            pairs[pair] = float(value)
            shared[pair] = len(coded)
    workers = {worker for pair in pairs for worker in pair}
    covered = sum(1 for ratings in items.values() if len({w for w, _ in ratings} & workers) >= 2)
    mean = float(np.mean(list(pairs.values()))) if pairs else None
    return PairwiseKappa(pairs, shared, mean, covered, len(workers), weights)


def krippendorff_alpha(labels: Iterable[Triple], level: str = "nominal") -> AgreementResult:
    """Krippendorff's alpha (the ``krippendorff`` package) for unbalanced designs: any number of
    ratings per item, missing ones allowed. ``level``: nominal, ordinal, interval or ratio; for
    ordinal and above the labels must be numbers.

    Alpha depends only on how often each value occurs within each item, so the package is given
    an items × values count table rather than an assessors × items matrix: memory grows with the
    items, not with items × assessors.
    """
    items = group_by_item(labels)
    workers = {worker for ratings in items.values() for worker, _ in ratings}
    domain = sorted({label for ratings in items.values() for _, label in ratings}, key=label_order)
    column = {label: index for index, label in enumerate(domain)}
    counts = np.zeros((len(items), len(domain)))
    for row, ratings in enumerate(items.values()):
        for _, label in ratings:
            counts[row, column[label]] += 1
    pairable_rows = counts.sum(axis=1) >= 2
    pairable = int(pairable_rows.sum())
    if pairable == 0 or np.count_nonzero(counts[pairable_rows].sum(axis=0)) < 2:
        # Undefined (0/0) when the pairable ratings show no variation at all.
        return AgreementResult(None, pairable, len(workers), len(items) - pairable)
    value_domain = list(range(len(domain))) if level == "nominal" else [float(v) for v in domain]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        value = float(
            krippendorff.alpha(value_counts=counts, value_domain=value_domain, level_of_measurement=level)
        )
    return AgreementResult(
        None if math.isnan(value) else value, pairable, len(workers), len(items) - pairable
    )


def label_order(label: Hashable) -> tuple:
    # Numbers in numeric order, anything else after them in string order.
    return (0, label, "") if isinstance(label, int | float) else (1, 0, str(label))
