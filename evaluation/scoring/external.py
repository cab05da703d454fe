"""External qrels in (a collection's official judgements, another group's assessments) and the
crowd's ground truth compared with them."""

from __future__ import annotations

from dataclasses import asdict

from annotation.crowd.minimums import ITEMS_FOR_KAPPA
from evaluation.ground_truth.downloads import crowd_qrels
from evaluation.metrics.trust import agreement_with_reference, kappa_over_topics, weighted_mean_kappa
from evaluation.models import Evaluation, ExternalQrels, GroundTruthSnapshot


def crowd_against_external(
    snapshot: GroundTruthSnapshot, external: ExternalQrels, relevance_level: int = 1
) -> dict:
    """Per topic: Cohen's kappa between the snapshot's crowd labels and the external qrels on the documents
    both judge (none below ``ITEMS_FOR_KAPPA`` of them, with the reason), and how many of the
    external relevant documents the pool (the crowd) judged; the topics' mean kappa is weighted by
    their shared documents, and the kappa over every document both judge, all topics together,
    stands beside it."""
    crowd = crowd_qrels(snapshot)  # the crowd's own labels, not the prior sets merged into the snapshot
    rows = agreement_with_reference(crowd, external.judgements, relevance_level, minimum=ITEMS_FOR_KAPPA)
    overall, shared, overall_reason = kappa_over_topics(
        crowd, external.judgements, relevance_level, ITEMS_FOR_KAPPA
    )
    relevant = sum(row.reference_relevant for row in rows)
    found = sum(row.reference_relevant_judged for row in rows)
    return {
        "snapshot": snapshot.version,
        "external_qrels": external.name,
        "topics": [asdict(row) for row in rows],
        "reference_relevant": relevant,
        "reference_relevant_judged": found,
        "pool_recall": found / relevant if relevant else None,
        "mean_kappa": weighted_mean_kappa(rows),
        "kappa_over_topics": overall,
        "shared": shared,
        "kappa_over_topics_reason": overall_reason,
        "kappa_topics": sum(row.kappa is not None for row in rows),
        "kappa_minimum": ITEMS_FOR_KAPPA.count,
    }


def comparisons(evaluation: Evaluation) -> list[dict]:
    """Crowd against each of the project's external qrels (``crowd_against_external``), for an
    evaluation against a snapshot (none for one against external qrels)."""
    if evaluation.snapshot is None:
        return []
    return [
        crowd_against_external(evaluation.snapshot, external, evaluation.relevance_level)
        for external in evaluation.project.external_qrels.all()
    ]
