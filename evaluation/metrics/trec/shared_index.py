"""Many runs scored against several qrels of the same topics (a ground truth and its variants, as an
evaluation job's checks do), the runs' documents already in trec_eval's order. Pure; no Django.

``evaluate`` (``measures``) looks every retrieved document up in the qrels again for each run and
each qrels: an evaluation job of 100 runs × 50 topics × 1,000 documents against the ground truth,
five variants and a leave-one-out qrels per run made 30,000 such passes of 1,000 dictionary lookups.
Here each topic's judged documents (in any of the qrels) get one index; a run's topic is looked up
once (``positions``) and ranked against any qrels by one gather (``QrelsValues.ranked``), then scored
all topics at once (``batched.evaluate_ranked``: ``topic_measures``' values, bit for bit).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat

import numpy as np

from evaluation.metrics.trec.batched import evaluate_ranked
from evaluation.metrics.trec.files import Qrels
from evaluation.metrics.trec.measures import NOT_IN_POOL, Measure, RankedTopic, prepare_topic


class DocumentIndex:
    """Per topic, a number for every document any of the given qrels judges; one more number (the
    topic's count) stands for every other document."""

    def __init__(self, qrels: Iterable[Qrels]) -> None:
        documents: dict[str, dict[str, int]] = {}
        for member in qrels:
            for topic, judged in member.items():
                numbers = documents.setdefault(topic, {})
                for document in judged:
                    numbers.setdefault(document, len(numbers))
        self.documents = documents

    def positions(self, topic: str, docnos: Sequence[str]) -> np.ndarray:
        """The documents' numbers, in their order (the topic's count for a document none judges)."""
        numbers = self.documents.get(topic, {})
        return np.fromiter(map(numbers.get, docnos, repeat(len(numbers))), dtype=np.int64, count=len(docnos))

    def values(self, qrels: Qrels) -> QrelsValues:
        """``qrels`` (judging only documents this index numbers) as arrays by those numbers."""
        return QrelsValues(self, qrels)


class QrelsValues:
    """One qrels as an array per topic, indexed by the ``DocumentIndex``'s numbers: the prepared value
    (``prepare_topic``: negative values are unjudged-in-pool) or NOT_IN_POOL, and the topic's levels."""

    def __init__(self, index: DocumentIndex, qrels: Qrels) -> None:
        self.index = index
        self.judged = qrels
        self.topics: dict[str, tuple[np.ndarray, Mapping[int, int]]] = {}
        for topic, judged in qrels.items():
            self.topics[topic] = self._arrays(topic, judged)

    def _arrays(self, topic: str, judged: Mapping[str, int]) -> tuple[np.ndarray, Mapping[int, int]]:
        numbers = self.index.documents[topic]
        prepared = prepare_topic(judged)
        values = np.full(len(numbers) + 1, NOT_IN_POOL, dtype=np.int64)
        for document, value in prepared.values.items():
            values[numbers[document]] = value
        return values, prepared.levels

    def without(self, removed: Mapping[str, set[str]]) -> QrelsValues:
        """These qrels minus the judgements of ``{topic: documents}`` (``trust.qrels_without``); only
        the topics that lose something are prepared again."""
        copy = QrelsValues.__new__(QrelsValues)
        copy.index = self.index
        copy.judged = self.judged
        copy.topics = dict(self.topics)
        for topic, documents in removed.items():
            if topic in self.judged and documents:
                kept = {doc: rel for doc, rel in self.judged[topic].items() if doc not in documents}
                copy.topics[topic] = self._arrays(topic, kept)
        return copy

    def ranked(self, topic: str, positions: np.ndarray, *, judged_only: bool = False) -> RankedTopic:
        """``rank_topic`` for a topic whose documents (numbered by ``positions``) are in trec_eval's
        order already."""
        values, levels = self.topics[topic]
        rels = values[positions] if len(positions) else np.empty(0, dtype=np.int64)
        if judged_only:
            rels = rels[rels >= 0]
        return RankedTopic(rels, levels)


def evaluate_in_order(
    qrels: QrelsValues,
    positions: Mapping[str, np.ndarray],
    measures: Sequence[Measure],
    *,
    relevance_level: int = 1,
    judged_only: bool = False,
    version: str = "10.0",
) -> dict[str, dict[str, float]]:
    """``evaluate(qrels, run, measures, complete=True, …)`` for a run whose topics' documents are in
    trec_eval's order, given as their numbers (``DocumentIndex.positions``, once per run and topic)."""
    empty = np.empty(0, dtype=np.int64)
    topics = {
        topic: qrels.ranked(topic, positions.get(topic, empty), judged_only=judged_only)
        for topic in sorted(qrels.topics)
    }
    return evaluate_ranked(topics, measures, relevance_level=relevance_level, version=version)
