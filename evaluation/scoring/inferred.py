"""Inferred measures of a project's runs from its stratified sampled pool: xinfAP, infNDCG, iP@k and the
inferred numbers relevant as NIST's ``sample_eval.pl``, and statAP as ``statAP_MQ_eval_v3.pl``
(``evaluation.metrics.trec.inferred``, ``stat_ap``), against one ground-truth snapshot's sample qrels
(``ground_truth.sampled``). Loads, calls the pure core, returns plain data."""

from __future__ import annotations

from evaluation.collection.runs import stored_run
from evaluation.ground_truth.sampled import sample_qrels
from evaluation.metrics.trec.files import Run
from evaluation.metrics.trec.inferred import InferredError, sample_eval
from evaluation.metrics.trec.sample_files import SampleQrels
from evaluation.metrics.trec.stat_ap import inclusion_probabilities, stat_ap
from evaluation.models import Evaluation, GroundTruthSnapshot

# The names an evaluation's scores carry them under: "xinfAP", not sample_eval.pl's "infAP", which
# all_trec already uses for trec_eval's infAP (Yilmaz & Aslam 2006, from qrels with -2 for unjudged).
INFERRED_MEASURES = ("xinfAP", "infNDCG", "statAP")


def evaluation_sample(evaluation: Evaluation) -> SampleQrels | None:
    """The sample qrels an evaluation of a snapshot also scores inferred measures against: its
    snapshot's, when the project has a sampled pool (None otherwise, and for external qrels)."""
    snapshot = evaluation.snapshot
    if snapshot is None or not evaluation.project.sampled_pool.exists():
        return None
    return sample_qrels(snapshot) or None


def inferred_scores(sample: SampleQrels, run: Run) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """``(overall, {measure: {topic: value}})`` of ``INFERRED_MEASURES`` for one run; empty when the run
    shares no topic with the sample. statAP's mean is over every topic sample_eval.pl averages (a
    topic without a drawn relevant document counts 0), so the three average the same topics."""
    try:
        result = sample_eval(sample, run)
    except InferredError:
        return {}, {}
    per_topic: dict[str, dict[str, float]] = {
        "xinfAP": {topic: values.infAP for topic, values in result.topics.items()},
        "infNDCG": {topic: values.infNDCG for topic, values in result.topics.items()},
    }
    overall = {"xinfAP": result.infAP, "infNDCG": result.infNDCG}
    try:
        stat = stat_ap(inclusion_probabilities(sample), run)
    except ValueError:
        stat_topics: dict[str, float] = {}
    else:
        stat_topics = {topic: values.stat_ap for topic, values in stat.topics.items()}
    per_topic["statAP"] = {topic: stat_topics.get(topic, 0.0) for topic in result.topics}
    overall["statAP"] = sum(per_topic["statAP"].values()) / len(result.topics)
    return overall, per_topic


def inferred_measures(snapshot: GroundTruthSnapshot) -> dict | None:
    """``{"snapshot", "design", "runs": [{"run", "tag", "xinfAP", "infNDCG", "iP10", "iP50", "iP1000",
    "inum_rel_ret", "inum_rel", "statAP", "statMAP_on_valid_topics", "topics"}]}`` for every run not
    withdrawn, in tag order; None when the project has no sampled pool. statAP averages the topics
    xinfAP averages (``inferred_scores``); ``statMAP_on_valid_topics`` is statAP_MQ_eval_v3.pl's own
    mean, over the topics with a drawn relevant document only (null if there is none). A run sharing
    no topic with the sample has null values and its ``reason``."""
    qrels = sample_qrels(snapshot)
    if not qrels:
        return None
    probabilities = inclusion_probabilities(qrels)
    project = snapshot.project
    rows = []
    for run in project.runs.filter(withdrawn_at__isnull=True).order_by("tag"):
        ranked = stored_run(run.pk)
        row: dict = {"run": run.pk, "tag": run.tag}
        try:
            result = sample_eval(qrels, ranked)
        except InferredError as error:
            rows.append({**row, "xinfAP": None, "infNDCG": None, "statAP": None, "reason": str(error)})
            continue
        overall, _ = inferred_scores(qrels, ranked)
        row.update(
            xinfAP=result.infAP,
            infNDCG=result.infNDCG,
            **{f"iP{k}": value for k, value in result.precision.items()},
            inum_rel_ret=result.inum_rel_ret,
            inum_rel=result.inum_rel,
            statAP=overall["statAP"],
            topics=len(result.topics),
        )
        try:
            row["statMAP_on_valid_topics"] = stat_ap(probabilities, ranked).stat_map
        except ValueError:
            row["statMAP_on_valid_topics"] = None
        rows.append(row)
    design = project.sampled_pool.values_list("design", flat=True).first()
    return {"snapshot": snapshot.version, "design": design, "runs": rows}
