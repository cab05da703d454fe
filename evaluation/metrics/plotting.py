"""Render curve data as PNG or SVG bytes with matplotlib (Agg: no display needed), in the look of
the project page's server-drawn charts (``annotation.progress.charts``): Okabe & Ito's palette, bold titles
on the left, faint horizontal grid lines, no box, legends without a frame; sized to stay readable
when a phone shrinks them to 390 px (text of 11 pt on a 5.6 in figure: about 10 px there).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from cycler import cycler
from matplotlib.typing import RcKeyType
from scipy import stats

from annotation.progress.charts import PALETTE
from evaluation.metrics.curves import AveragedRocCurve, DetCurve, QQPoints, RocCurve

FORMATS = ("png", "svg")
DET_TICKS = [0.001, 0.01, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 0.99]
INK, MUTED = "#1b1f24", "#57606a"  # cranfield.css's --ink and --muted
# One width for every figure: the page shows them at most this wide, and a phone at 390 px.
WIDTH = 5.6
HOUSE_STYLE: dict[RcKeyType, Any] = {
    "axes.prop_cycle": cycler(color=PALETTE),
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": MUTED,
    "axes.labelcolor": INK,
    "text.color": INK,
    "xtick.color": MUTED,
    "ytick.color": MUTED,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.color": INK,
    "grid.alpha": 0.15,
    "lines.linewidth": 2,
    "figure.dpi": 100,
}


@contextmanager
def house_style() -> Iterator[None]:
    """matplotlib's settings for a figure drawn inside: text and lines take them as they are made."""
    with plt.rc_context(HOUSE_STYLE):
        yield


def _render(figure, image_format: str) -> bytes:
    if image_format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {image_format!r}")
    buffer = io.BytesIO()
    figure.savefig(buffer, format=image_format, bbox_inches="tight", dpi=100)
    plt.close(figure)
    return buffer.getvalue()


def _legend_below(axes) -> None:
    """The legend under the axes, one run a line: inside, a legend of many runs hid their curves."""
    axes.legend(loc="upper left", bbox_to_anchor=(0.0, -0.16), borderaxespad=0.0)


def precision_recall_figure(curves: dict[str, tuple[list[float], list[float]]]):
    """Interpolated P-R curves, one line per system: ``{name: (recall points, precision)}``."""
    with house_style():
        figure, axes = plt.subplots(figsize=(WIDTH, 3.8))
        for name, (recall, precision) in curves.items():
            axes.plot(recall, precision, marker="o", markersize=3, label=name)
        axes.set(xlabel="Recall", ylabel="Interpolated precision", xlim=(0, 1), ylim=(0, 1.02))
        axes.set_title("Precision at 11 recall points")
        _legend_below(axes)
    return figure


def roc_figure(curves: Mapping[str, RocCurve | AveragedRocCurve]):
    """ROC curves, one line per system, each with its AUC in the legend (averaged over topics, the
    number of topics it rests on too)."""
    with house_style():
        figure, axes = plt.subplots(figsize=(WIDTH, 4.2))
        for name, curve in curves.items():
            topics = f", {curve.topics} topics" if isinstance(curve, AveragedRocCurve) else ""
            axes.plot(
                curve.false_positive_rate,
                curve.true_positive_rate,
                label=f"{name} (AUC {curve.auc:.3f}{topics})",
            )
        axes.plot([0, 1], [0, 1], linestyle=":", color="grey", linewidth=1, label="chance")
        axes.set(xlabel="False-positive rate", ylabel="True-positive rate", xlim=(0, 1), ylim=(0, 1))
        averaged = any(isinstance(curve, AveragedRocCurve) for curve in curves.values())
        axes.set_title("ROC, averaged over topics" if averaged else "ROC")
        _legend_below(axes)
    return figure


def det_figure(curves: Mapping[str, DetCurve], title: str = "DET, averaged over topics"):
    """DET curves on normal-deviate axes, ticks labelled in percent (rates of 0 or 1 are left out)."""
    with house_style():
        figure, axes = plt.subplots(figsize=(WIDTH, 4.2))
        for name, curve in curves.items():
            finite = np.isfinite(curve.false_alarm_deviate) & np.isfinite(curve.miss_deviate)
            axes.plot(curve.false_alarm_deviate[finite], curve.miss_deviate[finite], label=name)
        ticks = stats.norm.ppf(DET_TICKS)
        labels = [f"{100 * t:g}%" for t in DET_TICKS]
        axes.set_xticks(ticks, labels, rotation=45)
        axes.set_yticks(ticks, labels)
        limits = (ticks[0], ticks[-1])
        axes.set(xlabel="False-alarm rate", ylabel="Miss rate", xlim=limits, ylim=limits)
        axes.grid(True, axis="both")
        axes.set_title(title)
        axes.legend(loc="upper left", bbox_to_anchor=(0.0, -0.24), borderaxespad=0.0)  # below the tick labels
    return figure


