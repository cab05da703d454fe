"""The meta-evaluation of a text project: how far each automatic metric agrees with each human
dimension, from a done text evaluation (the metrics per output) and the newest ground-truth snapshot
(each output's mean rating per dimension). The numbers are ``metrics.meta_evaluation``'s; this
module only reads them out of the database.

Every figure is oriented so that higher means "agrees better with the raters", for every metric:
TER and WER are error rates (lower is better), so their correlations, ranking accuracies and
Williams' tests are those of −TER and −WER (``negated`` names them). A heat map then reads the same
on every row (brighter = closer to the people), where raw correlations made the worst error rate
the brightest cell. The scatter's points keep each output's real score.
"""

from __future__ import annotations

import math
from collections.abc import Collection

from annotation.crowd.minimums import POINTS_FOR_CORRELATION, SYSTEMS_FOR_WILLIAMS
from evaluation.jobs.remembered import remembered as kept
from evaluation.metrics.meta_evaluation import (
    LEVEL_UNITS,
    LEVELS,
    METHODS,
    Record,
    correlations,
    level_correlation,
    paired,
    paired_system_means,
    ranking_accuracy,
    shared_outputs,
    system_means,
    williams_tests,
)
from evaluation.metrics.text.scores import LOWER_IS_BETTER
from evaluation.models import GroundTruthSnapshot, TextEvaluation
from evaluation.pyramid.scores import output_scores


class ReportProblem(ValueError):
    """What is missing for a meta-evaluation (the message says it); ``field`` names the parameter
    at fault, or is empty when the data is not there yet."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def orientation(metric: str, imported_lower: Collection[str] = ()) -> float:
    """−1 for an error rate (lower is better: TER, WER, and imported metrics said to be, listed in
    ``imported_lower``), whose figures are those of its negation; else 1."""
    return -1.0 if metric in LOWER_IS_BETTER or metric in imported_lower else 1.0


def oriented_records(metric: str, rows: list[Record], imported_lower: Collection[str] = ()) -> list[Record]:
    """The metric's records as "higher is better": an error rate's scores negated."""
    if orientation(metric, imported_lower) > 0:
        return rows
    return [(system, input_id, -score) for system, input_id, score in rows]


def metric_records(evaluation: TextEvaluation) -> dict[str, list[Record]]:
    """Each computed metric's (system, input, score) of every output, as stored (TER and WER raw)."""
    records: dict[str, list[Record]] = {metric: [] for metric in evaluation.metrics}
    for system, input_id, scores in evaluation.outputs.values_list("system_id", "input_id", "scores"):
        for metric in evaluation.metrics:
            records[metric].append((system, input_id, scores[metric]))
    return records


def human_records(snapshot: GroundTruthSnapshot) -> dict[str, list[Record]]:
    summary = output_scores(snapshot)
    records: dict[str, list[Record]] = {dimension: [] for dimension in summary["dimensions"]}
    for item in summary["items"]:
        if not (item["system"] and item["input"]):
            continue
        for dimension, figures in item["scores"].items():
            records[dimension].append((item["system"], item["input"], figures["mean"]))
    return records


def newest_snapshot(evaluation: TextEvaluation) -> GroundTruthSnapshot:
    """The snapshot a report on this done evaluation reads; ReportProblem if there is none yet."""
    if evaluation.status != TextEvaluation.Status.DONE:
        raise ReportProblem(f"the text evaluation is {evaluation.status}; the report exists once it is done")
    snapshot = evaluation.project.snapshots.order_by("-version").first()
    if snapshot is None or not evaluation.project.type.scores_outputs:
        raise ReportProblem(
            "no human scores yet: a meta-evaluation needs a rating or Pyramid project's ground-truth snapshot"
        )
    return snapshot


def report_inputs(
    evaluation: TextEvaluation, snapshot: GroundTruthSnapshot
) -> tuple[dict[str, list[Record]], dict[str, list[Record]]]:
    humans = {d: r for d, r in human_records(snapshot).items() if r}
    if not humans:
        raise ReportProblem("no rated output names its system and input")
    return metric_records(evaluation), humans


# Part of every key: raise it when a report's contents change, so no older one is served.
# 2: the minimums' reasons (a correlation on too few points, Williams' test on too few systems).
# 3: error rates' figures negated (see the module's docstring).
# 4: accuracy, the system-level scatter and Williams' test over the outputs both sides score; ties kept.
REPORT_VERSION = 4


def remembered(evaluation: TextEvaluation, snapshot: GroundTruthSnapshot, kind: str, compute, *params):
    """A report of a done evaluation against a snapshot (neither ever rewritten), from the cache."""
    # The metrics are part of the key: an imported metric's scores join a done evaluation.
    made = (evaluation.pk, evaluation.created_at, tuple(evaluation.metrics), snapshot.pk, snapshot.created_at)
    return kept(f"meta-report:v{REPORT_VERSION}:{kind}", [*made, *params], compute)


def correlation_matrix(evaluation: TextEvaluation, level: str = "system", method: str = "kendall") -> dict:
    """``{"metrics", "negated", "dimensions", "cells": {metric: {dimension: {"value", "n", "reason",
    "accuracy", "accuracy_reason"}}}, "snapshot", "reasons"}``: the correlation at ``level`` by
    ``method`` of every metric with every dimension (no interval: ``scatter`` gives one pair's), and
    each pair's pairwise system-ranking accuracy; for the metrics in ``negated`` (TER and WER: lower
    is better) both are those of the negated metric, so higher means closer agreement on every row.
    Below its minimum a value is None and its reason says why; ``reasons`` lists them once each, for
    the page."""
    if level not in LEVELS or method not in METHODS:
        field = "level" if level not in LEVELS else "method"
        raise ReportProblem(
            f"must be one of {', '.join(LEVELS if field == 'level' else METHODS)}", field=field
        )
    snapshot = newest_snapshot(evaluation)
    return remembered(
        evaluation, snapshot, "matrix", lambda: _matrix(evaluation, snapshot, level, method), level, method
    )


