"""Attention-check results per annotator for rating projects: a thin loader around
``annotation.crowd.quality.attention``."""

from __future__ import annotations

from collections import defaultdict

from annotation.crowd.quality.attention import CheckResult, score_checks
from annotation.models import Judgement, JudgementRevision, Project, Task


def attention_results(project: Project, annotator_id: int | None = None) -> dict[int, CheckResult]:
    """``{annotator_id: CheckResult}`` over the repeats and degraded outputs each annotator rated
    (only ``annotator_id``'s when given: a study link's screen-out asks at a worker's claims).

    Scored on first answers (a later correction cannot repair a failed check). A degraded output
    is compared with the annotator's own rating of the original when they gave one, else with the
    mean of everyone's ratings of it; with neither it is not scored.
    """
    checks = Judgement.objects.filter(
        task__project=project, task__kind__in=[Task.Kind.REPEAT, Task.Kind.DEGRADED]
    )
    revisions = JudgementRevision.objects.filter(judgement__task__project=project, number=1)
    if annotator_id is not None:
        checks = checks.filter(annotator_id=annotator_id)
    rows = list(checks.values_list("task__kind", "task__source_task_id", "task_id", "annotator_id"))
    if annotator_id is not None:
        if not rows:
            return {}
        # The worker's checks and the items they repeat or spoil: nothing else is read.
        tasks = {task_id for _, _, task_id, _ in rows} | {source for _, source, _, _ in rows if source}
        revisions = revisions.filter(judgement__task_id__in=tasks)
    first = {
        (task_id, annotator): answer.get("scores", {})
        for task_id, annotator, answer in revisions.values_list(
            "judgement__task_id", "judgement__annotator_id", "answer"
        )
    }
    originals: dict[int, list[dict]] = defaultdict(list)
    for (task_id, _), scores in first.items():
        originals[task_id].append(scores)

    def mean_rating(task_id: int) -> dict | None:
        ratings = originals.get(task_id)
        if not ratings:
            return None
        dimensions = ratings[0].keys()
        return {d: sum(r[d] for r in ratings) / len(ratings) for d in dimensions}

    repeats: dict[int, list] = defaultdict(list)
    degraded: dict[int, list] = defaultdict(list)
    for kind, source_id, task_id, annotator in rows:
        if source_id is None:  # every check task has a source item; says so to the type checker
            continue
        given = first.get((task_id, annotator))
        own = first.get((source_id, annotator))
        if kind == Task.Kind.REPEAT and own is not None:
            repeats[annotator].append((own, given))
        elif kind == Task.Kind.DEGRADED:
            original = own if own is not None else mean_rating(source_id)
            if original is not None:
                degraded[annotator].append((original, given))
    return {
        annotator: score_checks(repeats.get(annotator, []), degraded.get(annotator, []))
        for annotator in set(repeats) | set(degraded)
    }
