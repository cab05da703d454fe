"""Pooling: the union of the top-k documents of several runs, per topic (Spärck Jones & van Rijsbergen 1975).

Pure functions on plain data; no Django.
"""

from __future__ import annotations

from collections.abc import Iterable

from evaluation.metrics.trec_io import Run, trec_order


def depth_k_pool(runs: Iterable[Run], depth: int) -> dict[str, dict[str, int]]:
    """Pool the top ``depth`` documents of every run.

    Returns ``{topic: {docid: best_rank}}`` where ``best_rank`` (1-based) is the highest position the
    document reached in any run, so judging can start with the documents most runs agree are good.
    """
    if depth < 1:
        raise ValueError(f"pool depth must be at least 1, got {depth}")
    pool: dict[str, dict[str, int]] = {}
    for run in runs:
        for topic, scores in run.items():
            topic_pool = pool.setdefault(topic, {})
            for rank, docid in enumerate(trec_order(scores)[:depth], start=1):
                if rank < topic_pool.get(docid, rank + 1):
                    topic_pool[docid] = rank
    return pool
