"""Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009, "Reciprocal rank fusion outperforms
Condorcet and individual rank learning methods", SIGIR, 758–759): a document's fused score is the sum
over the runs that retrieved it of ``1 / (k + rank)``, rank 1-based, with k = 60 the paper's choice.
Only ranks count, so no normalisation changes it.

The rank is the document's place in trec_eval's order (score descending, ties by docno descending:
``trec_order``), the order every Cranfield run is stored and scored in. ranx 0.3.21 ranks by its
own sort, which leaves tied documents in no defined order; on runs without ties the two agree.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.metrics.fusion.comb_sum import comb_sum
from evaluation.metrics.trec.files import trec_order

# Cormack, Clarke & Büttcher 2009 fixed k = 60 on TREC data ("k = 60 was fixed during a pilot
# investigation and not altered"); ranx's default too.
DEFAULT_K = 60


def reciprocal_ranks(scores: dict[str, float], k: int = DEFAULT_K) -> dict[str, float]:
    """One run's topic as ``{document: 1 / (k + rank)}``."""
    return {document: 1 / (k + rank) for rank, document in enumerate(trec_order(scores), start=1)}


def rrf(results: Sequence[dict[str, float]], k: int = DEFAULT_K) -> dict[str, float]:
    """One topic: ``{document: sum over the runs that retrieved it of 1 / (k + rank)}``."""
    return comb_sum([reciprocal_ranks(scores, k) for scores in results])
