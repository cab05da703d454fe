"""What the plots draw, from plain qrels, runs and trec_eval values: shared by the app's plot views
and the ``cranfield plot`` command, so that a figure means the same on a page and on the command line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evaluation.metrics.trec.files import Qrels, Run

IPREC_PREFIX = "iprec_at_recall_"


def interpolated_precision_points(values: Mapping[str, float]) -> tuple[list[float], list[float]]:
    """(recall points, interpolated precision) from trec_eval values named ``iprec_at_recall_0.10``
    …, in recall order; other names are ignored."""
    points = sorted(
        (float(name[len(IPREC_PREFIX) :]), float(value))
        for name, value in values.items()
        if name.startswith(IPREC_PREFIX)
    )
    if not points:
        raise ValueError("no iprec_at_recall values: the P-R curve needs trec_eval's iprec_at_recall")
    return [recall for recall, _ in points], [precision for _, precision in points]


def topic_differences(
    first: Mapping[str, float], second: Mapping[str, float]
) -> tuple[list[str], list[float]]:
    """Per-topic ``first − second`` over the topics both have, in topic order: the sample the paired
    t-test assumes normal."""
    topics = sorted(set(first) & set(second))
    return topics, [float(first[topic]) - float(second[topic]) for topic in topics]


def judged_scores_by_topic(
    qrels: Qrels, run: Run, relevance_level: int = 1
) -> dict[str, tuple[list[float], list[int]]]:
    """Per topic, the run's scores of the documents it retrieved that the qrels judge, with their
    binary label (1, the positive class, when the qrels value ≥ ``relevance_level``), for ROC and
    DET. Unjudged retrieved documents are left out rather than counted non-relevant, so the curve
    measures how the scores separate what the assessors saw; a qrels value below 0 (unjudged in the
    pool) is left out too; relevant documents the run did not retrieve have no score and are not
    points (the true-positive rate is a share of the relevant documents it retrieved)."""
    by_topic: dict[str, tuple[list[float], list[int]]] = {}
    for topic in sorted(set(qrels) & set(run)):
        judgements = qrels[topic]
        scores: list[float] = []
        labels: list[int] = []
        for document, score in run[topic].items():
            value = judgements.get(document)
            if value is None or value < 0:
                continue
            scores.append(float(score))
            labels.append(int(value >= relevance_level))
        if scores:
            by_topic[topic] = (scores, labels)
    return by_topic


def topics_with_both_classes(by_topic: dict[str, tuple[list[float], list[int]]]) -> int:
    """How many topics have a curve: a relevant and a non-relevant judged document both retrieved."""
    return sum(both_classes(labels) for _, labels in by_topic.values())


def both_classes(labels: Sequence[int]) -> bool:
    """Whether ROC/DET are defined: at least one relevant and one non-relevant judged document."""
    return 0 < sum(labels) < len(labels)
