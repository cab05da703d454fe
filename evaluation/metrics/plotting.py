"""Render curve data as PNG or SVG bytes with matplotlib (Agg: no display needed)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from .curves import DetCurve, QQPoints, RocCurve

FORMATS = ("png", "svg")
DET_TICKS = [0.001, 0.01, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 0.99]


def _render(figure, image_format: str) -> bytes:
    if image_format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {image_format!r}")
    buffer = io.BytesIO()
    figure.savefig(buffer, format=image_format, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


def precision_recall_figure(curves: dict[str, tuple[list[float], list[float]]]):
    """Interpolated P-R curves, one line per system: ``{name: (recall points, precision)}``."""
    figure, axes = plt.subplots(figsize=(5, 4))
    for name, (recall, precision) in curves.items():
        axes.plot(recall, precision, marker="o", markersize=3, label=name)
    axes.set(xlabel="Recall", ylabel="Interpolated precision", xlim=(0, 1), ylim=(0, 1.02))
    axes.legend(loc="upper right", fontsize="small")
    return figure


def roc_figure(curves: dict[str, RocCurve]):
    figure, axes = plt.subplots(figsize=(5, 4))
    for name, curve in curves.items():
        axes.plot(curve.false_positive_rate, curve.true_positive_rate, label=f"{name} (AUC {curve.auc:.3f})")
    axes.plot([0, 1], [0, 1], linestyle=":", color="grey", label="chance")
    axes.set(xlabel="False-positive rate", ylabel="True-positive rate", xlim=(0, 1), ylim=(0, 1))
    axes.legend(loc="lower right", fontsize="small")
    return figure


def det_figure(curves: dict[str, DetCurve]):
    """DET curves on normal-deviate axes, ticks labelled in percent (rates of 0 or 1 are left out)."""
    figure, axes = plt.subplots(figsize=(5, 4))
    for name, curve in curves.items():
        finite = np.isfinite(curve.false_alarm_deviate) & np.isfinite(curve.miss_deviate)
        axes.plot(curve.false_alarm_deviate[finite], curve.miss_deviate[finite], label=name)
    ticks = stats.norm.ppf(DET_TICKS)
    labels = [f"{100 * t:g}%" for t in DET_TICKS]
    axes.set_xticks(ticks, labels, rotation=45)
    axes.set_yticks(ticks, labels)
    limits = (ticks[0], ticks[-1])
    axes.set(xlabel="False-alarm rate", ylabel="Miss rate", xlim=limits, ylim=limits)
    axes.legend(loc="upper right", fontsize="small")
    return figure


def qq_figure(points: QQPoints, x_label: str = "Reference quantiles", y_label: str = "Sample quantiles"):
    """Q-Q points with the y = x reference line."""
    figure, axes = plt.subplots(figsize=(4.5, 4.5))
    axes.plot(points.x, points.y, "o", markersize=3)
    low, high = min(points.x.min(), points.y.min()), max(points.x.max(), points.y.max())
    axes.plot([low, high], [low, high], linestyle=":", color="grey")
    axes.set(xlabel=x_label, ylabel=y_label)
    return figure


def topics_by_difficulty(scores: Mapping[str, Mapping[str, float]]) -> list[str]:
    """Every topic of ``{run: {topic: score}}``, hardest first: by the mean over the runs that have
    it, ascending (ties by topic id, so the order is the same on every call)."""
    totals: dict[str, list[float]] = {}
    for values in scores.values():
        for topic, value in values.items():
            totals.setdefault(topic, []).append(value)
    return sorted(totals, key=lambda topic: (sum(totals[topic]) / len(totals[topic]), topic))


# Beyond this many topics, only every n-th tick is labelled (the dots stay): labels would overlap.
TOPIC_LABELS_SHOWN = 40


def per_topic_figure(scores: Mapping[str, Mapping[str, float]], measure: str):
    """One run per marker series over the topics, hardest topic (lowest mean score) on the left, and
    the topics' mean as a grey line: where runs differ, and whether it is on hard or easy topics.
    ``scores`` is ``{run: {topic: score}}``; a topic a run lacks is left out of that run's dots."""
    topics = topics_by_difficulty(scores)
    if not topics:
        raise ValueError("no per-topic scores to plot")
    position = {topic: index for index, topic in enumerate(topics)}
    figure, axes = plt.subplots(figsize=(max(5.0, min(12.0, 0.25 * len(topics) + 3)), 4))
    # Each run's dots sit a little beside the others' so that equal scores stay visible.
    offsets = np.linspace(-0.25, 0.25, len(scores)) if len(scores) > 1 else np.zeros(1)
    for offset, (name, values) in zip(offsets, scores.items(), strict=True):
        shown = [topic for topic in topics if topic in values]
        axes.plot(
            [position[topic] + offset for topic in shown],
            [values[topic] for topic in shown],
            "o",
            markersize=4,
            label=name,
        )
    means = [np.mean([v[topic] for v in scores.values() if topic in v]) for topic in topics]
    axes.plot(range(len(topics)), means, color="grey", linewidth=1, linestyle=":", label="mean")
    step = max(1, -(-len(topics) // TOPIC_LABELS_SHOWN))
    axes.set_xticks(range(0, len(topics), step), topics[::step], rotation=90, fontsize="small")
    axes.set(xlabel="Topic (hardest first)", ylabel=measure, xlim=(-0.6, len(topics) - 0.4))
    # Outside the axes: any corner inside may hide a run's dot.
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    return figure


@dataclass(frozen=True)
class Estimate:
    """A figure with its interval (``low``/``high`` None when there is none); ``value`` None when
    the figure is undefined (e.g. kappa with one label used throughout)."""

    value: float | None
    low: float | None = None
    high: float | None = None


def kappa_figure(versions: Sequence[str], series: Mapping[str, Sequence[Estimate]]):
    """Agreement over successive snapshots: one line per statistic (``{name: estimate per version}``)
    with its interval as a vertical bar; versions are evenly spaced, labelled as given (e.g.
    ``"v3\n2025-05-01"``). Undefined values are gaps; 0 (chance agreement) is drawn for scale."""
    if not versions:
        raise ValueError("no snapshot to plot")
    figure, axes = plt.subplots(figsize=(max(5.0, min(12.0, 0.5 * len(versions) + 3)), 4))
    width = len(series)
    for index, (name, estimates) in enumerate(series.items()):
        if len(estimates) != len(versions):
            raise ValueError(f"{name}: {len(estimates)} estimates for {len(versions)} versions")
        shift = (index - (width - 1) / 2) * 0.06  # side by side, so that intervals do not hide each other
        x = np.arange(len(versions)) + shift
        values = np.array([np.nan if e.value is None else e.value for e in estimates], dtype=float)
        (line,) = axes.plot(x, values, marker="o", markersize=4, label=name)
        intervals = [
            (float(x[i]), e.low, e.high)
            for i, e in enumerate(estimates)
            if e.value is not None and e.low is not None and e.high is not None
        ]
        if intervals:
            xs, lows, highs = np.array(intervals).T
            axes.vlines(xs, lows, highs, color=line.get_color(), linewidth=1.5, alpha=0.6)
    axes.axhline(0.0, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xticks(range(len(versions)), list(versions), fontsize="small")
    axes.set(xlabel="Ground-truth snapshot", ylabel="Kappa", xlim=(-0.5, len(versions) - 0.5))
    axes.set_ylim(top=1.02)
    axes.legend(loc="lower left", fontsize="small")
    return figure


def scatter_figure(
    points: Sequence[tuple[str, float, float]],
    x_label: str,
    y_label: str,
    labelled: bool,
    reverse_x: bool = False,
):
    """One point per ``(label, x, y)``, labelled when there are few (systems), with the least-squares
    line; ``reverse_x`` draws the x axis from high to low (an error rate, better to the right)."""
    figure, axes = plt.subplots(figsize=(5, 4))
    xs = np.array([p[1] for p in points], dtype=float)
    ys = np.array([p[2] for p in points], dtype=float)
    axes.plot(xs, ys, "o", markersize=5 if labelled else 2, alpha=1.0 if labelled else 0.5)
    if labelled:
        for label, x, y in points:
            axes.annotate(label, (x, y), textcoords="offset points", xytext=(4, 3), fontsize="small")
    if len(points) >= 2 and np.ptp(xs) > 0:
        slope, intercept = np.polyfit(xs, ys, 1)
        line = np.array([xs.min(), xs.max()])
        axes.plot(line, slope * line + intercept, linestyle=":", color="grey")
    axes.set(xlabel=x_label, ylabel=y_label)
    if reverse_x:
        axes.invert_xaxis()
    return figure


def render(figure, image_format: str = "png") -> bytes:
    """The figure as PNG or SVG bytes; the figure is closed."""
    return _render(figure, image_format)
