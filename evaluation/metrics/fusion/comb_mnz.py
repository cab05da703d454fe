"""CombMNZ (Fox & Shaw 1994, "Combination of multiple searches", TREC-2, NIST SP 500-215, 243–252):
CombSUM multiplied by how many runs retrieved the document, so documents several systems agree on
rise (ranx's ``comb_mnz``)."""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.metrics.fusion.normalisation import sequential_sum


def comb_mnz(results: Sequence[dict[str, float]]) -> dict[str, float]:
    """One topic: ``{document: (sum of its scores in the runs that retrieved it) × how many did}``."""
    documents = dict.fromkeys(document for scores in results for document in scores)
    fused = {}
    for document in documents:
        found = [scores[document] for scores in results if document in scores]
        fused[document] = sequential_sum(found) * len(found)
    return fused
