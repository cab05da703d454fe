"""The prior judgements a snapshot merges, read with the rest of its inputs (``ground_truth.read``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import F

from annotation.models import Project, Task
from evaluation.models import PriorJudgement
from evaluation.prior.settings import precedence_of


@dataclass
class PriorInputs:
    """``labels`` {(topic id, document id): label} over every prior set (where two sets judge a pair,
    the later dated, then the later imported, counts); each item's (topic, document) in ``pairs``;
    the topics' imported ids; the ``precedence``; the sets' names; ``fingerprinted``, what the
    snapshot's input fingerprint adds for them."""

    labels: dict[tuple[int, int], int]
    pairs: dict[int, tuple[int, int]]
    topics: dict[int, str]
    precedence: str
    sets: list[str]
    fingerprinted: tuple = field(default=())


def prior_inputs(project: Project) -> PriorInputs | None:
    """The project's prior judgements as a snapshot merges them; None when it has no prior set, so
    that such a project's inputs (and fingerprint) stay what they were."""
    rows = list(
        PriorJudgement.objects.filter(prior_qrels__project=project)
        .order_by(F("prior_qrels__judged_on").asc(nulls_first=True), "prior_qrels_id", "id")
        .values_list("prior_qrels_id", "prior_qrels__name", "topic_id", "document_id", "relevance")
    )
    if not rows:
        return None
    labels: dict[tuple[int, int], int] = {}
    sets: dict[int, str] = {}
    for set_id, name, topic, document, relevance in rows:
        labels[(topic, document)] = relevance
        sets[set_id] = name
    items = Task.objects.filter(project=project, kind=Task.Kind.ITEM, document_b__isnull=True)
    pairs = {
        pk: (topic, document) for pk, topic, document in items.values_list("pk", "topic_id", "document_id")
    }
    precedence = precedence_of(project)
    fingerprinted = (precedence, sorted((s, t, d, r) for s, _, t, d, r in rows))
    return PriorInputs(
        labels=labels,
        pairs=pairs,
        topics=dict(project.topics.values_list("pk", "external_id")),
        precedence=precedence,
        sets=list(sets.values()),
        fingerprinted=fingerprinted,
    )
