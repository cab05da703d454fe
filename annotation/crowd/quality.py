"""Annotator quality and rating summaries: pure functions over crowd judgements.

Judgements come as (item, annotator, label) triples, a DataFrame, or an ``Encoded``
(``encoding.encode``; given one, nothing is encoded again), except Likert answers, whose label is
a ``{dimension: score}`` dict. Also the per-annotator tables of a snapshot's report: confusion
matrices and agreement with the aggregate, and which annotators the pairwise heat map shows.
"""

from __future__ import annotations

import statistics
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from annotation.crowd.aggregation import AggregationResult, Labels
from annotation.crowd.encoding import Encoded, as_encoded


@dataclass(frozen=True)
class AnnotatorQuality:
    annotator: Hashable
    n_labels: int
    gold_answered: int
    gold_accuracy: float | None
    agreement_with_aggregate: float
    reliability: float | None
    median_seconds: float | None
    flagged: bool


def _aggregate_codes(data: Encoded, aggregate: AggregationResult) -> np.ndarray:
    """Per item of ``data``, the class code of its aggregate label; −1 if it has none (or a label
    no judgement used, which no judgement can then agree with: −2)."""
    code = {label: index for index, label in enumerate(data.classes)}
    return np.array(
        [code.get(aggregate.labels[item], -2) if item in aggregate.labels else -1 for item in data.items],
        dtype=np.int64,
    )


def agreement_with_aggregate(labels: Labels, aggregate: AggregationResult) -> list[dict]:
    """Per annotator, how well their labels match the aggregate ones (JSON-friendly rows).

    Each row: ``annotator``; ``n_labels``, their labels on items that have an aggregate label;
    ``agreed``, how many equal it; ``agreement`` = agreed / n_labels (None without any); ``kappa``,
    Cohen's kappa between the annotator and the aggregate over those items (None where undefined,
    e.g. both used one label throughout). Rows follow the annotators' first appearance.
    """
    data = as_encoded(labels)
    n_annotators, n_classes = len(data.annotators), len(data.classes)
    truth = _aggregate_codes(data, aggregate)[data.item_index]
    compared = truth != -1
    annotators = data.annotator_index[compared]
    given, expected = data.label_index[compared], truth[compared]
    n_labels = np.bincount(annotators, minlength=n_annotators)
    agreed = np.bincount(annotators[given == expected], minlength=n_annotators)
    given_margin = np.bincount(annotators * n_classes + given, minlength=n_annotators * n_classes)
    known = expected >= 0
    aggregate_margin = np.bincount(
        annotators[known] * n_classes + expected[known], minlength=n_annotators * n_classes
    )
    chance_agreements = (
        given_margin.reshape(n_annotators, n_classes) * aggregate_margin.reshape(n_annotators, n_classes)
    ).sum(axis=1)
    rows = []
    for index, annotator in enumerate(data.annotators):
        n = int(n_labels[index])
        chance = chance_agreements[index] / n**2 if n else 1.0
        kappa = (agreed[index] / n - chance) / (1 - chance) if n and chance < 1 else None
        rows.append(
            {
                "annotator": annotator,
                "n_labels": n,
                "agreed": int(agreed[index]),
                "agreement": float(agreed[index] / n) if n else None,
                "kappa": None if kappa is None else float(kappa),
            }
        )
    return rows


def confusion_against_aggregate(
    labels: Labels, aggregate: Mapping[Hashable, Hashable], classes: Sequence[Hashable]
) -> dict[Hashable, list[list[int]]]:
    """Each annotator's labels against the aggregate label of the same items.

    ``labels`` are the judgements (triples or an ``Encoded``); ``aggregate`` maps an item to its
    aggregate label; ``classes`` fixes the order of rows and columns. Entry ``[i][j]`` counts the
    annotator's items whose aggregate label is ``classes[i]`` and whose own label is ``classes[j]``
    — the layout of scikit-learn's ``confusion_matrix(y_true=aggregate, y_pred=annotator,
    labels=classes)`` and of Dawid & Skene's (1979) confusion matrices (row: true class, column:
    label given). Items without an aggregate label, and labels outside ``classes``, are not
    counted. Keys follow the annotators' first appearance.
    """
    data = as_encoded(labels)
    if len(data) == 0:
        return {}
    position = {label: index for index, label in enumerate(classes)}
    given = np.array([position.get(label, -1) for label in data.classes], dtype=np.int64)[data.label_index]
    truth = np.array(
        [position.get(aggregate[item], -1) if item in aggregate else -1 for item in data.items],
        dtype=np.int64,
    )[data.item_index]
    keep = (truth >= 0) & (given >= 0)
    n = len(classes)
    cells = data.annotator_index[keep] * n * n + truth[keep] * n + given[keep]
    counts = np.bincount(cells, minlength=len(data.annotators) * n * n).reshape(len(data.annotators), n, n)
    return {annotator: counts[index].tolist() for index, annotator in enumerate(data.annotators)}


