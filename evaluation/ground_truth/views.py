"""Ground truth's pages: snapshots and jobs (with a job cancelled or a new one asked for), differences
between two snapshots, downloads, and the agreement report. Server-rendered; state changes only on POST;
every value is escaped by the templates.

Security behavior, for every view here: the project's owner only (``owned_project``: anyone else,
researcher or not, gets 404 with no hint that the project exists)."""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, F
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation.models import Task
from annotation.permissions import AuthenticatedHttpRequest, owned_project
from evaluation.ground_truth.diff import diff_snapshots
from evaluation.ground_truth.downloads import qrels_response, ratings_csv_response, ratings_json_response
from evaluation.ground_truth.jobs import GROUND_TRUTH_JOBS, request_ground_truth_job
from evaluation.ground_truth.report import (
    CONFUSION_MATRICES_ON_PAGE,
    BadVersion,
    agreement_report,
    heatmap_rows,
    latest_snapshot,
    requested_version,
)
from evaluation.ground_truth.ties import TIES_ON_PAGE, tie_report
from evaluation.jobs.views import cancel_from_page
from evaluation.models import GroundTruthJob, GroundTruthSnapshot, SnapshotLabel

# Rows of each diff list shown on the page; the API lists them all.
DIFF_ROWS_ON_PAGE = 500


WEIGHTS_NOTES = {"linear": "Linearly weighted kappa.", "quadratic": "Quadratically weighted kappa."}


class BadRequest(Exception):
    """Answered as a 400 page by ``answers_bad_request``."""


def adjudication_counts(snapshot_ids: Iterable[int]) -> dict[int, dict[str, int]]:
    """Per snapshot, how many of its items were adjudicated by an extra assessor and by a researcher."""
    counts: dict[int, dict[str, int]] = {}
    rows = (
        SnapshotLabel.objects.filter(snapshot_id__in=list(snapshot_ids))
        .exclude(adjudicated_by="")
        .values_list("snapshot_id", "adjudicated_by")
        .annotate(n=Count("id"))
        .order_by()
    )
    for snapshot_id, how, n in rows:
        counts.setdefault(snapshot_id, {})[how] = n
    return counts


def answers_bad_request(view):
    """Turn ``BadRequest`` raised in a page view into a plain 400 response naming the problem."""

    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except BadRequest as error:
            return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")

    return functools.wraps(view)(wrapper)


def version_or_400(request: AuthenticatedHttpRequest, name: str) -> int | None:
    try:
        return requested_version(request.GET, name)
    except BadVersion as error:
        raise BadRequest(str(error)) from error


