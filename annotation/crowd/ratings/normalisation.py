"""Per-annotator score normalisation for rating tasks (pure; no Django).

Annotators use a rating scale differently (one is harsh, another generous); a z-score per
annotator removes each annotator's own mean and spread before scores are compared or averaged:

    z = (x - mean_a) / sd_a

with mean_a and sd_a the mean and the population standard deviation (ddof=0) of annotator a's
scores, as in ``scipy.stats.zscore`` and as used for crowd direct assessment (Graham et al., 2013,
"Continuous Measurement Scales in Human Evaluation of Machine Translation", LAW VII).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable


class NormalisationError(ValueError):
    """Bad input to a normalisation; the message names the offending row and field."""


def zscore_per_annotator(
    scores: Iterable[tuple[Hashable, Hashable, float]],
) -> dict[tuple[Hashable, Hashable], float]:
    """Z-score every score within its annotator.

    Parameters:
        scores: ``(annotator, item, score)`` triples; one score per annotator and item.
    Returns:
        ``{(annotator, item): z}``. An annotator whose scores are all equal (sd = 0) carries no
        information about relative quality, so each of their scores maps to 0.0 rather than
        dividing by zero.
    Raises:
        NormalisationError: a score that is not a finite number, or an annotator scoring the same
        item twice (row number and field named).
    """
    by_annotator: dict[Hashable, dict[Hashable, float]] = defaultdict(dict)
    for row, (annotator, item, score) in enumerate(scores, start=1):
        try:
            value = float(score)
        except (TypeError, ValueError) as error:
            raise NormalisationError(f"row {row}: field 'score': not a number: {score!r}") from error
        if not math.isfinite(value):
            raise NormalisationError(f"row {row}: field 'score': not finite: {score!r}")
        if item in by_annotator[annotator]:
            raise NormalisationError(
                f"row {row}: field 'item': annotator {annotator!r} scored item {item!r} twice"
            )
        by_annotator[annotator][item] = value

    normalised: dict[tuple[Hashable, Hashable], float] = {}
    for annotator, items in by_annotator.items():
        values = list(items.values())
        mean = math.fsum(values) / len(values)
        sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
        for item, value in items.items():
            # Relative tolerance: an sd that is float noise around identical scores is still zero.
            constant = sd <= 1e-12 * max(1.0, abs(mean))
            normalised[(annotator, item)] = 0.0 if constant else (value - mean) / sd
    return normalised
