"""Plots of an evaluation and of a project's snapshots: read the stored scores, runs and agreement
figures → shape them with ``evaluation.metrics.plot_data`` → draw with ``evaluation.metrics.plotting``.

Nothing here computes a measure: the P-R curve and per-topic scores are the evaluation's stored
trec_eval values, ROC/DET and Q-Q are the metric module's curves over stored data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db.models.fields.json import KeyTextTransform, KeyTransform

from annotation.models import Project
from evaluation.collection.runs import stored_run
from evaluation.metrics import curves, plot_data, plotting
from evaluation.metrics.natural_order import natural_sorted
from evaluation.metrics.trec.names import measure_name_or_as_given
from evaluation.models import Evaluation, RunScore

EVALUATION_KINDS = ("pr", "per-topic", "qq", "roc", "det")
DEFAULT_MEASURE = "map"
# Agreement figures a snapshot stores (evaluation.ground_truth.compute.agreement_figures), as plotted.
KAPPA_SERIES = (("Fleiss' kappa", "fleiss_kappa"), ("Mean Cohen's kappa", "cohen_kappa_mean"))


class BadParameter(ValueError):
    """A query parameter the plot cannot use; the message starts with the parameter's name."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name}: {problem}")
        self.name = name


class NothingToPlot(Exception):
    """The data exist but do not make this plot (no run scored, no judged relevant document …)."""


@dataclass(frozen=True)
class Plotted:
    """What a plot of an evaluation shows, before it is drawn (``figure_of``) or given as data
    (``data_of``): the kind and its values (see ``evaluation_plot``), and the axes' titles."""

    kind: str
    values: Any
    x_label: str = ""
    y_label: str = ""
    measure: str | None = None


def evaluation_plot(evaluation: Evaluation, kind: str, query: Mapping[str, str]) -> Plotted:
    """The values of the plot of ``kind`` (one of ``EVALUATION_KINDS``) for a finished evaluation;
    parameters from ``query``: ``measure`` (per-topic, qq; default map; nDCG@10 read as ndcg_cut_10),
    ``a``, ``b`` and ``against`` (qq: run ids; ``QQ_AGAINST``), ``run`` (roc, det: one run id;
    default every run)."""
    if kind == "pr":
        return Plotted(kind, precision_recall_data(evaluation), "Recall", "Interpolated precision")
    if kind == "per-topic":
        measure = measure_name_or_as_given(query.get("measure", DEFAULT_MEASURE))
        return Plotted(kind, per_topic_data(evaluation, measure), "Topic", measure, measure)
    if kind == "qq":
        measure = measure_name_or_as_given(query.get("measure", DEFAULT_MEASURE))
        against = query.get("against", "differences")
        if against not in QQ_AGAINST:
            raise BadParameter("against", f"must be one of {', '.join(QQ_AGAINST)}")
        first = run_parameter(query, "a", required=True)
        assert first is not None  # required: an absent one is a BadParameter
        if against == "normal":
            ((tag, values),) = topic_values(evaluation, [first], measure)
            points = curves.qq_against_distribution(at_least_three(values))
            return Plotted(
                kind, points, "Normal quantiles (fitted)", f"{measure} of {tag}, per topic", measure
            )
        second = run_parameter(query, "b", required=True)
        assert second is not None
        if against == "run":
            (tag_a, a), (tag_b, b) = topic_values(evaluation, [first, second], measure)
            points = curves.qq_two_samples(at_least_three(a), at_least_three(b))
            return Plotted(kind, points, f"{measure} of {tag_b}", f"{measure} of {tag_a}", measure)
        points, names = difference_quantiles(evaluation, first, second, measure)
        label = f"{measure}: {names[0]} − {names[1]}, per topic"
        return Plotted(kind, points, "Normal quantiles (fitted)", label, measure)
    if kind in ("roc", "det"):
        # Per topic, averaged (see curves.topic_averaged_roc and the README's "ROC and DET").
        data = relevance_scores(evaluation, run_parameter(query, "run", required=False))
        averaged = {name: curves.topic_averaged_roc(by_topic.values()) for name, by_topic in data.items()}
        if kind == "roc":
            return Plotted(kind, averaged, "False positive rate", "True positive rate")
        detected = {name: curves.averaged_det_curve(c) for name, c in averaged.items()}
        return Plotted(kind, detected, "False alarm rate", "Miss rate")
    raise BadParameter("kind", f"unknown plot {kind!r}; known: {', '.join(EVALUATION_KINDS)}")


def evaluation_figure(evaluation: Evaluation, kind: str, query: Mapping[str, str]):
    """The figure of ``evaluation_plot``."""
    return figure_of(evaluation_plot(evaluation, kind, query))


def figure_of(plotted: Plotted):
    if plotted.kind == "pr":
        return plotting.precision_recall_figure(plotted.values)
    if plotted.kind == "per-topic":
        return plotting.per_topic_figure(plotted.values, plotted.measure or DEFAULT_MEASURE)
    if plotted.kind == "qq":
        return plotting.qq_figure(plotted.values, plotted.x_label, plotted.y_label)
    if plotted.kind == "roc":
        return plotting.roc_figure(plotted.values)
    return plotting.det_figure(plotted.values)