def rating_agreement_with_aggregate(
    ratings: Iterable[tuple[Hashable, Hashable, Mapping[str, float]]],
    medians: Mapping[Hashable, Mapping[str, float]],
    tolerance: float,
) -> dict[Hashable, dict]:
    """Likert ratings against each item's median, per annotator.

    ``ratings`` are ``(item, annotator, {dimension: score})``; ``medians`` map an item to its median
    per dimension. An annotator's rating *agrees* when every dimension is within ``tolerance`` of
    the median — the rule gold Likert answers are scored by. Returns ``{annotator: {"agreed",
    "compared", "mean_abs_deviation": {dimension: mean |score − median|}}}``; items with no median
    are skipped.
    """
    totals: dict[Hashable, dict] = {}
    for item, annotator, scores in ratings:
        median = medians.get(item)
        if median is None:
            continue
        row = totals.setdefault(annotator, {"agreed": 0, "compared": 0, "deviation": {}})
        deviations = {dimension: abs(float(scores[dimension]) - float(m)) for dimension, m in median.items()}
        row["compared"] += 1
        row["agreed"] += all(d <= tolerance for d in deviations.values())
        for dimension, d in deviations.items():
            row["deviation"][dimension] = row["deviation"].get(dimension, 0.0) + d
    return {
        annotator: {
            "agreed": row["agreed"],
            "compared": row["compared"],
            "mean_abs_deviation": {d: total / row["compared"] for d, total in row["deviation"].items()},
        }
        for annotator, row in totals.items()
    }


def busiest(counts: Mapping[Hashable, int], limit: int) -> list[Hashable]:
    """The ``limit`` annotators with the most labels (ties by their text), in that order."""
    return sorted(counts, key=lambda annotator: (-counts[annotator], str(annotator)))[:limit]


def dawid_skene_annotators(result: AggregationResult) -> dict:
    """Dawid–Skene's estimates in a JSON-friendly form, for the agreement page.

    ``{"classes": [...], "priors": [...], "iterations": n, "annotators": [{"annotator",
    "n_labels", "reliability", "confusion"}, ...]}`` where ``confusion[k][l]`` is the estimated
    probability that the annotator answers ``classes[l]`` when the truth is ``classes[k]`` (rows
    sum to 1) and ``reliability`` = Σ_k prior_k · confusion[k][k], their chance of giving the true
    label.
    """
    if result.method != "dawid-skene" or "confusion" not in result.model:
        raise ValueError(f"needs a Dawid-Skene result, not {result.method!r}")
    model = result.model
    priors = model["priors"]
    confusion = model["confusion"]
    reliability = np.diagonal(confusion, axis1=1, axis2=2) @ priors
    return {
        "classes": list(model["classes"]),
        "priors": priors.tolist(),
        "iterations": result.parameters.get("iterations"),
        "annotators": [
            {"annotator": annotator, "n_labels": n, "reliability": float(r), "confusion": matrix}
            for annotator, n, r, matrix in zip(
                model["annotators"],
                model["annotator_labels"].tolist(),
                reliability.tolist(),
                confusion.tolist(),
                strict=True,
            )
        ],
    }


def annotator_quality(
    labels: Labels,
    aggregate: AggregationResult,
    *,
    gold: Mapping[Hashable, Hashable] | None = None,
    seconds: Mapping[tuple[Hashable, Hashable], float] | None = None,
    threshold: float = 0.7,
) -> list[AnnotatorQuality]:
    """One row per annotator, worst first.

    ``flagged`` when gold accuracy is below ``threshold``, or — for an annotator who answered no
    gold — when agreement with the aggregate is. ``reliability`` is Dawid–Skene's estimate when the
    aggregate came from it. ``seconds`` maps (item, annotator) to time spent on that judgement.
    """
    data = as_encoded(labels)
    gold = gold or {}
    seconds = seconds or {}
    reliability = aggregate.parameters.get("annotator_reliability", {})
    n_annotators = len(data.annotators)
    n_labels = np.bincount(data.annotator_index, minlength=n_annotators)
    code = {label: index for index, label in enumerate(data.classes)}
    gold_code = np.array([code.get(gold[item], -2) if item in gold else -1 for item in data.items])
    item_gold = gold_code[data.item_index] if len(data) else np.zeros(0, dtype=np.int64)
    on_gold = item_gold != -1
    answered = np.bincount(data.annotator_index[on_gold], minlength=n_annotators)
    correct = np.bincount(
        data.annotator_index[on_gold & (data.label_index == item_gold)], minlength=n_annotators
    )
    agreement = agreement_with_aggregate(data, aggregate)
    times: dict[Hashable, list[float]] = {}
    for (_, annotator), spent in seconds.items():
        times.setdefault(annotator, []).append(spent)
    rows = []
    for index, annotator in enumerate(data.annotators):
        gold_accuracy = float(correct[index] / answered[index]) if answered[index] else None
        agreed = agreement[index]["agreement"] or 0.0
        judged_by = gold_accuracy if gold_accuracy is not None else agreed
        rows.append(
            AnnotatorQuality(
                annotator,
                int(n_labels[index]),
                int(answered[index]),
                gold_accuracy,
                agreed,
                reliability.get(annotator),
                statistics.median(times[annotator]) if times.get(annotator) else None,
                judged_by < threshold,
            )
        )
    return sorted(
        rows,
        key=lambda row: row.gold_accuracy if row.gold_accuracy is not None else row.agreement_with_aggregate,
    )


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
