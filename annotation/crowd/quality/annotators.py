"""Annotator quality: agreement of each annotator with the aggregate, confusion matrices against it, Dawid-
Skene's per-annotator parameters, and which annotators the pairwise heat map shows. Judgements come as
(item, annotator, label) triples, a DataFrame, or an ``Encoded`` (``annotation.crowd.io.encoding``)."""

from __future__ import annotations

import statistics
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    pass
from annotation.crowd.aggregation.base import AggregationResult
from annotation.crowd.io.encoding import Encoded, Labels, as_encoded


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
