"""Evaluation jobs: every run of a project scored against one ground truth, fanned out one Celery
sub-task per run (so more workers finish sooner) and gathered by the sub-task that stores the last
score, which computes the trust checks and marks the job done.

No result backend is needed: the gathering is a conditional UPDATE on the job's row (the sub-task
that finds every score stored and claims the ``checking`` stage first does it), so a redelivered
sub-task, or two finishing at once, still finish the job once. With the embedded default the job
runs on a background thread (``jobs.embedded``), never inside a request. Its lifecycle (claim,
heartbeat, finish once, fail, cancel, recovery) is every job's: ``evaluation.jobs.lifecycle``.

Requested when a snapshot is written, when runs or external qrels are added, and on demand. A
request joins a job of the same ground truth and settings that has not started yet (it will read
the runs as they are when it starts): adding ten runs in a row gives one job, not ten.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import current_app, group
from django.db import OperationalError, transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.models import Project
from evaluation.jobs import lifecycle
from evaluation.models import Evaluation, ExternalQrels, GroundTruthSnapshot, Run
from evaluation.scoring.compute import ScoringContext, score_run, scoring_context, signature, variant_qrels
from evaluation.scoring.trust import evaluation_checks

logger = logging.getLogger(__name__)
Status = Evaluation.Status


def request_evaluation(
    project: Project,
    *,
    snapshot: GroundTruthSnapshot | None = None,
    external_qrels: ExternalQrels | None = None,
    relevance_level: int = 1,
    judged_only: bool = False,
    f_beta: float = 1.0,
    ndcg_gains: str = "",
    collection_size: int | None = None,
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
            f_beta=f_beta,
            ndcg_gains=ndcg_gains,
            collection_size=collection_size,
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
            f_beta=f_beta,
            ndcg_gains=ndcg_gains,
            collection_size=collection_size,
            stage="queued",
        )
        evaluation.signature = signature(evaluation)
        evaluation.save()
        transaction.on_commit(lambda: send(evaluation))
    return evaluation


def not_superseded(evaluations: QuerySet[Evaluation]) -> QuerySet[Evaluation]:
    """``evaluations`` without those a newer finished evaluation of the same ground truth and
    settings replaces: one per snapshot (or external qrels), relevance level, ``judged_only`` and the
    measures asked for beyond all_trec (F's beta, nDCG's gains, the collection size),
    the newest done, plus any started or failed since. The older ones scored the runs there were
    then (an evaluation is asked for again whenever runs are added), so a list of every one showed
    "ground truth v1" once per run ever added."""
    # No collection size (NULL) must match no collection size: NULL equals nothing in SQL.
    newer_done = Evaluation.objects.alias(size=Coalesce("collection_size", 0)).filter(
        # Exactly one of the two is set on every row, and NULL equals nothing in SQL: this matches
        # the same snapshot or the same external qrels, never two rows that both lack one.
        Q(snapshot=OuterRef("snapshot")) | Q(external_qrels=OuterRef("external_qrels")),
        project=OuterRef("project"),
        relevance_level=OuterRef("relevance_level"),
        judged_only=OuterRef("judged_only"),
        f_beta=OuterRef("f_beta"),
        ndcg_gains=OuterRef("ndcg_gains"),
        size=Coalesce(OuterRef("collection_size"), 0),
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
    """Start the job on a worker, or, without one, on the embedded runner (``lifecycle.send``)."""
    lifecycle.send(EVALUATIONS, evaluation)


def fail(evaluation_id: int, error: str) -> None:
    lifecycle.fail(EVALUATIONS, evaluation_id, error)


def start(evaluation_id: int) -> int:
    """The task ``tasks.start_evaluation``: claim the job, fix the runs to score and the alternative
    ground truths, then fan out one sub-task per run. Returns how many runs were sent (0 if the job is not
    queued). A job started again after its worker was lost scores only the runs not stored yet
    (``score_run`` keeps those)."""
    if not lifecycle.claim(EVALUATIONS, evaluation_id, stage="reading the ground truth"):
        return 0
    evaluation = Evaluation.objects.get(pk=evaluation_id)
    # Withdrawn runs are kept but scored no more: they leave the leaderboard
    # (evaluation.collection.run_removal).
    runs = evaluation.project.runs.filter(withdrawn_at__isnull=True)
    run_ids = list(runs.order_by("tag").values_list("pk", flat=True))
    Evaluation.objects.filter(pk=evaluation_id).update(run_count=len(run_ids))
    try:
        with lifecycle.running(EVALUATIONS, evaluation_id):
            variants = variant_qrels(evaluation)
            Evaluation.objects.filter(pk=evaluation_id).update(variant_qrels=variants)
            lifecycle.progress(EVALUATIONS, evaluation_id, f"scoring {len(run_ids)} runs", 0.02)
    except lifecycle.JobStopped:
        return 0
    except OperationalError:
        lifecycle.requeue(EVALUATIONS, evaluation_id, "waiting to retry after a database error")
        raise
    except Exception as error:
        fail(evaluation_id, f"{type(error).__name__}: {error}")
        raise
    if not run_ids:
        finish_if_complete(evaluation_id)
    elif current_app.conf.task_always_eager:
        score_runs_here(evaluation_id, run_ids)
    else:
        score_task = lifecycle.task_named(SCORE_RUN_TASK)
        group(score_task.s(evaluation_id, run_id) for run_id in run_ids).apply_async()
    return len(run_ids)


def with_ground_truth():
    return Evaluation.objects.select_related("snapshot", "external_qrels", "project")


def score_runs_here(evaluation_id: int, run_ids: list[int]) -> None:
    """Without a worker: score every run in this thread, reading the shared inputs once."""
    evaluation = with_ground_truth().get(pk=evaluation_id)
    context = scoring_context(evaluation)
    try:
        with lifecycle.running(EVALUATIONS, evaluation_id):
            for run in Run.objects.filter(pk__in=run_ids):
                score_run(evaluation, run, context, still_wanted(evaluation_id))
                record_progress(evaluation_id)
    except lifecycle.JobStopped:
        return
    except Exception as error:
        fail(evaluation_id, f"{type(error).__name__}: {error}")
        raise
    finish_if_complete(evaluation_id)


def score_one(evaluation_id: int, run_id: int) -> None:
    """The task ``tasks.score_evaluation_run``: score one run (idempotent: a run scored already is kept),
    then finish the job if it was the last. A job no longer running (failed, cancelled, done) scores
    nothing more."""
    evaluation = with_ground_truth().filter(pk=evaluation_id).first()
    if evaluation is None or evaluation.status != Status.RUNNING:
        return
    run = Run.objects.filter(pk=run_id).first()
    if run is None:  # deleted since the job started: one run fewer to wait for
        Evaluation.objects.filter(pk=evaluation_id).update(run_count=F("run_count") - 1)
    else:
        try:
            with lifecycle.running(EVALUATIONS, evaluation_id):
                lifecycle.pause_for_tests()
                score_run(evaluation, run, context_for(evaluation), still_wanted(evaluation_id))
                record_progress(evaluation_id)
        except lifecycle.JobStopped:
            return
        except OperationalError:
            raise  # retried
        except Exception as error:
            fail(evaluation_id, f"run {run.tag}: {type(error).__name__}: {error}")
            raise
    finish_if_complete(evaluation_id)


def still_wanted(evaluation_id: int) -> Callable[[], None]:
    """A run's score is stored only while its evaluation runs (not once cancelled or failed)."""
    return lambda: lifecycle.ensure_running(EVALUATIONS, evaluation_id)


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
    lifecycle.progress(EVALUATIONS, evaluation_id, f"scored {done} of {evaluation.run_count} runs", share)


def finish_if_complete(evaluation_id: int) -> bool:
    """If every run is scored, compute the trust checks and mark the job done (once: the caller
    that claims the ``checking`` stage does it). True if this call finished the job."""
    evaluation = Evaluation.objects.get(pk=evaluation_id)
    if evaluation.scores.count() < evaluation.run_count:
        return False
    claimed = (
        Evaluation.objects.filter(pk=evaluation_id, status=Status.RUNNING)
        .exclude(stage="checking")
        .update(stage="checking", heartbeat_at=timezone.now())
    )
    if not claimed:
        return False
    try:
        with lifecycle.running(EVALUATIONS, evaluation_id):
            lifecycle.pause_for_tests()
            checks = evaluation_checks(evaluation)
    except Exception as error:
        fail(evaluation_id, f"checks: {type(error).__name__}: {error}")
        raise
    return lifecycle.finish(EVALUATIONS, evaluation_id, checks=checks)


SCORE_RUN_TASK = "evaluation.scoring.tasks.score_evaluation_run"
EVALUATIONS = lifecycle.register(
    lifecycle.JobKind(
        "evaluation", Evaluation, "evaluation.scoring.tasks.start_evaluation", message_tasks=(SCORE_RUN_TASK,)
    )
)
