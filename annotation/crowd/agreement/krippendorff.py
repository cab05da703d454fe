"""Krippendorff's alpha at the nominal, ordinal, interval or ratio level (the ``krippendorff`` package), over
any number of annotators and missing ratings."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import krippendorff
import numpy as np

from annotation.crowd.agreement.base import LEVELS, AgreementResult
from annotation.crowd.io.encoding import Labels, as_encoded


def alpha_value_domain(classes: Sequence, level: str) -> list:
    """Values the distance metric works on: class positions for nominal data, the numbers otherwise."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if level == "nominal":
        return list(range(len(classes)))
    if not all(isinstance(value, int | float) for value in classes):
        text = [value for value in classes if not isinstance(value, int | float)][:3]
        raise ValueError(f"level {level!r} needs numeric labels; found {text}")
    return [float(value) for value in classes]


def krippendorff_alpha(labels: Labels, level: str = "nominal") -> AgreementResult:
    """Krippendorff's alpha (the ``krippendorff`` package) for unbalanced designs: any number of
    ratings per item, missing ones allowed. ``level``: nominal, ordinal, interval or ratio; for
    ordinal and above the labels must be numbers.

    Alpha depends only on how often each value occurs within each item, so the package is given
    an items × values count table rather than an annotators × items matrix: memory grows with the
    items, not with items × annotators.
    """
    data = as_encoded(labels)
    value_domain = alpha_value_domain(data.classes, level)
    counts = data.counts
    pairable_rows = data.ratings_per_item >= 2
    pairable = int(pairable_rows.sum())
    if pairable == 0 or np.count_nonzero(counts[pairable_rows].sum(axis=0)) < 2:
        # Undefined (0/0) when the pairable ratings show no variation at all.
        return AgreementResult(None, pairable, len(data.annotators), len(data.items) - pairable)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        value = float(
            krippendorff.alpha(
                value_counts=counts[pairable_rows],
                value_domain=value_domain,
                level_of_measurement=level,  # type: ignore[arg-type]  # one of LEVELS, checked above
            )
        )
    return AgreementResult(
        None if math.isnan(value) else value, pairable, len(data.annotators), len(data.items) - pairable
    )
