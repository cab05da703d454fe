"""Score runs against a ground truth: read (runs, qrels) → compute (``evaluation.metrics``) → write.

Each run is scored alone (``score_run``), so a job can fan the runs out over workers. Besides every
trec_eval measure, per topic and overall, a run's score row keeps what the trust checks need from
it: its unjudged shares, its score without the documents only it (or its group) put into the pool,
and its score under each alternative ground truth (``variants``).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from django.db import transaction

from annotation.crowd.io.encoding import encode
from annotation.models import Project, Task
from evaluation.collection.runs import pooled_documents, ranked_lists
from evaluation.ground_truth.compute import aggregate
from evaluation.ground_truth.downloads import snapshot_qrels
from evaluation.ground_truth.read import DEFAULT_TIE_RULE, gold_inputs, ground_truth_judgements
from evaluation.metrics.trec.files import Qrels, RunColumns
from evaluation.metrics.trec.measures import DEFAULT_CUTOFFS, parse_measures
from evaluation.metrics.trec.measures import aggregate as mean_over_topics
from evaluation.metrics.trec.retrieved_sets import set_measures, topic_confusions
from evaluation.metrics.trec.sample_files import SampleQrels
from evaluation.metrics.trec.shared_index import DocumentIndex, QrelsValues, evaluate_in_order
from evaluation.metrics.trust import unique_contributions, unjudged_share_of_rankings
from evaluation.models import Evaluation, RankedList, Run, RunScore
from evaluation.scoring.inferred import evaluation_sample, inferred_scores

# Raise when a change to the code changes a stored score for the same inputs; part of every signature.
CODE_VERSION = 1
MEASURES = "all_trec"
# The measure the trust checks rank runs by (pool bias, stability).
CHECK_MEASURE = "map"
UNJUDGED_CUTOFFS = (10, 100)
# Parsed once, not for each of a run's seven scorings.
SCORED, CHECKED = parse_measures([MEASURES]), parse_measures([CHECK_MEASURE])
# Random halves of the annotators, each aggregated by majority vote: how far the ranking depends on
# who judged.
HALVES_SEED = 0


def signature(evaluation: Evaluation) -> str:
    """What the numbers depend on, as ``key:value`` fields joined by ``|`` (sacrebleu's style)."""
    if evaluation.snapshot is not None:
        truth = f"gt:v{evaluation.snapshot.version}+{evaluation.snapshot.method}"
    else:
        truth = f"qrels:{evaluation.external_qrels.name}"  # type: ignore[union-attr]
    fields = [
        truth,
        f"l:{evaluation.relevance_level}",
        f"J:{'yes' if evaluation.judged_only else 'no'}",
        "c:yes",
        f"cutoffs:{','.join(map(str, DEFAULT_CUTOFFS))}",
        f"m:{MEASURES}",
        f"version:cranfield-eval-{CODE_VERSION}",
    ]
    # Asked-for measures beyond all_trec, named only when asked (older signatures stay as they were).
    if evaluation.f_beta != 1.0:
        fields.insert(-1, f"F-beta:{evaluation.f_beta:g}")
    if evaluation.ndcg_gains:
        fields.insert(-1, f"ndcg-gains:{evaluation.ndcg_gains}")
    if evaluation.collection_size is not None:
        fields.insert(-1, f"N:{evaluation.collection_size}")
    design = evaluation.project.sampled_pool.values_list("design", flat=True).first()
    if evaluation.snapshot is not None and design:  # the inferred measures depend on the sample drawn
        fields.insert(-1, f"sample:{design}")
    return "|".join(fields)


def ground_truth_qrels(evaluation: Evaluation) -> Qrels:
    """The qrels the evaluation scores against: its snapshot's labels, or the external qrels."""
    if evaluation.snapshot is not None:
        return snapshot_qrels(evaluation.snapshot)
    return evaluation.external_qrels.judgements  # type: ignore[union-attr]


@dataclass
class ScoringContext:
    """What scoring any run of one evaluation reads besides the run itself, read once per process."""

    qrels: Qrels
    contributions: dict[str, dict[str, set[str]]]  # pooled run tag -> topic -> documents it pooled
    groups: dict[str, str]  # run tag -> its group (its tag if it has none)
    # The ground truth and each variant by one document numbering (``shared_index``), so that a run's
    # documents are looked up once, not once per qrels.
    index: DocumentIndex
    values: QrelsValues
    variants: dict[str, QrelsValues]
    options: dict = field(default_factory=dict)  # trec_eval options: relevance level, -J
    extra: list = field(default_factory=list)  # measures asked for beyond all_trec (``extra_measures``)
    collection_size: int | None = None  # for each topic's accuracy, specificity and fallout
    sample: SampleQrels | None = None  # a sampled pool's sample qrels (``inferred.evaluation_sample``)


def scoring_context(evaluation: Evaluation) -> ScoringContext:
    project = evaluation.project
    qrels = ground_truth_qrels(evaluation)
    variants = evaluation.variant_qrels
    index = DocumentIndex([qrels, *variants.values()])
    return ScoringContext(
        qrels=qrels,
        contributions=pool_contributions(project),
        groups={tag: group or tag for tag, group in project.runs.values_list("tag", "group")},
        index=index,
        values=index.values(qrels),
        variants={name: index.values(variant) for name, variant in variants.items()},
        options={"relevance_level": evaluation.relevance_level, "judged_only": evaluation.judged_only},
        extra=extra_measures(evaluation),
        collection_size=evaluation.collection_size,
        sample=evaluation_sample(evaluation),
    )


def extra_measures(evaluation: Evaluation) -> list:
    """The trec_eval measures asked for beyond all_trec: F with the evaluation's beta (``set_F.β²``,
    printed ``set_F_<β²>``) and nDCG with its gains (``ndcg.<gains>``, printed ``ndcg_<gains>``)."""
    specs = []
    if evaluation.f_beta != 1.0:
        specs.append(f"set_F.{evaluation.f_beta**2:g}")
    if evaluation.ndcg_gains:
        specs.append(f"ndcg.{evaluation.ndcg_gains}")
    return parse_measures(specs) if specs else []


# The set figures trec_eval has no measure for (precision, recall and F it has: set_P, set_recall, set_F).
SET_ONLY = ("accuracy", "specificity", "fallout")


def set_measures_of(ranked: RunColumns, qrels: Qrels, level: int, size: int) -> dict[str, dict[str, float]]:
    """Each qrels topic's accuracy, specificity and fallout of everything the run retrieved, in a
    collection of ``size`` documents (``cranfield sets``' figures): ``{topic: {name: value}}``."""
    run = {topic: dict(zip(c.docnos, c.scores.tolist(), strict=True)) for topic, c in ranked.items()}
    confusions = topic_confusions(qrels, run, relevance_level=level, collection_size=size)
    return {
        topic: {f"set_{name}": value for name, value in set_measures(confusion).items() if name in SET_ONLY}
        for topic, confusion in confusions.items()
    }


def pool_contributions(project: Project) -> dict[str, dict[str, set[str]]]:
    """Which documents each pooled run put into the pool: ``{run tag: {topic: {document}}}``."""
    contributions: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for tag, topic, documents in pooled_documents(RankedList.objects.filter(run__project=project)):
        contributions[tag][topic].update(documents)
    return contributions


def score_run(
    evaluation: Evaluation,
    run: Run,
    context: ScoringContext | None = None,
    still_wanted: Callable[[], None] = lambda: None,
) -> RunScore:
    """Score one run in one evaluation and store it (a second call for the same pair returns the
    stored row: a redelivered sub-task does no harm). ``still_wanted`` is called in the storing
    transaction and raises if the score must not be stored (the job was cancelled meanwhile)."""
    existing = RunScore.objects.filter(evaluation=evaluation, run=run).first()
    if existing is not None:
        return existing
    context = context or scoring_context(evaluation)
    ranked = ranked_lists(run.pk)  # each topic's documents in trec_eval's order
    positions = {topic: context.index.positions(topic, columns.docnos) for topic, columns in ranked.items()}
    per_topic = evaluate_in_order(context.values, positions, SCORED + context.extra, **context.options)
    if context.collection_size is not None:
        level = context.options["relevance_level"]
        for topic, values in set_measures_of(ranked, context.qrels, level, context.collection_size).items():
            per_topic.setdefault(topic, {}).update(values)
    overall = mean_over_topics(per_topic) if per_topic else {}
    by_measure: dict[str, dict[str, float | str]] = defaultdict(dict)
    for topic, values in per_topic.items():
        for name, value in values.items():
            by_measure[name][topic] = value
    if context.sample is not None:
        scores = {topic: dict(zip(c.docnos, c.scores.tolist(), strict=True)) for topic, c in ranked.items()}
        inferred_overall, inferred_per_topic = inferred_scores(context.sample, scores)
        overall = {**overall, **inferred_overall}
        for name, topics in inferred_per_topic.items():
            by_measure[name].update(topics)
    checks = {
        "unjudged": unjudged_check(ranked, context.qrels),
        "left_out": left_out_check(run, positions, context),
        "variants": {
            name: check_score(values, positions, context.options) for name, values in context.variants.items()
        },
    }
    with transaction.atomic():
        still_wanted()
        row, _ = RunScore.objects.get_or_create(
            evaluation=evaluation,
            run=run,
            defaults={"overall": overall, "per_topic": dict(by_measure), "checks": checks},
        )
    return row


def check_score(qrels: QrelsValues, positions: dict[str, np.ndarray], options: dict) -> float:
    """The run's score on the check measure over every topic of ``qrels`` (0 for no topic)."""
    per_topic = evaluate_in_order(qrels, positions, CHECKED, **options)
    return mean_over_topics(per_topic)[CHECK_MEASURE] if per_topic else 0.0


def unjudged_check(ranked: RunColumns, qrels: Qrels) -> dict[str, float]:
    """The mean over the qrels' topics of the share of the run's top k that is unjudged, per k."""
    rankings = {topic: columns.docnos for topic, columns in ranked.items()}  # stored in trec_eval's order
    shares = unjudged_share_of_rankings(rankings, qrels, UNJUDGED_CUTOFFS)
    topics = list(qrels)
    # A topic the run lacks has every one of its top k unjudged (there is none to judge).
    return {
        str(k): sum(shares.get(topic, {}).get(k, 1.0) for topic in topics) / len(topics) if topics else 0.0
        for k in UNJUDGED_CUTOFFS
    }


def left_out_check(run: Run, positions: dict[str, np.ndarray], context: ScoringContext) -> dict:
    """The run's check score without the judged documents only its group put into the pool
    (Zobel 1998): how it would fare had it not been pooled. An unpooled run contributed nothing."""
    group = context.groups.get(run.tag, run.tag)
    members = [tag for tag in context.contributions if context.groups.get(tag, tag) == group]
    unique = unique_contributions(context.contributions, members) if run.pool_depth else {}
    qrels = context.qrels
    judged_unique = {topic: docs & set(qrels.get(topic, {})) for topic, docs in unique.items()}
    level = context.options["relevance_level"]
    return {
        "score": check_score(context.values.without(unique), positions, context.options),
        "unique_documents": sum(len(docs) for docs in judged_unique.values()),
        "unique_relevant": sum(
            1 for topic, docs in judged_unique.items() for doc in docs if int(qrels[topic][doc]) >= level
        ),
    }


# -- alternative ground truths, for the ranking-stability check --------------------------------------


def variant_qrels(evaluation: Evaluation) -> dict[str, Qrels]:
    """Other ground truths to rank the runs under: for a snapshot, the same judgements aggregated by
    other methods and by two random halves of the annotators, and every external qrels of the
    project; for external qrels, the newest snapshot."""
    project = evaluation.project
    variants: dict[str, Qrels] = {}
    if evaluation.snapshot is not None:
        variants.update(aggregation_variants(project, evaluation.snapshot.input_last_judgement_id))
        for external in project.external_qrels.all():
            variants[f"external: {external.name}"] = external.judgements
    else:
        snapshot = project.snapshots.order_by("-version").first()
        if snapshot is not None:
            variants[f"crowd: ground truth v{snapshot.version}"] = snapshot_qrels(snapshot)
    return variants


def aggregation_variants(project: Project, last_judgement_id: int) -> dict[str, Qrels]:
    """The project's judgements (up to the snapshot's newest) aggregated by majority vote,
    Dawid–Skene and, with gold items, the gold-weighted vote; and by majority vote on each of two
    random halves of the annotators."""
    if not project.type.judged_for_topic:
        return {}
    rows = list(
        ground_truth_judgements(project)
        .filter(id__lte=last_judgement_id)
        .values_list("task_id", "annotator_id", "label")
    )
    if not rows:
        return {}
    pairs = {
        task: (topic, document)
        for task, topic, document in Task.objects.filter(project=project, kind=Task.Kind.ITEM).values_list(
            "pk", "topic__external_id", "document__external_id"
        )
    }
    gold_triples, gold = gold_inputs(project)
    data = encode(rows)
    with_gold = encode(rows + gold_triples) if gold_triples else data
    methods = [Project.GroundTruthMethod.MAJORITY, Project.GroundTruthMethod.DAWID_SKENE]
    if gold:
        methods.append(Project.GroundTruthMethod.GOLD_WEIGHTED)
    variants = {
        f"method: {method}": as_qrels(
            aggregate(data, method, DEFAULT_TIE_RULE, with_gold, gold).labels, pairs
        )
        for method in methods
    }
    annotators = sorted({annotator for _, annotator, _ in rows})
    random.Random(HALVES_SEED).shuffle(annotators)
    first_half = set(annotators[: len(annotators) // 2])
    for name, in_first in (("annotators: first half", True), ("annotators: second half", False)):
        half_rows = [row for row in rows if (row[1] in first_half) == in_first]
        if half_rows:
            subset = encode(half_rows)
            majority = aggregate(subset, Project.GroundTruthMethod.MAJORITY, DEFAULT_TIE_RULE, subset, {})
            variants[name] = as_qrels(majority.labels, pairs)
    return variants


def as_qrels(labels: dict, pairs: dict) -> Qrels:
    """Task labels as qrels, by each task's (topic, document)."""
    qrels: Qrels = {}
    for task, label in labels.items():
        topic, document = pairs[task]
        qrels.setdefault(topic, {})[document] = int(label)
    return qrels
