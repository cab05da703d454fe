"""Plots carry exactly the curve data they are given, and render to valid PNG and SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

from evaluation.metrics.curves import det_curve, qq_against_distribution, roc_curve
from evaluation.metrics.plotting import (
    Estimate,
    det_figure,
    kappa_figure,
    per_topic_figure,
    precision_recall_figure,
    qq_figure,
    render,
    roc_figure,
    topics_by_difficulty,
)

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


def bars(axes) -> list[tuple[float, float]]:
    return [(patch.get_x() + patch.get_width() / 2, patch.get_height()) for patch in axes.patches]


def test_per_topic_figure_puts_the_hardest_topic_first():
    scores = {"a": {"t1": 0.9, "t2": 0.1, "t3": 0.5}, "b": {"t1": 0.7, "t2": 0.3, "t3": 0.4}}
    assert topics_by_difficulty(scores) == ["t2", "t3", "t1"]
    figure = per_topic_figure(scores, "map")
    first, second = figure.axes  # a panel per run, the best by mean on top
    assert (first.get_title(loc="left"), second.get_title(loc="left")) == ("a", "b")
    assert [label.get_text() for label in second.get_xticklabels()] == ["t2", "t3", "t1"]
    assert bars(first) == [(0, 0.1), (1, 0.5), (2, 0.9)]
    assert bars(second) == [(0, 0.3), (1, 0.4), (2, 0.7)]
    np.testing.assert_allclose(first.lines[0].get_ydata(), [0.2, 0.45, 0.8])  # the mean, in every panel
    assert figure.get_suptitle() == "map per topic"
    assert render(figure, "png").startswith(b"\x89PNG\r\n\x1a\n")


def test_per_topic_figure_leaves_out_a_topic_a_run_lacks():
    figure = per_topic_figure({"a": {"t1": 0.2, "t2": 0.4}, "b": {"t2": 0.6}}, "P_10")
    panel_b = next(axes for axes in figure.axes if axes.get_title(loc="left") == "b")
    assert bars(panel_b) == [(1, 0.6)]
    render(figure)


def test_per_topic_figure_stays_readable_with_225_topics_and_many_runs():
    rng = np.random.default_rng(0)
    scores = {f"run{r}": {str(t): float(rng.random()) for t in range(1, 226)} for r in range(12)}
    figure = per_topic_figure(scores, "ndcg_cut_10")
    assert len(figure.axes) == 8 and "the 8 best of 12 runs" in figure.get_suptitle()
    assert len(figure.axes[-1].get_xticklabels()) <= 13  # a dozen ids, not 225 on top of each other
    assert figure.get_size_inches()[0] == pytest.approx(5.6)  # as wide as every other figure
    assert all(len(axes.patches) == 225 for axes in figure.axes)
    render(figure, "svg")


def test_kappa_figure_draws_values_gaps_and_intervals():
    versions = ["v1\n2025-01-01", "v2\n2025-01-02", "v3\n2025-01-05"]
    series = {"Fleiss' kappa": [Estimate(0.4, 0.3, 0.5), Estimate(None), Estimate(0.6)]}
    figure = kappa_figure(versions, series)
    axes = figure.axes[0]
    values = axes.lines[0].get_ydata()
    assert values[0] == 0.4 and np.isnan(values[1]) and values[2] == 0.6
    (bars,) = axes.collections  # one interval: the only estimate that has one
    ((_, low), (_, high)) = bars.get_segments()[0]
    assert (low, high) == (0.3, 0.5)
    assert [label.get_text() for label in axes.get_xticklabels()] == versions
    render(figure, "svg")


def test_kappa_figure_needs_an_estimate_per_version():
    with pytest.raises(ValueError, match="2 estimates for 3 versions"):
        kappa_figure(["v1", "v2", "v3"], {"kappa": [Estimate(0.1), Estimate(0.2)]})
    with pytest.raises(ValueError, match="no snapshot"):
        kappa_figure([], {})


FIGURES = {
    "pr": lambda: precision_recall_figure({"a": ([0.0, 0.5, 1.0], [1.0, 0.6, 0.3])}),
    "roc": lambda: roc_figure({"sys": roc_curve(SCORES, LABELS)}),
    "det": lambda: det_figure({"sys": det_curve(SCORES, LABELS)}),
    "qq": lambda: qq_figure(qq_against_distribution([0.1, -0.2, 0.05, 0.3])),
    "per-topic": lambda: per_topic_figure({"a": {"1": 0.5, "2": 0.25}}, "map"),
    "kappa": lambda: kappa_figure(["v1", "v2"], {"k": [Estimate(0.5, 0.4, 0.6), Estimate(0.7)]}),
}


@pytest.mark.parametrize("kind", FIGURES)
def test_every_figure_renders_valid_png_and_svg(kind):
    assert render(FIGURES[kind](), "png").startswith(b"\x89PNG\r\n\x1a\n")
    root = ElementTree.fromstring(render(FIGURES[kind](), "svg"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
