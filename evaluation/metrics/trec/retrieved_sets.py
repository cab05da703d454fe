"""Set measures of a ranked run: each topic's top k taken as the retrieved set and scored with
``sets`` (precision, recall, F-beta, accuracy, specificity, fallout) against the qrels.

The negatives (and so accuracy, specificity and fallout) need the collection's size; without one,
the collection is taken to be every document the qrels or the run name, for any topic — all these
files know of it. A document the qrels do not judge for a topic counts as non-relevant, as in trec_eval.
"""

from __future__ import annotations

from evaluation.metrics import sets
from evaluation.metrics.trec.files import Qrels, Run, trec_order

MEASURES = ("precision", "recall", "F", "accuracy", "specificity", "fallout")


def known_documents(qrels: Qrels, run: Run) -> int:
    """How many distinct documents the qrels and the run name between them: the collection's
    size when no other is given."""
    documents: set[str] = set()
    for topics in (qrels, run):
        for ranked in topics.values():
            documents.update(ranked)
    return len(documents)


def topic_confusions(
    qrels: Qrels,
    run: Run,
    *,
    k: int | None = None,
    relevance_level: int = 1,
    collection_size: int | None = None,
) -> dict[str, sets.ConfusionMatrix]:
    """Per qrels topic (a topic the run lacks retrieves nothing), the confusion matrix of the run's
    top ``k`` (all it retrieved when None) in trec_eval's order against the documents judged at
    least ``relevance_level``."""
    if k is not None and k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    size = known_documents(qrels, run) if collection_size is None else collection_size
    confusions = {}
    for topic in sorted(qrels):
        retrieved = trec_order(run.get(topic, {}))[:k]
        relevant = [doc for doc, value in qrels[topic].items() if value >= relevance_level]
        confusions[topic] = sets.ConfusionMatrix.from_sets(retrieved, relevant, size)
    return confusions


def set_measures(confusion: sets.ConfusionMatrix, beta: float = 1.0) -> dict[str, float]:
    """Every measure of ``MEASURES`` for one confusion matrix (F with ``beta``)."""
    return {
        "precision": sets.precision(confusion),
        "recall": sets.recall(confusion),
        "F": sets.f_beta(confusion, beta),
        "accuracy": sets.accuracy(confusion),
        "specificity": sets.specificity(confusion),
        "fallout": sets.fallout(confusion),
    }
