"""Plots carry exactly the curve data they are given, and render to valid PNG and SVG."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.metrics.curves import det_curve, qq_against_distribution, roc_curve
from evaluation.metrics.plotting import det_figure, precision_recall_figure, qq_figure, render, roc_figure

SCORES = [0.9, 0.8, 0.7, 0.6, 0.55, 0.4, 0.3, 0.2]
LABELS = [1, 1, 0, 1, 0, 0, 1, 0]


def test_roc_figure_plots_the_curve_and_renders_png():
    curve = roc_curve(SCORES, LABELS)
    figure = roc_figure({"sys": curve})
    x, y = figure.axes[0].lines[0].get_data()
    np.testing.assert_array_equal(x, curve.false_positive_rate)
    np.testing.assert_array_equal(y, curve.true_positive_rate)
    assert render(figure, "png").startswith(b"\x89PNG\r\n\x1a\n")


def test_det_figure_uses_probit_axes_and_renders_svg():
    curve = det_curve(SCORES, LABELS)
    figure = det_figure({"sys": curve})
    x, y = figure.axes[0].lines[0].get_data()
    finite = np.isfinite(curve.false_alarm_deviate) & np.isfinite(curve.miss_deviate)
    np.testing.assert_allclose(x, curve.false_alarm_deviate[finite])
    np.testing.assert_allclose(y, curve.miss_deviate[finite])
    assert "10%" in [label.get_text() for label in figure.axes[0].get_xticklabels()]
    assert b"<svg" in render(figure, "svg")


def test_precision_recall_and_qq_figures():
    figure = precision_recall_figure({"a": ([0.0, 0.5, 1.0], [1.0, 0.6, 0.3])})
    assert list(figure.axes[0].lines[0].get_ydata()) == [1.0, 0.6, 0.3]
    render(figure)
    points = qq_against_distribution(np.random.default_rng(1).normal(size=30))
    figure = qq_figure(points)
    np.testing.assert_array_equal(figure.axes[0].lines[0].get_xdata(), points.x)
    render(figure)


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="png, svg"):
        render(roc_figure({"sys": roc_curve(SCORES, LABELS)}), "gif")
