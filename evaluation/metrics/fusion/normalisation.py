"""Score normalisation of one topic's results before they are combined (``comb_sum``, ``comb_mnz``).

Each run's scores live on their own scale (BM25 in the tens, a neural ranker's logits around zero), so
CombSUM and CombMNZ add them only once each topic of each run is brought to a common one (Fox & Shaw
1994 normalised by the topic's maximum; Lee 1997 by min-max; Montague & Aslam 2001 compare them).
These follow ranx 0.3.21 (``ranx.normalization``) to the last bit, so that ``fuse`` equals
``ranx.fuse``: a topic whose scores are all equal has its denominator raised to 1e-9 rather than
divided by zero (every document then scores 0), and sums are taken one value after the other, best
score first, as ranx's compiled loops take them (not NumPy's pairwise sum, which differs in the last
bits and would reorder near ties).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

# ranx's floor on a normaliser's denominator: a topic whose scores are all equal (a single document,
# or a run that scores every document the same) comes out all zeros instead of a division by zero.
SMALLEST_DENOMINATOR = 1e-9


def sequential_sum(values: Iterable[float]) -> float:
    """The values added one after the other from 0, as ranx's compiled loops add them (Python's own
    ``sum`` compensates its rounding from 3.12 on, so it is not used)."""
    total = 0.0
    for value in values:
        total += value
    return total


def min_max(scores: dict[str, float]) -> dict[str, float]:
    """``(s - min) / (max - min)``: the topic's best document 1, its worst 0 (Lee 1997)."""
    if not scores:
        return {}
    lowest, highest = min(scores.values()), max(scores.values())
    denominator = max(highest - lowest, SMALLEST_DENOMINATOR)
    return {document: (score - lowest) / denominator for document, score in scores.items()}


def z_score(scores: dict[str, float]) -> dict[str, float]:
    """``(s - mean) / standard deviation`` (the population's, n in the denominator), ranx's ``zmuv``
    (zero mean, unit variance; Montague & Aslam 2001)."""
    if not scores:
        return {}
    # Summed best score first, the order ranx keeps a topic in (and a run file's): float addition is
    # not associative, and another order changes the last bits of 1 score in 6.
    values = sorted(scores.values(), reverse=True)
    count = len(values)
    mean = sequential_sum(values) / count
    variance = sequential_sum((value - mean) * (value - mean) for value in values) / count
    # A square root, as Numba compiles ranx's ``** 0.5``: Python's ``** 0.5`` (C's pow) is a bit
    # off at times (0.46222… ** 0.5 = 0.679869268479038, its square root 0.6798692684790381).
    denominator = max(math.sqrt(variance), SMALLEST_DENOMINATOR)
    return {document: (score - mean) / denominator for document, score in scores.items()}


def unchanged(scores: dict[str, float]) -> dict[str, float]:
    """The scores as they are: for runs already on one scale."""
    return dict(scores)


NORMALISATIONS: dict[str, Callable[[dict[str, float]], dict[str, float]]] = {
    "min-max": min_max,
    "z-score": z_score,
    "none": unchanged,
}