def _matrix(evaluation: TextEvaluation, snapshot: GroundTruthSnapshot, level: str, method: str) -> dict:
    metrics, humans = report_inputs(evaluation, snapshot)
    cells: dict[str, dict[str, dict]] = {}
    for metric, raw_rows in metrics.items():
        metric_rows = oriented_records(metric, raw_rows, evaluation.lower_is_better)
        for dimension, human_rows in humans.items():
            pairs = paired(metric_rows, human_rows)
            size = _size(pairs, level)
            reason = POINTS_FOR_CORRELATION.reason(size, LEVEL_UNITS[level])
            value = level_correlation(pairs, level, method) if reason is None else math.nan
            # Over the outputs both sides score, as the correlation beside it.
            accuracy, accuracy_reason = ranking_accuracy(*paired_system_means(metric_rows, human_rows))
            cells.setdefault(metric, {})[dimension] = {
                "value": finite(value),
                "n": size,
                "reason": reason,
                "accuracy": accuracy,
                "accuracy_reason": accuracy_reason,
            }
    reasons = {
        cell[key] for row in cells.values() for cell in row.values() for key in ("reason", "accuracy_reason")
    }
    return {
        "level": level,
        "method": method,
        "metrics": list(metrics),
        "negated": [metric for metric in metrics if orientation(metric, evaluation.lower_is_better) < 0],
        "dimensions": list(humans),
        "cells": cells,
        "reasons": sorted(reason for reason in reasons if reason),
        "snapshot": snapshot.version,
        "signatures": evaluation.signatures,
    }


# Bootstrap resamples of the inputs for one pair's intervals: enough for a 95% percentile interval
# to two decimals, and fast enough for a page (every level × method, 100 inputs: a few seconds).
SCATTER_RESAMPLES = 200


def scatter(
    evaluation: TextEvaluation,
    metric: str,
    dimension: str,
    level: str = "system",
    resamples: int = SCATTER_RESAMPLES,
) -> dict:
    """One metric against one dimension: the points at ``level`` (per system: the means; otherwise
    every output; the metric's real scores), every method's correlation at every level with a
    bootstrap interval over inputs, and Williams' test of this metric against each other one on
    this dimension (system level). ``negated``: the correlations and tests are of the negated
    metric (TER and WER, lower is better), as in ``correlation_matrix``."""
    snapshot = newest_snapshot(evaluation)
    return remembered(
        evaluation,
        snapshot,
        "scatter",
        lambda: _scatter(evaluation, snapshot, metric, dimension, level, resamples),
        metric,
        dimension,
        level,
        resamples,
    )


def _scatter(
    evaluation: TextEvaluation,
    snapshot: GroundTruthSnapshot,
    metric: str,
    dimension: str,
    level: str,
    resamples: int,
) -> dict:
    metrics, humans = report_inputs(evaluation, snapshot)
    if metric not in metrics:
        raise ReportProblem(f"choose a metric this evaluation computed: {', '.join(metrics)}", field="metric")
    if dimension not in humans:
        raise ReportProblem(f"choose a dimension of {', '.join(humans)}", field="dimension")
    pairs = paired(metrics[metric], humans[dimension])
    if level == "system":
        metric_means, human_means = paired_system_means(metrics[metric], humans[dimension])
        points = [
            {"label": s, "x": metric_means[s], "y": human_means[s]}
            for s in sorted(set(metric_means) & set(human_means))
        ]
    else:
        points = [{"label": f"{s} / {i}", "x": m, "y": h} for (s, i), (m, h) in sorted(pairs.items())]
    lower = evaluation.lower_is_better
    found = correlations(
        oriented_records(metric, metrics[metric], lower), humans[dimension], resamples=resamples
    )
    # Williams' test compares the metrics on the outputs that the humans and every metric score.
    human_rows, metric_rows = shared_outputs(
        humans[dimension], {name: oriented_records(name, rows, lower) for name, rows in metrics.items()}
    )
    signed = {name: system_means(rows) for name, rows in metric_rows.items()}
    williams = williams_tests(metric, signed, system_means(human_rows), SYSTEMS_FOR_WILLIAMS)
    return {
        "metric": metric,
        "negated": orientation(metric, evaluation.lower_is_better) < 0,
        "dimension": dimension,
        "level": level,
        "points": points,
        "correlations": [{k: finite(v) for k, v in vars(c).items()} for c in found],
        "williams": [{k: finite(v) for k, v in test.items()} for test in williams.tests],
        "williams_systems": williams.systems,
        "williams_reason": williams.reason,
        "snapshot": snapshot.version,
        "signature": evaluation.signatures.get(metric, ""),
    }


def finite(value):
    """NaN (a constant side, too few points) as None: JSON has no NaN."""
    return None if isinstance(value, float) and math.isnan(value) else value


def _size(pairs: dict, level: str) -> int:
    if level == "global":
        return len(pairs)
    if level == "system":
        return len({system for system, _ in pairs})
    return len({input_id for _, input_id in pairs})
