"""A LitePyramid project's Pyramid scores from one ground-truth snapshot: each (SCU, summary) item's
aggregated label (the project's method, majority vote by default; ties as the project's tie rule
settles them) says whether the summary expresses the SCU; ``metrics.pyramid`` scores every summary and
system. Beside them, per system, how far the crowd agreed on its items: Fleiss' kappa and
Krippendorff's alpha of the presence answers (``annotation.crowd``)."""

from __future__ import annotations

from annotation.crowd.agreement.fleiss import fleiss_kappa
from annotation.crowd.agreement.krippendorff import krippendorff_alpha
from annotation.models import Judgement, Project, Task
from evaluation.ground_truth.downloads import rating_summary
from evaluation.metrics.intervals import OVER_INPUTS
from evaluation.metrics.pyramid import MEASURES, summary_scores, system_scores
from evaluation.models import ContentUnit, GroundTruthSnapshot
from evaluation.pyramid.importing import summary_document


def pyramid_inputs(project: Project) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """``{input: {SCU topic id: weight}}`` and each input's number of references (its imported
    references, else the most any SCU names)."""
    weights: dict[str, dict[str, int]] = {}
    for input_id, topic_id, weight in ContentUnit.objects.filter(project=project).values_list(
        "input_id", "topic_id", "weight"
    ):
        weights.setdefault(input_id, {})[str(topic_id)] = weight
    counts: dict[str, int] = {}
    for input_id in project.references.values_list("input_id", flat=True):
        counts[input_id] = counts.get(input_id, 0) + 1
    return weights, {i: counts.get(i) or max(w.values()) for i, w in weights.items()}


def snapshot_pyramid(snapshot: GroundTruthSnapshot) -> dict:
    """Every system's and summary's scores from the snapshot, and the summaries left out because some
    item of theirs has no label yet."""
    project = snapshot.project
    weights, references = pyramid_inputs(project)
    asked: dict[tuple[str, str], set[str]] = {}
    present: dict[tuple[str, str], set[str]] = {}
    unlabelled: set[tuple[str, str]] = set()
    labels = dict(snapshot.labels.values_list("task_id", "label"))
    items = (
        Task.objects.filter(project=project, kind=Task.Kind.ITEM)
        .order_by()
        .values_list("pk", "topic_id", "system_id", "input_id")
    )
    system_of: dict[int, str] = {}
    for task_id, topic_id, system, input_id in items:
        system_of[task_id] = system
        key = (system, input_id)
        asked.setdefault(key, set()).add(str(topic_id))
        present.setdefault(key, set())
        label = labels.get(task_id)
        if label is None:
            unlabelled.add(key)
        elif label == 1:
            present[key].add(str(topic_id))
    complete = {key: found for key, found in present.items() if key not in unlabelled}
    summaries = summary_scores(weights, complete, references, asked)
    systems = system_scores(summaries, OVER_INPUTS)
    agreement = agreement_per_system(project, system_of)
    return {
        "snapshot": snapshot.version,
        "method": snapshot.method,
        "measures": list(MEASURES),
        "interval": OVER_INPUTS.as_dict(),
        "systems": [
            {
                "system": s.system,
                "inputs": s.inputs,
                **{
                    measure: {"mean": v.mean, "low": v.low, "high": v.high, "reason": v.reason}
                    for measure, v in s.scores.items()
                },
                "agreement": agreement.get(s.system, {}),
            }
            for s in systems
        ],
        "summaries": [vars(s) for s in summaries],
        "summaries_waiting": len(unlabelled),
    }


def agreement_per_system(project: Project, system_of: dict[int, str]) -> dict[str, dict]:
    """Fleiss' kappa and Krippendorff's alpha of each system's presence answers (``system_of``: each
    item's system). One plain read of the judgements, without a join: a server-side cursor over the
    join made PostgreSQL pick a first-rows plan that took seconds."""
    triples: dict[str, list[tuple[int, int, int]]] = {}
    rows = (
        Judgement.objects.filter(project=project, label__isnull=False)
        .order_by("task_id")  # the items in one order, so the figures repeat to the last bit
        .values_list("task_id", "annotator_id", "label")
    )
    for task_id, annotator_id, label in rows:
        system = system_of.get(task_id)
        if system is not None and label is not None:  # an item's (gold and checks have no system here)
            triples.setdefault(system, []).append((task_id, annotator_id, label))
    out = {}
    for system, labels in triples.items():
        fleiss, alpha = fleiss_kappa(labels), krippendorff_alpha(labels)
        out[system] = {
            "fleiss_kappa": fleiss.value,
            "krippendorff_alpha": alpha.value,
            "items": fleiss.n_items,
            "items_excluded": fleiss.n_items_excluded,
        }
    return out


def output_scores(snapshot: GroundTruthSnapshot) -> dict:
    """Each output's human scores as ``ground_truth.downloads.rating_summary`` gives a rating project's:
    ``{"dimensions", "items": [{"system", "input", "document", "scores": {dimension: {"mean"}}}]}``;
    for a Pyramid project the dimensions are its three scores and an item is a summary."""
    if snapshot.project.task_type != Project.TaskType.SCU_PRESENCE:
        return rating_summary(snapshot)
    summaries = snapshot_pyramid(snapshot)["summaries"]
    return {
        "dimensions": list(MEASURES),
        "items": [
            {
                "system": row["system"],
                "input": row["input"],
                "document": summary_document(row["system"], row["input"]),
                "scores": {measure: {"mean": row[measure]} for measure in MEASURES},
            }
            for row in summaries
        ],
    }
