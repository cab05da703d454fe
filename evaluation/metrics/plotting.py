"""Render curve data as PNG or SVG bytes with matplotlib (Agg: no display needed)."""

from __future__ import annotations

import io

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


def render(figure, image_format: str = "png") -> bytes:
    """The figure as PNG or SVG bytes; the figure is closed."""
    return _render(figure, image_format)
