"""Pooling: which documents of the runs get judged, and in what order. Pure functions; no Django.

- depth-k: the union of every run's top k documents per topic (Spärck Jones & van Rijsbergen 1975);
- fixed budget: judge a topic's pool in depth order until the budget is spent (``depth_order``);
  in decreasing summed rank-biased weight (``rbp_order``, Moffat, Webber & Zobel 2007), fixed in
  advance; or let the runs that keep finding relevant documents go first (``move_to_front``,
  Cormack, Palmer & Clarke 1998), adaptive. Both find more relevant documents for the same number
  of judgements than depth order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence

from evaluation.metrics.trec.files import Run, trec_order


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


def depth_order(rankings: Sequence[Sequence[str]], budget: int) -> list[str]:
    """The first ``budget`` documents of one topic's pool in depth order: every run's first document,
    then every run's second, … (runs in the order given), each document once. Judging a depth-k pool
    in this order and stopping at ``budget`` is the fixed-budget baseline ``move_to_front`` improves on."""
    order: list[str] = []
    seen: set[str] = set()
    for depth in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if depth < len(ranking) and ranking[depth] not in seen:
                seen.add(ranking[depth])
                order.append(ranking[depth])
                if len(order) == budget:
                    return order
    return order


def rbp_order(rankings: Sequence[Sequence[str]], budget: int, persistence: float = 0.8) -> list[str]:
    """The first ``budget`` documents of one topic by summed rank-biased weight (Moffat, Webber &
    Zobel 2007): each run gives the document at rank i the weight ``persistence ** (i - 1)``, the
    weight an RBP user puts on it, and documents are judged in decreasing order of the sum over the
    runs (ties: the best rank any run gave it, then the document id). Fixed before any judgement
    (unlike move-to-front), so the pool and its judging order can be shown before they are stored;
    documents that several runs rank high come first, which finds more relevant documents per
    judgement than depth order."""
    if not 0 < persistence < 1:
        raise ValueError(f"persistence must be between 0 and 1, got {persistence}")
    weight: dict[str, float] = {}
    best: dict[str, int] = {}
    for ranking in rankings:
        for rank, document in enumerate(ranking, start=1):
            weight[document] = weight.get(document, 0.0) + persistence ** (rank - 1)
            best[document] = min(best.get(document, rank), rank)
    return sorted(weight, key=lambda d: (-weight[d], best[d], d))[:budget]


def move_to_front(
    rankings: Sequence[Sequence[str]], budget: int, is_relevant: Callable[[str], bool]
) -> list[str]:
    """Move-to-front pooling (Cormack, Palmer & Clarke 1998) for one topic: the documents to judge,
    in the order they are judged, at most ``budget`` of them.

    The runs wait in a queue. The run at the front offers its best document not judged yet; it is
    judged (``is_relevant``, the assessor); while its documents are relevant the run stays at the
    front, and after a non-relevant one it goes to the back. Runs that find relevant documents
    are so read deeper, and runs that do not stop costing judgements. Adaptive: the order depends on
    the answers, so in the app it is driven by the judgements as they arrive.
    """
    queue = deque(range(len(rankings)))
    position = [0] * len(rankings)
    judged: list[str] = []
    seen: set[str] = set()
    while queue and len(judged) < budget:
        run = queue[0]
        ranking = rankings[run]
        while position[run] < len(ranking) and ranking[position[run]] in seen:
            position[run] += 1
        if position[run] == len(ranking):
            queue.popleft()  # nothing left to offer
            continue
        document = ranking[position[run]]
        seen.add(document)
        judged.append(document)
        if not is_relevant(document):
            queue.rotate(-1)
    return judged


def relevant_found(order: Sequence[str], relevant: set[str]) -> list[int]:
    """How many relevant documents the first 1, 2, … judgements of ``order`` found (a gain curve)."""
    found, curve = 0, []
    for document in order:
        found += document in relevant
        curve.append(found)
    return curve
