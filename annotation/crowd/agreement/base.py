"""What every agreement figure shares: its result (value, items, annotators) and judgements grouped by
item."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np

from annotation.crowd.io.encoding import Encoded, Triple

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
