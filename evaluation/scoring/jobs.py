"""Evaluation jobs: every run of a project scored against one ground truth, fanned out one Celery
sub-task per run (so more workers finish sooner) and gathered by the sub-task that stores the last
score, which computes the trust checks and marks the job done.

No result backend is needed: the gathering is a conditional UPDATE on the job's row (the sub-task
that finds every score stored and claims the ``checking`` stage first does it), so a redelivered
sub-task, or two finishing at once, still finish the job once. With the embedded default the job
runs on a background thread (``ground_truth.embedded``), never inside a request.

Requested when a snapshot is written, when runs or external qrels are added, and on demand. A
request joins a job of the same ground truth and settings that has not started yet (it will read
the runs as they are when it starts): adding ten runs in a row gives one job, not ten.
"""

from __future__ import annotations

import logging

from celery import group, shared_task
from django.db import OperationalError, transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from annotation.models import Project
from evaluation.jobs.dispatch import resend_lost, send_to_worker
from evaluation.models import Evaluation, ExternalQrels, GroundTruthSnapshot, Run
from evaluation.scoring.checks import evaluation_checks
from evaluation.scoring.compute import ScoringContext, score_run, scoring_context, signature, variant_qrels

logger = logging.getLogger(__name__)
Status = Evaluation.Status


def request_evaluation(
    project: Project,
    *,
    snapshot: GroundTruthSnapshot | None = None,
    external_qrels: ExternalQrels | None = None,
    relevance_level: int = 1,
    judged_only: bool = False,
) -> Evaluation:
    """Queue an evaluation of every run against ``snapshot`` or ``external_qrels``, or join the one
    of the same ground truth and settings still waiting to start; returns that job."""
    if (snapshot is None) == (external_qrels is None):
        raise ValueError("an evaluation needs exactly one ground truth: a snapshot or external qrels")
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()  # one request at a time
        waiting = Evaluation.objects.filter(
            project=project,
            snapshot=snapshot,
            external_qrels=external_qrels,
            relevance_level=relevance_level,
            judged_only=judged_only,
            status=Status.QUEUED,
        ).first()
        if waiting is not None:
            return waiting
        evaluation = Evaluation(
            project=project,
            snapshot=snapshot,
            external_qrels=external_qrels,
            relevance_level=relevance_level,
            judged_only=judged_only,
            stage="queued",
        )
        evaluation.signature = signature(evaluation)
        evaluation.save()
        transaction.on_commit(lambda: send(evaluation))
    return evaluation


def not_superseded(evaluations: QuerySet[Evaluation]) -> QuerySet[Evaluation]:
    """``evaluations`` without those a newer finished evaluation of the same ground truth and
    settings replaces: one per snapshot (or external qrels), relevance level and ``judged_only``,
    the newest done, plus any started or failed since. The older ones scored the runs there were
    then (an evaluation is asked for again whenever runs are added), so a list of every one showed
    "ground truth v1" once per run ever added."""
    newer_done = Evaluation.objects.filter(
        # Exactly one of the two is set on every row, and NULL equals nothing in SQL: this matches
        # the same snapshot or the same external qrels, never two rows that both lack one.
        Q(snapshot=OuterRef("snapshot")) | Q(external_qrels=OuterRef("external_qrels")),
        project=OuterRef("project"),
        relevance_level=OuterRef("relevance_level"),
        judged_only=OuterRef("judged_only"),
        status=Status.DONE,
        pk__gt=OuterRef("pk"),
    )
    return evaluations.exclude(Exists(newer_done))


def request_evaluations_of_latest(project: Project) -> list[Evaluation]:
    """Evaluations of the runs against the newest snapshot and every external qrels (after runs were
    added); none if the project has no runs or nothing to score them against."""
    if not project.runs.exists():
        return []
    requested = []
    snapshot = project.snapshots.order_by("-version").first()
    if snapshot is not None and project.type.judged_for_topic:
        requested.append(request_evaluation(project, snapshot=snapshot))
    for external in project.external_qrels.all():
        requested.append(request_evaluation(project, external_qrels=external))
    return requested


def send(evaluation: Evaluation) -> None:
    """Start the job on a worker, or, without one, on the embedded runner; a broker that cannot be
    reached fails the job (the researcher can request it again)."""
    send_to_worker(start_evaluation, evaluation.pk, fail)


def resend_lost_evaluations() -> int:
    """Send again the evaluations the broker lost (``dispatch.resend_lost``); returns how many."""
    return resend_lost(Evaluation.objects.all(), send)


@shared_task(acks_late=True)
def resend_lost_evaluation_jobs() -> int:
    """Beat job, every few minutes: ``resend_lost_evaluations``."""
    return resend_lost_evaluations()