def qq_figure(
    points: QQPoints,
    x_label: str = "Reference quantiles",
    y_label: str = "Sample quantiles",
    title: str = "Q-Q plot",
):
    """Q-Q points with the y = x reference line."""
    with house_style():
        figure, axes = plt.subplots(figsize=(4.8, 4.4))
        axes.plot(points.x, points.y, "o", markersize=4)
        low, high = min(points.x.min(), points.y.min()), max(points.x.max(), points.y.max())
        axes.plot([low, high], [low, high], linestyle=":", color="grey", linewidth=1)
        axes.set(xlabel=x_label, ylabel=y_label)
        axes.grid(True, axis="both")
        axes.set_title(title)
    return figure


def topics_by_difficulty(scores: Mapping[str, Mapping[str, float]]) -> list[str]:
    """Every topic of ``{run: {topic: score}}``, hardest first: by the mean over the runs that have
    it, ascending (ties by topic id, so the order is the same on every call)."""
    totals: dict[str, list[float]] = {}
    for values in scores.values():
        for topic, value in values.items():
            totals.setdefault(topic, []).append(value)
    return sorted(totals, key=lambda topic: (sum(totals[topic]) / len(totals[topic]), topic))


# Runs drawn, one panel each, the best by their mean first; more would make a tower of panels.
MOST_RUNS_PER_TOPIC = 8
# Topic ids labelled along the bottom: more would overlap at 390 px.
TOPIC_LABELS_SHOWN = 12


