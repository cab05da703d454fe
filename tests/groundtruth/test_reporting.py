"""The heat map's colours follow matplotlib's viridis and every cell stays readable; the figures
read every snapshot's agreement keys.

The per-annotator tables (confusion against the aggregate, ...) are tested in
``tests/crowd/test_report_tables.py``."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps

from evaluation.ground_truth.report import report_figures
from evaluation.metrics.colours import contrast_ratio, heat_colours, relative_luminance


def test_heat_colours_follow_matplotlibs_viridis():
    viridis = colormaps["viridis"]
    for value in np.linspace(-1, 1, 81):
        background, _ = heat_colours(float(value))
        ours = np.array([int(background[k : k + 2], 16) for k in (1, 3, 5)])
        reference = np.array(viridis((value + 1) / 2)[:3]) * 255
        assert np.abs(ours - reference).max() <= 6, (value, ours, reference)


def test_every_cell_is_readable_and_darker_means_lower():
    luminances = []
    for value in [None, *np.linspace(-1.5, 1.5, 121)]:
        background, text = heat_colours(None if value is None else float(value))
        rgb = lambda code: tuple(int(code[k : k + 2], 16) for k in (1, 3, 5))  # noqa: E731
        assert contrast_ratio(rgb(background), rgb(text)) >= 4.5
        if value is not None:
            luminances.append(relative_luminance(rgb(background)))
    assert luminances == sorted(luminances)  # monotone: the order reads without hue
    assert heat_colours(-5.0) == heat_colours(-1.0) and heat_colours(5.0) == heat_colours(1.0)


def test_figures_name_their_annotators_in_new_and_older_snapshots():
    counts = {"fleiss_kappa": 3, "cohen_kappa": 4, "krippendorff_alpha": 5}
    written_now = {f"{figure}_n_annotators": n for figure, n in counts.items()}
    written_before = {f"{figure}_n_workers": n for figure, n in counts.items()}  # before the rename
    for agreement in (written_now, written_before):
        assert [figure["n_annotators"] for figure in report_figures(agreement)] == [3, 4, 5]