def _floats(values) -> list[float | None]:
    # JSON has no infinity: a DET curve's deviates at rate 0 or 1 are infinite.
    return [float(v) if np.isfinite(v) else None for v in np.asarray(values, dtype=float)]


def data_of(plotted: Plotted) -> dict:
    """The plot's values as JSON-ready data (the API's twin of the figure)."""
    data: dict[str, Any] = {"kind": plotted.kind, "x_label": plotted.x_label, "y_label": plotted.y_label}
    if plotted.measure:
        data["measure"] = plotted.measure
    if plotted.kind == "pr":
        data["runs"] = {
            tag: {"recall": _floats(x), "precision": _floats(y)} for tag, (x, y) in plotted.values.items()
        }
    elif plotted.kind == "per-topic":
        data["runs"] = {tag: dict(natural_items(values)) for tag, values in plotted.values.items()}
    elif plotted.kind == "qq":
        data["points"] = {"x": _floats(plotted.values.x), "y": _floats(plotted.values.y)}
    elif plotted.kind == "roc":
        data["runs"] = {
            tag: {
                "false_positive_rate": _floats(c.false_positive_rate),
                "true_positive_rate": _floats(c.true_positive_rate),
                "auc": float(c.auc),
                "topics": c.topics,
            }
            for tag, c in plotted.values.items()
        }
    else:
        data["runs"] = {
            tag: {
                "false_alarm_rate": _floats(c.false_alarm_rate),
                "miss_rate": _floats(c.miss_rate),
                "false_alarm_deviate": _floats(c.false_alarm_deviate),
                "miss_deviate": _floats(c.miss_deviate),
            }
            for tag, c in plotted.values.items()
        }
    return data


def natural_items(values: Mapping[str, float]) -> list[tuple[str, float]]:
    return [(topic, values[topic]) for topic in natural_sorted(values)]


def run_parameter(query: Mapping[str, str], name: str, *, required: bool) -> int | None:
    text = query.get(name)
    if text is None:
        if required:
            raise BadParameter(name, "required: a run id")
        return None
    try:
        return int(text)
    except ValueError:
        raise BadParameter(name, f"must be a run id (a whole number), got {text!r}") from None


def scores_of(evaluation: Evaluation):
    return RunScore.objects.filter(evaluation=evaluation).order_by("run__tag", "run_id")


def precision_recall_data(evaluation: Evaluation) -> dict[str, tuple[list[float], list[float]]]:
    """Per run (by tag), the stored mean interpolated precision at trec_eval's recall points
    (``iprec_at_recall_*``, trec_eval 10.0's rounding of the cut-offs)."""
    rows = scores_of(evaluation).values_list("run__tag", "overall")
    data = {tag: plot_data.interpolated_precision_points(overall) for tag, overall in rows}
    if not data:
        raise NothingToPlot("no run was scored in this evaluation")
    return data


def per_topic_data(evaluation: Evaluation, measure: str) -> dict[str, dict[str, float]]:
    """``{run tag: {topic: value}}`` of one stored measure (only that measure's column is read)."""
    rows = list(
        scores_of(evaluation)
        .annotate(column=KeyTransform(measure, "per_topic"))
        .values_list("run__tag", "column")
    )
    if not rows:
        raise NothingToPlot("no run was scored in this evaluation")
    data = {tag: column for tag, column in rows if isinstance(column, dict)}
    if not data:
        raise BadParameter(
            "measure", f"no per-topic values of {measure!r} (e.g. map, P_10, ndcg, recip_rank)"
        )
    if any(isinstance(value, str) for column in data.values() for value in column.values()):
        raise BadParameter("measure", f"{measure!r} is a string per topic, not a score")
    return data


# What a Q-Q plot sets against what: the per-topic differences of runs a and b against the normal,
# run a's per-topic values against run b's (two samples' quantiles), or run a's against the normal.
QQ_AGAINST = ("differences", "run", "normal")


def at_least_three(values: list[float]) -> list[float]:
    if len(values) < 3:
        raise NothingToPlot(f"{len(values)} topics: a Q-Q plot needs at least 3")
    return values


def topic_values(evaluation: Evaluation, run_ids: list[int], measure: str) -> list[tuple[str, list[float]]]:
    """Each run's tag and per-topic values of ``measure`` (topics in natural order), in ``run_ids``'
    order; ``a`` then ``b`` named in the error for a run the evaluation did not score."""
    if len(set(run_ids)) != len(run_ids):
        raise BadParameter("b", "must be another run than a")
    rows = (
        scores_of(evaluation)
        .filter(run_id__in=run_ids)
        .annotate(column=KeyTransform(measure, "per_topic"))
        .values_list("run_id", "run__tag", "column")
    )
    found = {run_id: (tag, column) for run_id, tag, column in rows}
    result = []
    for name, run_id in zip("ab", run_ids, strict=False):
        if run_id not in found:
            raise BadParameter(name, f"run {run_id} is not scored in this evaluation")
        tag, column = found[run_id]
        if not isinstance(column, dict):
            raise BadParameter("measure", f"no per-topic values of {measure!r} (e.g. map, P_10, ndcg)")
        result.append((tag, [float(column[topic]) for topic in natural_sorted(column)]))
    return result