def fail(evaluation_id: int, error: str) -> None:
    Evaluation.objects.filter(pk=evaluation_id).exclude(status=Status.DONE).update(
        status=Status.FAILED, error=error[:2000], finished_at=timezone.now()
    )


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def start_evaluation(evaluation_id: int) -> int:
    """Fix the runs to score and the alternative ground truths, then fan out one sub-task per run.
    Returns how many runs were sent (0 if the job already started or is gone)."""
    with transaction.atomic():
        evaluation = Evaluation.objects.select_for_update().filter(pk=evaluation_id).first()
        if evaluation is None or evaluation.status != Status.QUEUED:
            return 0
        # Withdrawn runs are kept but scored no more: they leave the leaderboard
        # (evaluation.collection.run_removal).
        runs = evaluation.project.runs.filter(withdrawn_at__isnull=True)
        run_ids = list(runs.order_by("tag").values_list("pk", flat=True))
        evaluation.status = Status.RUNNING
        evaluation.stage = "reading the ground truth"
        evaluation.started_at = timezone.now()
        evaluation.run_count = len(run_ids)
        evaluation.save(update_fields=["status", "stage", "started_at", "run_count"])
    try:
        variants = variant_qrels(evaluation)
        Evaluation.objects.filter(pk=evaluation_id).update(
            variant_qrels=variants, stage=f"scoring {len(run_ids)} runs"
        )
    except Exception as error:
        fail(evaluation_id, f"{type(error).__name__}: {error}")
        raise
    if not run_ids:
        finish_if_complete(evaluation_id)
    elif start_evaluation.app.conf.task_always_eager:
        score_runs_here(evaluation_id, run_ids)
    else:
        group(score_evaluation_run.s(evaluation_id, run_id) for run_id in run_ids).apply_async()
    return len(run_ids)


def with_ground_truth():
    return Evaluation.objects.select_related("snapshot", "external_qrels", "project")


def score_runs_here(evaluation_id: int, run_ids: list[int]) -> None:
    """Without a worker: score every run in this thread, reading the shared inputs once."""
    evaluation = with_ground_truth().get(pk=evaluation_id)
    context = scoring_context(evaluation)
    try:
        for run in Run.objects.filter(pk__in=run_ids):
            score_run(evaluation, run, context)
            record_progress(evaluation_id)
    except Exception as error:
        fail(evaluation_id, f"{type(error).__name__}: {error}")
        raise
    finish_if_complete(evaluation_id)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def score_evaluation_run(evaluation_id: int, run_id: int) -> None:
    """Score one run (idempotent), then finish the job if it was the last."""
    evaluation = with_ground_truth().filter(pk=evaluation_id).first()
    if evaluation is None or evaluation.status != Status.RUNNING:
        return
    run = Run.objects.filter(pk=run_id).first()
    if run is None:  # deleted since the job started: one run fewer to wait for
        Evaluation.objects.filter(pk=evaluation_id).update(run_count=F("run_count") - 1)
    else:
        try:
            score_run(evaluation, run, context_for(evaluation))
        except OperationalError:
            raise  # retried
        except Exception as error:
            fail(evaluation_id, f"run {run.tag}: {type(error).__name__}: {error}")
            raise
        record_progress(evaluation_id)
    finish_if_complete(evaluation_id)


# The shared inputs of the evaluation this worker process scores runs of: read once per process and
# evaluation, not once per run (a worker takes many of one job's sub-tasks in a row).
_context: dict[int, ScoringContext] = {}


def context_for(evaluation: Evaluation) -> ScoringContext:
    if evaluation.pk not in _context:
        _context.clear()
        _context[evaluation.pk] = scoring_context(evaluation)
    return _context[evaluation.pk]


def record_progress(evaluation_id: int) -> None:
    evaluation = Evaluation.objects.only("run_count").get(pk=evaluation_id)
    done = evaluation.scores.count()
    share = 0.95 * done / evaluation.run_count if evaluation.run_count else 0.95
    Evaluation.objects.filter(pk=evaluation_id, status=Status.RUNNING).update(
        progress=share, stage=f"scored {done} of {evaluation.run_count} runs"
    )


def finish_if_complete(evaluation_id: int) -> bool:
    """If every run is scored, compute the trust checks and mark the job done (once: the caller
    that claims the ``checking`` stage does it). True if this call finished the job."""
    evaluation = Evaluation.objects.get(pk=evaluation_id)
    if evaluation.scores.count() < evaluation.run_count:
        return False
    claimed = (
        Evaluation.objects.filter(pk=evaluation_id, status=Status.RUNNING)
        .exclude(stage="checking")
        .update(stage="checking")
    )
    if not claimed:
        return False
    try:
        checks = evaluation_checks(evaluation)
    except Exception as error:
        fail(evaluation_id, f"checks: {type(error).__name__}: {error}")
        raise
    Evaluation.objects.filter(pk=evaluation_id).update(
        status=Status.DONE, stage="done", progress=1.0, checks=checks, finished_at=timezone.now()
    )
    return True
