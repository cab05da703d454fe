"""Inferred measures of a project's runs from its stratified sampled pool: xinfAP, infNDCG, iP@k and the
inferred numbers relevant as NIST's ``sample_eval.pl``, and statAP as ``statAP_MQ_eval_v3.pl``
(``evaluation.metrics.trec.inferred``, ``stat_ap``), against one ground-truth snapshot's sample qrels
(``ground_truth.sampled``). Loads, calls the pure core, returns plain data."""

from __future__ import annotations

from evaluation.collection.runs import stored_run
from evaluation.ground_truth.sampled import sample_qrels
from evaluation.metrics.trec.inferred import InferredError, sample_eval
from evaluation.metrics.trec.stat_ap import inclusion_probabilities, stat_ap
from evaluation.models import GroundTruthSnapshot


def inferred_measures(snapshot: GroundTruthSnapshot) -> dict | None:
    """``{"design", "runs": [{"run", "tag", "infAP", "infNDCG", "iP10", "iP50", "iP1000",
    "inum_rel_ret", "inum_rel", "statAP", "topics"}]}`` for every run not withdrawn, in tag order;
    None when the project has no sampled pool. A run sharing no topic with the sample has null
    values and its ``reason``; statAP is null when no topic has a drawn relevant document."""
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
            rows.append({**row, "infAP": None, "infNDCG": None, "statAP": None, "reason": str(error)})
            continue
        row.update(
            infAP=result.infAP,
            infNDCG=result.infNDCG,
            **{f"iP{k}": value for k, value in result.precision.items()},
            inum_rel_ret=result.inum_rel_ret,
            inum_rel=result.inum_rel,
            topics=len(result.topics),
        )
        try:
            row["statAP"] = stat_ap(probabilities, ranked).stat_map
        except ValueError:
            row["statAP"] = None
        rows.append(row)
    design = project.sampled_pool.values_list("design", flat=True).first()
    return {"snapshot": snapshot.version, "design": design, "runs": rows}