def difference_quantiles(
    evaluation: Evaluation, first: int, second: int, measure: str
) -> tuple[curves.QQPoints, tuple[str, str]]:
    """Normal Q-Q points (``qq_against_distribution``, fitted) of the per-topic differences
    ``first − second`` on ``measure``, and the two runs' tags."""
    if first == second:
        raise BadParameter("b", "must be another run than a")
    rows = (
        scores_of(evaluation)
        .filter(run_id__in=[first, second])
        .annotate(column=KeyTransform(measure, "per_topic"))
        .values_list("run_id", "run__tag", "column")
    )
    tags = {run_id: tag for run_id, tag, _ in rows}
    columns = {run_id: column for run_id, _, column in rows}
    for name, run_id in (("a", first), ("b", second)):
        if run_id not in tags:
            raise BadParameter(name, f"run {run_id} is not scored in this evaluation")
    if not all(isinstance(columns[run_id], dict) for run_id in (first, second)):
        raise BadParameter("measure", f"no per-topic values of {measure!r} (e.g. map, P_10, ndcg)")
    _, differences = plot_data.topic_differences(columns[first], columns[second])
    if len(differences) < 3:
        raise NothingToPlot(f"{len(differences)} topics: a Q-Q plot needs at least 3")
    return curves.qq_against_distribution(differences), (tags[first], tags[second])


def relevance_scores(
    evaluation: Evaluation, run_id: int | None
) -> dict[str, dict[str, tuple[list[float], list[int]]]]:
    """Per run (one when ``run_id`` is given, else every scored run with a topic that has both
    classes), per topic, the scores of its retrieved documents that the evaluation's qrels judge,
    with binary labels (qrels value ≥ the evaluation's relevance level)."""
    from evaluation.scoring.compute import ground_truth_qrels

    runs = dict(scores_of(evaluation).values_list("run_id", "run__tag"))
    if run_id is not None and run_id not in runs:
        raise BadParameter("run", f"run {run_id} is not scored in this evaluation")
    wanted = [run_id] if run_id is not None else list(runs)
    qrels = ground_truth_qrels(evaluation)
    data = {}
    for pk in wanted:
        by_topic = plot_data.judged_scores_by_topic(qrels, stored_run(pk), evaluation.relevance_level)
        if plot_data.topics_with_both_classes(by_topic):
            data[runs[pk]] = by_topic
        elif run_id is not None:
            raise NothingToPlot(
                f"run {runs[pk]} retrieved no topic's relevant and non-relevant judged documents both: "
                "ROC and DET need one of each, per topic"
            )
    if not data:
        raise NothingToPlot("no run retrieved both relevant and non-relevant judged documents for a topic")
    return data


def kappa_figure(project: Project):
    """Fleiss' and mean Cohen's kappa of every snapshot of the project, oldest first, with their
    bootstrap intervals where the snapshot stored them."""
    versions, series = kappa_data(project)
    return plotting.kappa_figure(versions, series)


def kappa_data(project: Project) -> tuple[list[str], dict[str, list[plotting.Estimate]]]:
    """Version labels (``v3`` and the snapshot's date) and, per kappa, its estimate per snapshot.
    Only each snapshot's kappa keys are read, not its whole agreement report."""
    columns = {}
    for _, key in KAPPA_SERIES:
        interval = KeyTransform(f"{key}_ci", "agreement")
        columns[key] = KeyTransform(key, "agreement")
        columns[f"{key}_low"] = KeyTextTransform("low", interval)
        columns[f"{key}_high"] = KeyTextTransform("high", interval)
    names = ["version", "created_at", *columns]
    rows = [
        dict(zip(names, values, strict=True))
        for values in project.snapshots.order_by("version").annotate(**columns).values_list(*names)
    ]
    series = {}
    for name, key in KAPPA_SERIES:
        estimates = [
            plotting.Estimate(number(row[key]), number(row[f"{key}_low"]), number(row[f"{key}_high"]))
            for row in rows
        ]
        if any(estimate.value is not None for estimate in estimates):
            series[name] = estimates
    if not series:
        raise NothingToPlot(
            "no snapshot of this project has a kappa (a rating project's agreement is per dimension)"
        )
    versions = [f"v{row['version']}\n{row['created_at']:%Y-%m-%d}" for row in rows]
    return versions, series


def number(value) -> float | None:
    """A JSON value read back as a float (KeyTextTransform gives text), None when absent or null."""
    if value is None or value == "null":
        return None
    return float(value)
