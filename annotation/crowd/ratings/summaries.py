"""Rating summaries: per item and dimension of a Likert project, the mean, median, spread and count of its
ratings, inside the scale (a Likert answer's label is a ``{dimension: score}`` dict)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class RatingSummary:
    """Ratings of one item on one dimension: centre, dispersion, and a confidence in [0, 1].

    ``std``: population standard deviation (ddof 0); ``iqr``: Q3 − Q1 with linearly interpolated
    quartiles (NumPy's default); ``mad``: median absolute deviation from the median, unscaled
    (``scipy.stats.median_abs_deviation``'s default); ``confidence``: 1 − std / std_max, where
    std_max = (high − low) / 2 is the largest standard deviation ratings on the scale can have
    (half at each end, Popoviciu's inequality): unanimous ratings give 1, a split between the
    two ends 0. One rating gives 1 too; ``n`` says how many there were.
    """

    mean: float
    median: float
    std: float
    iqr: float
    n: int
    confidence: float
    mad: float


@dataclass(frozen=True)
class LikertSummary:
    """One item's ratings: a ``RatingSummary`` per dimension and the item's confidence, the mean
    of its dimensions' confidences."""

    dimensions: dict[str, RatingSummary]
    confidence: float
    n: int


def _check_scale(scale: Sequence[float]) -> tuple[float, float]:
    low, high = (float(value) for value in scale)
    if high <= low:
        raise ValueError(f"scale must be (low, high) with low < high, got {tuple(scale)}")
    return low, high


def _summaries(frame: pd.DataFrame, scale: tuple[float, float]) -> pd.DataFrame:  # ratings need pandas
    """Per (item, dimension) group of ``frame`` (columns item, dimension, value): every figure."""
    low, high = scale
    grouped = frame.groupby(["item", "dimension"], sort=False)["value"]
    table = grouped.agg(["mean", "median", "count"])
    table["std"] = grouped.std(ddof=0)
    quartiles = grouped.quantile([0.25, 0.75]).unstack()
    table["iqr"] = quartiles[0.75] - quartiles[0.25]
    deviation = (frame["value"] - grouped.transform("median")).abs()
    table["mad"] = deviation.groupby([frame["item"], frame["dimension"]], sort=False).median()
    table["confidence"] = (1 - table["std"] / ((high - low) / 2)).clip(0.0, 1.0)
    return table


def _rating_frame(
    rows: Iterable[tuple[Hashable, Hashable, float]], scale: tuple[float, float]
) -> pd.DataFrame:
    import pandas as pd  # only ratings need it; labels are counted with NumPy

    frame = pd.DataFrame(list(rows), columns=["item", "dimension", "value"])
    if frame.empty:
        return frame
    try:
        frame["value"] = frame["value"].astype(float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"ratings must be numbers: {error}") from error
    low, high = scale
    outside = frame[(frame["value"] < low) | (frame["value"] > high)]
    if len(outside):
        item, dimension, value = outside.iloc[0]
        where = f"item {item!r}" + (f", dimension {dimension!r}" if dimension is not None else "")
        raise ValueError(f"rating {value} of {where} is outside the scale {low:g}–{high:g}")
    return frame


def _summary(row) -> RatingSummary:
    return RatingSummary(
        float(row.mean),
        float(row.median),
        float(row.std),
        float(row.iqr),
        int(row.count),
        float(row.confidence),
        float(row.mad),
    )


def summarise_likert(
    judgements: Iterable[tuple[Hashable, Hashable, Mapping[str, float]]],
    scale: tuple[float, float] = (1, 5),
) -> dict[Hashable, LikertSummary]:
    """Likert answers (item, annotator, {dimension: score}) summarised per item and dimension.

    Every dimension is summarised over the answers that scored it (``RatingSummary``); the item's
    confidence is the mean over its dimensions.
    """
    bounds = _check_scale(scale)
    rows: list[tuple[Hashable, Hashable, float]] = []
    for item, annotator, scores in judgements:
        if not isinstance(scores, Mapping):
            raise ValueError(
                f"item {item!r}, annotator {annotator!r}: expected {{dimension: score}}, got {scores!r}"
            )
        rows.extend((item, dimension, value) for dimension, value in scores.items())
    frame = _rating_frame(rows, bounds)
    if frame.empty:
        return {}
    table = _summaries(frame, bounds)
    per_item: dict[Hashable, dict[str, RatingSummary]] = {}
    for (item, dimension), row in zip(table.index, table.itertuples(), strict=True):
        per_item.setdefault(item, {})[dimension] = _summary(row)
    return {
        item: LikertSummary(
            dimensions,
            float(np.mean([summary.confidence for summary in dimensions.values()])),
            max(summary.n for summary in dimensions.values()),
        )
        for item, dimensions in per_item.items()
    }