def per_topic_figure(scores: Mapping[str, Mapping[str, float]], measure: str):
    """One panel per run (the best ``MOST_RUNS_PER_TOPIC`` by mean), each a bar per topic in one
    order, hardest topic (lowest mean over the runs) on the left, with the topics' mean as a line:
    where a run does better or worse than the others, and on hard or on easy topics.

    Bars in small multiples stay readable from 5 to 225 topics and down to a phone's width, where
    one panel of dots for every run became an unreadable cloud: each topic is a column of the same
    place in every panel, and only some of the ids are written under the last. ``scores`` is
    ``{run: {topic: score}}``; a topic a run lacks has no bar in its panel."""
    topics = topics_by_difficulty(scores)
    if not topics:
        raise ValueError("no per-topic scores to plot")
    means = {topic: float(np.mean([v[topic] for v in scores.values() if topic in v])) for topic in topics}
    ranked = sorted(scores, key=lambda run: (-float(np.mean(list(scores[run].values()) or [0.0])), run))
    shown = ranked[:MOST_RUNS_PER_TOPIC]
    position = {topic: index for index, topic in enumerate(topics)}
    top = max([1.0, *(v for values in scores.values() for v in values.values())])
    with house_style():
        figure, panels = plt.subplots(
            len(shown), 1, figsize=(WIDTH, 0.55 + 1.05 * len(shown)), sharex=True, sharey=True, squeeze=False
        )
        for index, (axes, run) in enumerate(zip(panels[:, 0], shown, strict=True)):
            colour = PALETTE[index % len(PALETTE)]
            present = [topic for topic in topics if topic in scores[run]]
            axes.bar(
                [position[topic] for topic in present],
                [scores[run][topic] for topic in present],
                width=0.8 if len(topics) < 60 else 1.0,
                color=colour,
                label=run,
            )
            axes.plot(
                range(len(topics)), [means[topic] for topic in topics], color=INK, linewidth=1, label="mean"
            )
            axes.set_title(run, fontsize=10, pad=2)
            axes.set_ylim(0, top)
            axes.set_xlim(-0.6, len(topics) - 0.4)
            axes.tick_params(axis="x", length=0)
        step = max(1, -(-len(topics) // TOPIC_LABELS_SHOWN))
        bottom = panels[-1, 0]
        bottom.set_xticks(range(0, len(topics), step), topics[::step], rotation=90)
        bottom.set_xlabel(f"Topic, hardest first ({len(topics)} topics; the line: their mean over the runs)")
        figure.supylabel(measure, fontsize=11)
        heading = f"{measure} per topic"
        if len(shown) < len(ranked):
            heading += f": the {len(shown)} best of {len(ranked)} runs"
        figure.suptitle(heading, x=0.02, ha="left", fontsize=12, fontweight="bold")
        figure.tight_layout(h_pad=0.4)
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
    with house_style():
        return _kappa_figure(versions, series)


def _kappa_figure(versions: Sequence[str], series: Mapping[str, Sequence[Estimate]]):
    figure, axes = plt.subplots(figsize=(WIDTH, 3.6))
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
    # Past a dozen snapshots, every n-th is labelled: the dates would overlap.
    step = max(1, -(-len(versions) // 12))
    axes.set_xticks(range(0, len(versions), step), list(versions)[::step])
    axes.set(xlabel="Ground-truth snapshot", ylabel="Kappa", xlim=(-0.5, len(versions) - 0.5))
    axes.set_ylim(top=1.02)
    axes.set_title("Agreement over the snapshots")
    axes.legend(loc="lower left")
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
    with house_style():
        figure, axes = plt.subplots(figsize=(WIDTH, 4.2))
        xs = np.array([p[1] for p in points], dtype=float)
        ys = np.array([p[2] for p in points], dtype=float)
        axes.plot(xs, ys, "o", markersize=6 if labelled else 3, alpha=1.0 if labelled else 0.5)
        if labelled:
            for label, x, y in points:
                axes.annotate(label, (x, y), textcoords="offset points", xytext=(5, 3), fontsize=10)
        if len(points) >= 2 and np.ptp(xs) > 0:
            slope, intercept = np.polyfit(xs, ys, 1)
            line = np.array([xs.min(), xs.max()])
            axes.plot(line, slope * line + intercept, linestyle=":", color="grey", linewidth=1)
        axes.set(xlabel=x_label, ylabel=y_label)
        axes.grid(True, axis="both")
        if reverse_x:
            axes.invert_xaxis()
    return figure


def sampling_simulation_figure(shares: Sequence[tuple[str, Mapping[str, Sequence[float]]]]):
    """A sampling simulation (``trec.sampling_simulation``) in two panels, a box per estimator at each
    share judged (``(label, figures)``, e.g. ``("10 %", {"mae": […], "tau": […], …})``): the mean
    absolute error of the runs' inferred MAP over the samples, and Kendall's τ of their ranking
    against full judgement. Boxes span the middle half of the samples, whiskers 1.5 × that, points
    beyond them are drawn; the mean is a diamond."""
    if not shares:
        raise ValueError("no share to plot")
    estimators = (("xinfAP", ""), ("statAP", "stat_"))
    with house_style():
        figure, (errors, taus) = plt.subplots(2, 1, figsize=(WIDTH, 6.4), sharex=True)
        positions = np.arange(len(shares), dtype=float)
        for index, (name, prefix) in enumerate(estimators):
            colour = PALETTE[index]
            where = positions + (index - 0.5) * 0.3
            for axes, figure_name in ((errors, prefix + "mae"), (taus, prefix + "tau")):
                data = [list(figures[figure_name]) for _, figures in shares]
                axes.boxplot(
                    data,
                    positions=where,
                    widths=0.25,
                    showmeans=True,
                    patch_artist=True,
                    boxprops={"facecolor": colour, "alpha": 0.35, "edgecolor": colour},
                    medianprops={"color": colour},
                    whiskerprops={"color": colour},
                    capprops={"color": colour},
                    flierprops={"markeredgecolor": colour, "markersize": 3},
                    meanprops={
                        "marker": "D",
                        "markerfacecolor": colour,
                        "markeredgecolor": colour,
                        "markersize": 4,
                    },
                )
            errors.plot([], [], "s", color=colour, alpha=0.6, label=name)
        errors.set(ylabel="MAP: mean |error|")
        errors.set_ylim(bottom=0)
        errors.set_title("Inferred MAP against full judgement")
        errors.grid(True, axis="y")
        errors.legend(loc="upper right")
        taus.set(ylabel="Kendall's τ of the ranking", xlabel="Share of the pool judged")
        taus.set_ylim(top=1.02)
        taus.grid(True, axis="y")
        taus.set_xticks(positions, [label for label, _ in shares])
    return figure


def render(figure, image_format: str = "png") -> bytes:
    """The figure as PNG or SVG bytes; the figure is closed."""
    return _render(figure, image_format)
