"""CombSUM (Fox & Shaw 1994, "Combination of multiple searches", TREC-2, NIST SP 500-215, 243–252):
a document's fused score is the sum of its (normalised) scores in every run; a run that did not
retrieve it adds nothing (0), as in ranx's ``comb_sum``."""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.metrics.fusion.normalisation import sequential_sum


def comb_sum(results: Sequence[dict[str, float]]) -> dict[str, float]:
    """One topic: ``{document: sum over the runs of its score, 0 where a run lacks it}``, documents
    in the order they are first met (run by run)."""
    documents = dict.fromkeys(document for scores in results for document in scores)
    return {
        document: sequential_sum(scores.get(document, 0.0) for scores in results) for document in documents
    }
