"""Run fusion (pure; no Django): several runs' results for each topic combined into one run.

- ``rrf``: reciprocal rank fusion (Cormack, Clarke & Büttcher 2009), ranks only;
- ``comb_sum``, ``comb_mnz``: CombSUM and CombMNZ (Fox & Shaw 1994) of scores normalised per run and
  topic (``normalisation``: min-max, z-score, or none).

``fuse`` equals ``ranx.fuse`` (ranx 0.3.21: ``method`` "rrf", "sum", "mnz"; ``norm`` "min-max",
"zmuv", None) on the same runs, scores to the last bit and the ranking too (tests/metrics/
test_fusion.py), with two choices ranx leaves open made explicit:

- A topic that a run lacks is a topic it retrieved nothing for (as trec_eval reads a run): the
  other runs' documents are fused without it. ranx refuses runs whose topics differ; given the
  missing topic as an empty list it computes what ``fuse`` does. Runs that share no topic at all
  are refused (``FusionError``): nothing would be fused, the output would only be the runs laid
  side by side, which is almost always a mistake (runs of two different collections).
- Ties are ranked in trec_eval's order (score descending, docno descending), in RRF's input ranks
  and in the fused run; ranx's sort leaves them in no defined order.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.metrics.fusion.comb_mnz import comb_mnz
from evaluation.metrics.fusion.comb_sum import comb_sum
from evaluation.metrics.fusion.normalisation import NORMALISATIONS
from evaluation.metrics.fusion.rrf import DEFAULT_K, rrf
from evaluation.metrics.trec.files import Run, trec_order

METHODS = ("rrf", "combsum", "combmnz")


class FusionError(ValueError):
    """Runs that cannot be fused: fewer than two, no topic in common, an unknown method."""


def common_topics(runs: Sequence[Run]) -> set[str]:
    """The topics every run has."""
    return set.intersection(*(set(run) for run in runs)) if runs else set()


def fuse(
    runs: Sequence[Run],
    method: str = "rrf",
    normalisation: str = "min-max",
    *,
    k: int = DEFAULT_K,
    depth: int | None = None,
) -> Run:
    """The runs (``{topic: {document: score}}``, at least two) fused into one.

    ``method``: "rrf" (``k`` its constant; ``normalisation`` is then irrelevant, ranks only),
    "combsum" or "combmnz" over the scores normalised per run and topic by ``normalisation``
    ("min-max", "z-score" or "none"). Returns every topic any run has, sorted, each topic's
    documents in trec_eval's order (score descending, docno descending), cut to the first ``depth``
    if given. Raises FusionError for fewer than two runs, runs with no topic in common, or an
    unknown method, normalisation, ``k`` or ``depth``.
    """
    if method not in METHODS:
        raise FusionError(f"fusion method must be one of {', '.join(METHODS)}, not {method!r}")
    if normalisation not in NORMALISATIONS:
        raise FusionError(f"normalisation must be one of {', '.join(NORMALISATIONS)}, not {normalisation!r}")
    if k < 0:
        raise FusionError(f"RRF's k must be at least 0, got {k}")
    if depth is not None and depth < 1:
        raise FusionError(f"depth must be at least 1, got {depth}")
    if len(runs) < 2:
        raise FusionError(f"fusion needs at least two runs, got {len(runs)}")
    if not common_topics(runs):
        raise FusionError("fusion of runs with no topic in common")
    normalise = NORMALISATIONS[normalisation]
    fused: Run = {}
    for topic in sorted(set().union(*runs)):
        results = [run.get(topic, {}) for run in runs]
        if method == "rrf":
            scores = rrf(results, k)
        else:
            combine = comb_sum if method == "combsum" else comb_mnz
            scores = combine([normalise(topic_scores) for topic_scores in results])
        ranking = trec_order(scores)[:depth]
        fused[topic] = {document: scores[document] for document in ranking}
    return fused
