"""Text evaluations: a text project's outputs scored against their inputs' references, as a job.

The outputs are the project's items that name their system and input (``Task.system_id``,
``input_id``; the item's document is the output's text); the references are the project's
``Reference`` rows for each input, imported with the collection or taken in one step from a
free-text (reference-writing) project (``references_from_free_text``). The scoring itself is
``metrics.text_scores`` (pure); this module is the Django and Celery shell around it: request, run
on a worker (or the embedded runner), store every output's scores and every system's means with the
metrics' signatures, fail with the reason.

Security behavior: only the project's owner requests or reads them (the API and the page check
``owned_project``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from celery import current_app, group
from django.conf import settings
from django.db import OperationalError, transaction
from django.db.models import Min
from django.utils import timezone

from annotation.models import Project, Task
from evaluation.collection.references import import_references
from evaluation.jobs import lifecycle
from evaluation.metrics.text.scores import (
    METRICS,
    Output,
    TextScores,
    check_metrics,
    score_outputs,
    signatures,
    system_means,
)
from evaluation.models import OutputScore, Reference, TextEvaluation

logger = logging.getLogger(__name__)
Status = TextEvaluation.Status


class ReferencesProblem(ValueError):
    """A one-step reference copy that cannot be done; the message says why."""


def output_tasks(project: Project):
    """The items that are outputs: they name their system and input (no gold, checks or qualification);
    one per output, the first, where several items show it (a Pyramid project asks of each SCU)."""
    items = (
        Task.objects.filter(project=project, kind=Task.Kind.ITEM).exclude(system_id="").exclude(input_id="")
    )
    first = items.order_by().values("system_id", "input_id").annotate(first=Min("id")).values("first")
    return (
        Task.objects.filter(pk__in=first).select_related("document").order_by("system_id", "input_id", "id")
    )


def request_text_evaluation(
    project: Project,
    *,
    rouge_multi_ref: str = "max",
    stem: bool = True,
    metrics: Sequence[str] = METRICS,
) -> TextEvaluation:
    """Queue a text evaluation (or join the one with the same settings still waiting);
    ValueError if ``metrics`` names an unknown metric or none."""
    chosen = check_metrics(metrics)
    with transaction.atomic():
        waiting = TextEvaluation.objects.filter(
            project=project,
            rouge_multi_ref=rouge_multi_ref,
            stem=stem,
            metrics=chosen,
            status=Status.QUEUED,
        ).first()
        if waiting is not None:
            return waiting
        evaluation = TextEvaluation.objects.create(
            project=project, rouge_multi_ref=rouge_multi_ref, stem=stem, metrics=chosen, stage="queued"
        )
        transaction.on_commit(lambda: send(evaluation))
    return evaluation


def send(evaluation: TextEvaluation) -> None:
    lifecycle.send(TEXT_EVALUATIONS, evaluation)


def fail(evaluation_id: int, error: str) -> None:
    lifecycle.fail(TEXT_EVALUATIONS, evaluation_id, error)


def outputs_per_part() -> int:
    """Outputs per sub-task (setting ``TEXT_OUTPUTS_PER_PART``, 200): TER takes milliseconds on an
    output of a few sentences, so a part takes seconds, well inside the worker's time limit whatever
    the campaign's size, and reports progress as it goes; the parts of one job run on as many worker
    processes as there are."""
    return max(1, int(settings.TEXT_OUTPUTS_PER_PART))


def start(evaluation_id: int) -> int:
    """The task ``tasks.run_text_evaluation``: claim a queued job (a redelivered message does nothing):
    fix its outputs and fan them out in parts of ``outputs_per_part()``, one sub-task each
    (``score_text_part``); without a worker, score the parts here one after the other. A job started again
    after a loss starts its parts afresh (what its earlier attempt stored is removed first). Returns how
    many outputs were sent."""
    if not lifecycle.claim(TEXT_EVALUATIONS, evaluation_id, stage="reading outputs"):
        return 0
    evaluation = TextEvaluation.objects.select_related("project").get(pk=evaluation_id)
    try:
        if evaluation.attempts > 1:
            OutputScore.objects.filter(evaluation_id=evaluation_id).delete()
        task_ids = list(output_tasks(evaluation.project).values_list("pk", flat=True))
        size = outputs_per_part()
        parts = [task_ids[i : i + size] for i in range(0, len(task_ids), size)]
        TextEvaluation.objects.filter(pk=evaluation_id).update(part_count=len(parts), parts_done={})
        lifecycle.progress(TEXT_EVALUATIONS, evaluation_id, f"scoring {len(task_ids):,} outputs", 0.02)
    except lifecycle.JobStopped:
        return 0
    except OperationalError:
        lifecycle.requeue(TEXT_EVALUATIONS, evaluation_id, "waiting to retry after a database error")
        raise
    if not parts:
        finish(evaluation_id)
    elif current_app.conf.task_always_eager:
        for number, part in enumerate(parts):
            score_one_part(evaluation_id, number, part)
    else:
        part_task = lifecycle.task_named(SCORE_PART_TASK)
        group(part_task.s(evaluation_id, number, part) for number, part in enumerate(parts)).apply_async()
    return len(task_ids)


def score_one_part(evaluation_id: int, number: int, task_ids: list[int]) -> None:
    """The task ``tasks.score_text_part``: score one part's outputs and store them with the part's number,
    in one transaction under the job row's lock: a redelivered part that was stored does nothing, and the
    part that completes the job finishes it, exactly once."""
    evaluation = TextEvaluation.objects.filter(pk=evaluation_id, status=Status.RUNNING).first()
    if evaluation is None or str(number) in evaluation.parts_done:
        return
    try:
        with lifecycle.running(TEXT_EVALUATIONS, evaluation_id):
            tasks, result = score_part(evaluation, task_ids)
            lifecycle.pause_for_tests()
            store_part(evaluation_id, number, tasks, result)
    except lifecycle.JobStopped:
        return
    except OperationalError:
        raise  # retried
    except Exception as error:
        logger.exception("text evaluation %s failed", evaluation_id)
        fail(evaluation_id, f"{type(error).__name__}: {error}")


def score_part(evaluation: TextEvaluation, task_ids: list[int]) -> tuple[list[Task], TextScores]:
    tasks = list(Task.objects.filter(pk__in=task_ids).select_related("document"))
    references: dict[str, list[str]] = {}
    for input_id, text in Reference.objects.filter(
        project_id=evaluation.project_id, input_id__in={task.input_id for task in tasks}
    ).values_list("input_id", "text"):
        references.setdefault(input_id, []).append(text)
    result = score_outputs(
        [Output(task.system_id, task.input_id, task.document.text) for task in tasks],
        references,
        rouge_multi_ref=evaluation.rouge_multi_ref,
        stem=evaluation.stem,
        metrics=evaluation.metrics,
    )
    return tasks, result


def store_part(evaluation_id: int, number: int, tasks: list[Task], result: TextScores) -> None:
    task_of = {(task.system_id, task.input_id): task.pk for task in tasks}
    with transaction.atomic():
        locked = TextEvaluation.objects.select_for_update().filter(pk=evaluation_id).first()
        if locked is None or locked.status != Status.RUNNING or str(number) in locked.parts_done:
            return  # failed meanwhile, or the same part stored by another delivery
        OutputScore.objects.bulk_create(
            [
                OutputScore(
                    evaluation_id=evaluation_id,
                    task_id=task_of[key],
                    system_id=key[0],
                    input_id=key[1],
                    scores=values,
                )
                for key, values in result.per_output.items()
            ],
            batch_size=2000,
        )
        locked.parts_done[str(number)] = {
            "unscored": [list(key) for key in result.unscored],
            "reference_counts": sorted(result.reference_counts),
        }
        done = len(locked.parts_done)
        locked.progress = 0.95 * done / locked.part_count
        locked.stage = f"scored {done:,} of {locked.part_count:,} parts of {outputs_per_part()} outputs"
        locked.heartbeat_at = timezone.now()
        locked.save(update_fields=["parts_done", "progress", "stage", "heartbeat_at"])
        if done == locked.part_count:
            finish(evaluation_id)


def finish(evaluation_id: int) -> None:
    """Every part is stored: the per-system means, the signatures and the unscored outputs."""
    evaluation = TextEvaluation.objects.get(pk=evaluation_id)
    by_system: dict[str, list[dict[str, float]]] = {}
    for system_id, scores in OutputScore.objects.filter(evaluation=evaluation).values_list(
        "system_id", "scores"
    ):
        by_system.setdefault(system_id, []).append(scores)
    parts = evaluation.parts_done.values()
    counts = {count for part in parts for count in part["reference_counts"]}
    lifecycle.finish(
        TEXT_EVALUATIONS,
        evaluation_id,
        signatures=signatures(evaluation.rouge_multi_ref, evaluation.stem, counts, evaluation.metrics),
        per_system=system_means(by_system, evaluation.metrics),
        output_count=sum(len(rows) for rows in by_system.values()),
        unscored=sorted(key for part in parts for key in part["unscored"]),
    )


SCORE_PART_TASK = "evaluation.texts.tasks.score_text_part"
TEXT_EVALUATIONS = lifecycle.register(
    lifecycle.JobKind(
        "text evaluation",
        TextEvaluation,
        "evaluation.texts.tasks.run_text_evaluation",
        message_tasks=(SCORE_PART_TASK,),
    )
)


def references_from_free_text(source: Project, target: Project, *, replace: bool = False) -> int:
    """Make the texts written in free-text project ``source`` the references of ``target``, in one
    step: each current (latest-revision) text of an item becomes a reference for the item's input
    (its ``input_id``, else its document's id), with the writer's username kept. With ``replace``,
    the references ``target`` already had from ``source`` are removed first. Returns how many."""
    from annotation.models import Judgement

    if source.task_type != Project.TaskType.FREE_TEXT:
        raise ReferencesProblem(f"project {source.pk} is not a free-text project: it has no written texts")
    judgements = (
        Judgement.objects.of_items(source)
        .select_related("task__document", "annotator")
        .order_by("task_id", "annotator__username")
    )
    texts = [
        {
            "input": judgement.task.input_id or judgement.task.document.external_id,
            "text": judgement.answer.get("text", ""),
            "writer": judgement.annotator.username,
        }
        for judgement in judgements
        if isinstance(judgement.answer, dict) and str(judgement.answer.get("text", "")).strip()
    ]
    if not texts:
        raise ReferencesProblem(f"project {source.pk} has no written texts yet")
    label = f"free-text project {source.pk}"
    with transaction.atomic():
        if replace:
            Reference.objects.filter(project=target, source=label).delete()
        return import_references(target, texts, source=label)
