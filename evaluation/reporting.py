"""Pure helpers for the agreement report: per-annotator confusion matrices, agreement with the
aggregate, the pairwise-kappa matrix and its colours. No Django import; plain data in and out.

The aggregation and agreement statistics themselves live in ``annotation.crowd``; these functions
only rearrange their inputs and outputs for the report pages and the snapshot's annotator report.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from itertools import pairwise

import numpy as np
import pandas as pd

Triple = tuple[Hashable, Hashable, Hashable]


def confusion_against_aggregate(
    labels: Iterable[Triple], aggregate: Mapping[Hashable, Hashable], classes: Sequence[Hashable]
) -> dict[Hashable, list[list[int]]]:
    """Each annotator's labels against the aggregate label of the same items.

    ``labels`` are ``(item, annotator, label)`` triples; ``aggregate`` maps an item to its aggregate
    label; ``classes`` fixes the order of rows and columns. Entry ``[i][j]`` counts the annotator's
    items whose aggregate label is ``classes[i]`` and whose own label is ``classes[j]`` — the layout
    of scikit-learn's ``confusion_matrix(y_true=aggregate, y_pred=annotator, labels=classes)`` and of
    Dawid & Skene's (1979) confusion matrices (row: true class, column: label given). Items without
    an aggregate label, and labels outside ``classes``, are not counted.
    """
    frame = pd.DataFrame(list(labels), columns=["item", "worker", "label"])
    if frame.empty:
        return {}
    index = {label: position for position, label in enumerate(classes)}
    truth = frame["item"].map(aggregate).map(index)
    given = frame["label"].map(index)
    worker_index, workers = pd.factorize(frame["worker"], sort=False)
    keep = truth.notna().to_numpy() & given.notna().to_numpy()
    n = len(classes)
    cells = (
        worker_index[keep] * n * n
        + truth.to_numpy()[keep].astype(np.int64) * n
        + given.to_numpy()[keep].astype(np.int64)
    )
    counts = np.bincount(cells, minlength=len(workers) * n * n).reshape(len(workers), n, n)
    return {worker: counts[w].tolist() for w, worker in enumerate(workers.tolist())}


def rating_agreement_with_aggregate(
    ratings: Iterable[tuple[Hashable, Hashable, Mapping[str, float]]],
    medians: Mapping[Hashable, Mapping[str, float]],
    tolerance: float,
) -> dict[Hashable, dict]:
    """Likert ratings against each item's median, per annotator.

    ``ratings`` are ``(item, annotator, {dimension: score})``; ``medians`` map an item to its median
    per dimension. An annotator's rating *agrees* when every dimension is within ``tolerance`` of the
    median — the rule gold Likert answers are scored by. Returns ``{annotator: {"agreed", "compared",
    "mean_abs_deviation": {dimension: mean |score − median|}}}``; items with no median are skipped.
    """
    totals: dict[Hashable, dict] = {}
    for item, worker, scores in ratings:
        median = medians.get(item)
        if median is None:
            continue
        row = totals.setdefault(worker, {"agreed": 0, "compared": 0, "deviation": {}})
        deviations = {dimension: abs(float(scores[dimension]) - float(m)) for dimension, m in median.items()}
        row["compared"] += 1
        row["agreed"] += all(d <= tolerance for d in deviations.values())
        for dimension, d in deviations.items():
            row["deviation"][dimension] = row["deviation"].get(dimension, 0.0) + d
    return {
        worker: {
            "agreed": row["agreed"],
            "compared": row["compared"],
            "mean_abs_deviation": {d: total / row["compared"] for d, total in row["deviation"].items()},
        }
        for worker, row in totals.items()
    }


def busiest(counts: Mapping[Hashable, int], limit: int) -> list[Hashable]:
    """The ``limit`` annotators with the most labels (ties by their text), in that order."""
    return sorted(counts, key=lambda worker: (-counts[worker], str(worker)))[:limit]


# Viridis (van der Walt & Smith, matplotlib's default colour map): perceptually uniform, readable
# with the common colour-vision deficiencies and in grey scale; luminance rises from end to end.
_VIRIDIS = [  # sampled at sixteenths from matplotlib's table (CC0)
    (0.0, (68, 1, 84)),
    (0.0625, (72, 24, 106)),
    (0.125, (71, 45, 123)),
    (0.1875, (66, 64, 134)),
    (0.25, (59, 82, 139)),
    (0.3125, (51, 99, 141)),
    (0.375, (44, 114, 142)),
    (0.4375, (38, 130, 142)),
    (0.5, (33, 145, 140)),
    (0.5625, (31, 160, 136)),
    (0.625, (40, 174, 128)),
    (0.6875, (63, 188, 115)),
    (0.75, (94, 201, 98)),
    (0.8125, (132, 212, 75)),
    (0.875, (173, 220, 48)),
    (0.9375, (216, 226, 25)),
    (1.0, (253, 231, 37)),
]


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour given as 0–255 channels."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(first: tuple[int, int, int], second: tuple[int, int, int]) -> float:
    """WCAG 2.1 contrast ratio, from 1 (none) to 21 (black on white)."""
    light, dark = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def heat_colours(value: float | None, low: float = -1.0, high: float = 1.0) -> tuple[str, str]:
    """Background and text colour (``#rrggbb``) of a heat-map cell holding ``value``.

    The background follows viridis from ``low`` (dark) to ``high`` (light); values outside are
    clipped; None (no value) is light grey. The text is black or white, whichever contrasts more,
    so the number printed in every cell stays readable (WCAG AA, at least 4.5:1).
    """
    if value is None:
        background = (238, 238, 238)
    else:
        share = min(max((float(value) - low) / (high - low), 0.0), 1.0)
        for (start, left), (end, right) in pairwise(_VIRIDIS):
            if share <= end:
                t = (share - start) / (end - start)
                background = tuple(round(a + (b - a) * t) for a, b in zip(left, right, strict=True))
                break
    black, white = (0, 0, 0), (255, 255, 255)
    text = black if contrast_ratio(background, black) >= contrast_ratio(background, white) else white
    return "#{:02x}{:02x}{:02x}".format(*background), "#{:02x}{:02x}{:02x}".format(*text)