@login_required
@require_GET
def ground_truth(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Snapshot history with downloads, the latest jobs with their progress, recompute and diff forms."""
    project = owned_project(request.user, project_id)
    snapshots = list(
        GroundTruthSnapshot.objects.filter(project=project).defer("annotator_report").order_by("-version")
    )
    jobs = list(
        GroundTruthJob.objects.filter(project=project)
        .annotate(snapshot_version=F("snapshot__version"))
        .order_by("-created_at", "-id")[:10]
    )
    active = any(job.status in {GroundTruthJob.Status.QUEUED, GroundTruthJob.Status.RUNNING} for job in jobs)
    adjudicated = adjudication_counts(snapshot.pk for snapshot in snapshots)
    for snapshot in snapshots:
        snapshot.adjudicated = adjudicated.get(snapshot.pk, {})  # type: ignore[attr-defined]
    newest = snapshots[0] if snapshots else None
    prior_figures = newest.agreement.get("prior") if newest else None
    return render(
        request,
        "evaluation/ground_truth.html",
        {
            "project": project,
            "snapshots": snapshots,
            "jobs": jobs,
            "active": active,
            "ties": tie_report(project, newest, TIES_ON_PAGE),
            "prior_agreement": prior_figures,
            # A sampled pool's snapshots download as sample qrels too (sample_eval.pl's format).
            "sampled": project.sampled_pool.exists(),
            "prior_confusion": (
                list(zip(prior_figures["classes"], prior_figures["overall"]["confusion"], strict=True))
                if prior_figures
                else []
            ),
        },
    )


@login_required
@require_POST
def recompute(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Ask for a ground-truth job now (debounced like submissions), then show its progress. POST only."""
    project = owned_project(request.user, project_id)
    outcome = request_ground_truth_job(project.pk)
    if outcome.job is not None and outcome.queued:
        messages.success(request, f"Job {outcome.job.pk} queued: it starts within a few seconds.")
    elif outcome.job is not None:
        messages.info(request, f"Job {outcome.job.pk} is already waiting to start; it will count everything.")
    return redirect("ground-truth", project_id=project.pk)


def _task_names(task_ids: set[Hashable]) -> dict[Hashable, str]:
    """Items by their topic and document titles (``Task.title``), their ids (as in the qrels) after."""
    tasks = Task.objects.filter(pk__in=[task for task in task_ids if isinstance(task, int)]).select_related(
        "topic", "document", "document_b"
    )
    return {task.pk: f"{task.title} ({task})" for task in tasks}


@login_required
@require_GET
@answers_bad_request
def snapshot_diff(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """What changed from snapshot ``?from=`` to ``?to=``: labels changed, items added and removed.

    Rating projects compare each item's median per dimension (``diff.diff_snapshots``, as the API).
    """
    project = owned_project(request.user, project_id)
    snapshots = GroundTruthSnapshot.objects.filter(project=project).defer("annotator_report")
    older, newer = version_or_400(request, "from"), version_or_400(request, "to")
    if older is None or newer is None:
        messages.error(request, "Choose two snapshot versions to compare.")
        return redirect("ground-truth", project_id=project.pk)
    old = get_object_or_404(snapshots, version=older)
    new = get_object_or_404(snapshots, version=newer)
    diff = diff_snapshots(old, new)
    changed = diff.changed[:DIFF_ROWS_ON_PAGE]
    added = diff.added[:DIFF_ROWS_ON_PAGE]
    removed = diff.removed[:DIFF_ROWS_ON_PAGE]
    names = _task_names({row[0] for row in changed} | {row[0] for row in added} | {row[0] for row in removed})
    label_names = project.type.label_names(project.config)

    def word(label):  # a label's name ("relevant"); rating medians are words already
        return label_names.get(label, label)

    return render(
        request,
        "evaluation/snapshot_diff.html",
        {
            "project": project,
            "old": old,
            "new": new,
            "diff": diff,
            "changed": [(names.get(t, t), word(before), word(after)) for t, before, after in changed],
            "added": [(names.get(t, t), word(label)) for t, label in added],
            "removed": [(names.get(t, t), word(label)) for t, label in removed],
            "rows_shown": DIFF_ROWS_ON_PAGE,
        },
    )


@login_required
@require_GET
def snapshot_download(
    request: AuthenticatedHttpRequest, project_id: int, version: int, kind: str
) -> HttpResponse:
    """A snapshot as TREC qrels (label projects) or rating summaries as CSV or JSON (Likert projects)."""
    project = owned_project(request.user, project_id)
    snapshot = get_object_or_404(
        GroundTruthSnapshot.objects.defer("annotator_report"), project=project, version=version
    )
    if kind == "qrels" and not project.is_rating:
        return qrels_response(snapshot)
    if kind == "ratings.csv" and project.is_rating:
        return ratings_csv_response(snapshot)
    if kind == "ratings.json" and project.is_rating:
        return ratings_json_response(snapshot)
    raise Http404("This snapshot has no such download.")


@login_required
@require_GET
@answers_bad_request
def agreement(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The agreement report of a snapshot (``?version=``, default the newest)."""
    project = owned_project(request.user, project_id)
    version = version_or_400(request, "version")
    snapshot = latest_snapshot(project, version)
    if version is not None and snapshot is None:
        raise Http404("No such snapshot.")
    report = agreement_report(project, snapshot)
    confusion = report["confusion"]
    matrices = []
    if confusion:
        for annotator in confusion["annotators"][:CONFUSION_MATRICES_ON_PAGE]:
            rows = list(zip(confusion["class_names"], annotator["matrix"], strict=True))
            estimated = annotator.get("dawid_skene")
            ds_rows = list(zip(confusion["class_names"], estimated, strict=True)) if estimated else []
            matrices.append({"annotator": annotator, "rows": rows, "ds_rows": ds_rows})
    return render(
        request,
        "evaluation/agreement.html",
        {
            "project": project,
            "report": report,
            "snapshot": snapshot,
            "versions": GroundTruthSnapshot.objects.filter(project=project)
            .order_by("-version")
            .values_list("version", flat=True),
            "matrices": matrices,
            "matrices_total": len(confusion["annotators"]) if confusion else 0,
            "heatmaps": [
                {
                    "panel": panel,
                    "rows": heatmap_rows(panel),
                    "weights_note": WEIGHTS_NOTES.get(panel["weights"], ""),
                }
                for panel in report["pairwise"]
            ],
            "ties": tie_report(project, snapshot, TIES_ON_PAGE),
            "shows_reliability": any(row["reliability"] is not None for row in report["annotators"]),
            "shows_gold_weight": any(row["gold_weight"] is not None for row in report["annotators"]),
        },
    )


@login_required
@require_POST
def job_cancel(request: AuthenticatedHttpRequest, project_id: int, job_id: int) -> HttpResponse:
    """Cancel a queued or running ground-truth job (``jobs.views.cancel_from_page``)."""
    project = owned_project(request.user, project_id)
    job = get_object_or_404(GroundTruthJob, project=project, pk=job_id)
    return cancel_from_page(request, GROUND_TRUTH_JOBS, job, reverse("ground-truth", args=[project.pk]))
