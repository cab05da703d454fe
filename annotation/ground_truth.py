"""Build a versioned ground-truth snapshot from a project's judgements.

A thin shell: load the judgements, call the pure agreement and aggregation functions in
``annotation.crowd``, store the result atomically.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max

from evaluation.models import GroundTruthSnapshot, SnapshotLabel

from .crowd.aggregation import AggregationResult, dawid_skene, majority_vote
from .crowd.agreement import cohen_kappa_pairs, fleiss_kappa, krippendorff_alpha
from .models import Judgement, Project

DEFAULT_TIE_RULE = "smallest"


def aggregate(triples: list, method: str, tie_rule: str) -> AggregationResult:
    """The aggregate label of every task by the named method."""
    if method == Project.GroundTruthMethod.DAWID_SKENE:
        return dawid_skene(triples)
    return majority_vote(triples, tie_rule=tie_rule)


def agreement_figures(triples: list) -> dict:
    """Fleiss' kappa, mean pairwise Cohen's kappa and Krippendorff's alpha, each with what it rests on."""
    fleiss = fleiss_kappa(triples)
    cohen = cohen_kappa_pairs(triples)
    alpha = krippendorff_alpha(triples)
    return {
        "fleiss_kappa": fleiss.value,
        "n_items": fleiss.n_items,
        "n_workers": fleiss.n_workers,
        "fleiss_items_excluded": fleiss.n_items_excluded,
        "cohen_kappa_mean": cohen.mean,
        "cohen_pairs": len(cohen.pairs),
        "krippendorff_alpha": alpha.value,
        "krippendorff_n_items": alpha.n_items,
    }


def build_snapshot(
    project_id: int, *, method: str | None = None, tie_rule: str = DEFAULT_TIE_RULE
) -> GroundTruthSnapshot | None:
    """Write a new snapshot for the project, or return ``None`` if nothing changed since the last one.

    1. Lock the project row, so two jobs for one project run one after the other.
    2. Compare the judgements' count and newest id with the latest snapshot's inputs; stop if equal.
    3. Compute the agreement figures and the aggregate label per task (``method``, default the
       project's own: majority vote or Dawid–Skene).
    4. Store the snapshot and one label per judged task in the same transaction.
    """
    with transaction.atomic():
        project = Project.objects.select_for_update().get(pk=project_id)
        judgements = Judgement.objects.filter(task__project=project)
        inputs = judgements.aggregate(last=Max("id"))
        count = judgements.count()
        latest = project.snapshots.order_by("-version").first()
        if count == 0 or (
            latest is not None
            and latest.input_judgement_count == count
            and latest.input_last_judgement_id == inputs["last"]
        ):
            return None

        method = method or project.ground_truth_method
        triples = list(judgements.values_list("task_id", "annotator_id", "label"))
        vote = aggregate(triples, method, tie_rule)
        judgement_counts: dict[int, int] = {}
        for task_id, _, _ in triples:
            judgement_counts[task_id] = judgement_counts.get(task_id, 0) + 1

        version = (latest.version + 1) if latest else 1
        snapshot = GroundTruthSnapshot.objects.create(
            project=project,
            version=version,
            method=method,
            parameters={key: value for key, value in vote.parameters.items() if key != "worker_reliability"},
            input_judgement_count=count,
            input_last_judgement_id=inputs["last"],
            agreement=agreement_figures(triples) | {"ties": sorted(vote.ties)},
            signature=(
                f"cranfield-gt|method:{method}|"
                + "|".join(
                    f"{k}:{v}" for k, v in sorted(vote.parameters.items()) if k != "worker_reliability"
                )
                + f"|judgements:{count}|last:{inputs['last']}|v:{version}"
            ),
        )
        SnapshotLabel.objects.bulk_create(
            SnapshotLabel(
                snapshot=snapshot,
                task_id=task_id,
                label=int(label),
                confidence=float(vote.confidence[task_id]),
                judgement_count=judgement_counts[task_id],
            )
            for task_id, label in vote.labels.items()
        )
        return snapshot


def snapshot_qrels_lines(snapshot: GroundTruthSnapshot) -> list[str]:
    """The snapshot as TREC qrels lines (``topic 0 docno label``), sorted by topic then docno."""
    rows = snapshot.labels.values_list("task__topic__external_id", "task__document__external_id", "label")
    return [f"{topic} 0 {docno} {label}" for topic, docno, label in sorted(rows)]
