"""Pooling that reuses prior judgements: the (topic, document) pairs a prior set already judges are
left out of a new pool, unless the researcher asks for them to be judged again (an overlap audit,
whose crowd labels the agreement with the prior sets is measured on)."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from annotation.models import Project, Task
from evaluation.models import PriorJudgement

Pool = dict[str, dict[str, int]]  # {topic: {document: position}}, as ``collection.runs.pool_runs``


@dataclass(frozen=True)
class Reuse:
    """What a pool's prior judgements changed: ``judged`` new pairs of the pool a prior set already
    judges, ``skipped`` of them left out (0 when judged again), ``judgements_saved`` = skipped × k."""

    judged: int = 0
    skipped: int = 0
    judgements_saved: int = 0


def prior_pairs(project: Project) -> set[tuple[str, str]]:
    """Every (topic, document) of the project that some prior set judges, by imported ids."""
    rows = PriorJudgement.objects.filter(prior_qrels__project=project).values_list(
        "topic__external_id", "document__external_id"
    )
    return set(rows.iterator(chunk_size=5000))


def item_pairs(project: Project) -> set[tuple[str, str]]:
    """Every (topic, document) already an item of the project (pooling adds no second one)."""
    rows = Task.objects.filter(project=project, kind=Task.Kind.ITEM, document_b__isnull=True).values_list(
        "topic__external_id", "document__external_id"
    )
    return set(rows.iterator(chunk_size=5000))


def skip_judged(pool: Pool, judged: Set[tuple[str, str]], items: Set[tuple[str, str]]) -> tuple[Pool, int]:
    """``pool`` without the pairs in ``judged``, and how many of those would have been new items
    (pairs already in ``items`` cost nothing more either way). Each topic keeps its order."""
    kept: Pool = {}
    saved = 0
    for topic, documents in pool.items():
        left = {}
        for document, position in documents.items():
            if (topic, document) in judged:
                saved += (topic, document) not in items
            else:
                left[document] = position
        if left:
            kept[topic] = left
    return kept, saved


def reuse_prior(project: Project, pool: Pool, judge_prior: bool) -> tuple[Pool, Reuse]:
    """The pool to turn into items, and what the project's prior sets saved: with ``judge_prior``
    the pool as it is (the judged pairs counted, none skipped), otherwise without the judged pairs.
    A project with no prior set reads nothing more than its pool."""
    if not pool or not PriorJudgement.objects.filter(prior_qrels__project=project).exists():
        return pool, Reuse()
    judged = prior_pairs(project)
    items = item_pairs(project)
    kept, new_judged = skip_judged(pool, judged, items)
    if judge_prior:
        return pool, Reuse(judged=new_judged)
    return kept, Reuse(new_judged, new_judged, new_judged * project.assignments_per_task)
