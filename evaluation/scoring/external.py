"""External qrels in (a collection's official judgements, another group's assessments) and the
crowd's ground truth compared with them."""

from __future__ import annotations

import unicodedata
from dataclasses import asdict

from django.db import IntegrityError, transaction

from annotation.crowd.minimums import ITEMS_FOR_KAPPA
from annotation.items.importing import ImportProblem
from annotation.items.inputs import InputError, identifier
from annotation.models import Project
from evaluation.ground_truth.downloads import snapshot_qrels
from evaluation.metrics.natural_order import natural_sorted
from evaluation.metrics.trec_io import TrecFormatError, read_qrels
from evaluation.metrics.trust import agreement_with_reference, kappa_over_topics, weighted_mean_kappa
from evaluation.models import ExternalQrels, GroundTruthSnapshot

NAME_LENGTH = 200


def import_external_qrels(project: Project, name: str, text: str) -> ExternalQrels:
    """Store qrels text (``topic iter docno rel``) under ``name``; ImportProblem names the field
    (``name``, or ``qrels`` with the line) for a bad name, a malformed line or a topic the project
    does not have. Documents outside the project are kept: they are relevant documents the pool
    never saw, which is what the comparison is for."""
    try:
        name = identifier(name, max_length=NAME_LENGTH)
    except InputError as error:
        raise ImportProblem("name", str(error)) from error
    try:
        parsed = read_qrels(text.splitlines(), name="qrels")
    except TrecFormatError as error:
        raise ImportProblem("qrels", str(error)) from error
    if not parsed:
        raise ImportProblem("qrels", "the qrels have no lines")
    judgements = {
        unicodedata.normalize("NFC", topic): {unicodedata.normalize("NFC", d): rel for d, rel in docs.items()}
        for topic, docs in parsed.items()
    }
    topics = set(project.topics.values_list("external_id", flat=True))
    unknown = natural_sorted(set(judgements) - topics)
    if unknown:
        raise ImportProblem("qrels", f"topic {unknown[0]!r} is not among the project's topics")
    try:
        with transaction.atomic():
            return ExternalQrels.objects.create(
                project=project,
                name=name,
                judgements=judgements,
                judged_count=sum(len(docs) for docs in judgements.values()),
                relevant_count=sum(rel > 0 for docs in judgements.values() for rel in docs.values()),
            )
    except IntegrityError as error:
        raise ImportProblem("name", f"the project already has external qrels named {name!r}") from error


def crowd_against_external(
    snapshot: GroundTruthSnapshot, external: ExternalQrels, relevance_level: int = 1
) -> dict:
    """Per topic: Cohen's kappa between the snapshot's labels and the external qrels on the documents
    both judge (none below ``ITEMS_FOR_KAPPA`` of them, with the reason), and how many of the
    external relevant documents the pool (the crowd) judged; the topics' mean kappa is weighted by
    their shared documents, and the kappa over every document both judge, all topics together,
    stands beside it."""
    crowd = snapshot_qrels(snapshot)
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
