"""Inter-assessor agreement. The kappas are statsmodels' (``statsmodels.stats.inter_rater``).

Every result says how many items and assessors it rests on.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np
from statsmodels.stats.inter_rater import aggregate_raters
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
    categories = sorted({label for ratings in kept for _, label in ratings}, key=repr)
    code = {label: index for index, label in enumerate(categories)}
    coded = np.array([[code[label] for _, label in ratings] for ratings in kept])
    table, _ = aggregate_raters(coded, n_cat=len(categories))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 when every rating is one label
        value = float(statsmodels_fleiss_kappa(table, method="fleiss"))
    return AgreementResult(
        None if math.isnan(value) else value, len(kept), len(workers), len(items) - len(kept)
    )
