"""Researcher pages of the evaluation app: ground truth (snapshots, runs, diffs, downloads) and the
agreement report. Server-rendered; state changes only on POST; every value is escaped by the
templates (nothing from imports or annotators is marked safe)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import F
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotation.models import Project, Task
from annotation.tasks import request_ground_truth_run

from .downloads import qrels_response, ratings_csv_response, ratings_json_response
from .models import GroundTruthRun, GroundTruthSnapshot
from .reports import CONFUSION_MATRICES_ON_PAGE, agreement_report, heatmap_rows, latest_snapshot
from .snapshot_diff import diff_labels, diff_snapshots

# Rows of each diff list shown on the page; the API lists them all.
DIFF_ROWS_ON_PAGE = 500
WEIGHTS_NOTES = {"linear": "Linearly weighted kappa.", "quadratic": "Quadratically weighted kappa."}


def owned_project(request: HttpRequest, project_id: int) -> Project:
    """The project if the user owns it; 404 otherwise (no hint that it exists)."""
    return get_object_or_404(Project, pk=project_id, owner=request.user)


def version_from(request: HttpRequest, name: str) -> int | None:
    value = request.GET.get(name, "")
    return int(value) if value.isdigit() else None


@login_required
@require_GET
def ground_truth(request: HttpRequest, project_id: int) -> HttpResponse:
    """Snapshot history with downloads, the latest runs with their progress, recompute and diff forms.

    Security behavior: the project's owner only (anyone else gets 404).
    """
    project = owned_project(request, project_id)
    snapshots = list(
        GroundTruthSnapshot.objects.filter(project=project).defer("assessor_report").order_by("-version")
    )
    runs = list(
        GroundTruthRun.objects.filter(project=project)
        .annotate(snapshot_version=F("snapshot__version"))
        .order_by("-created_at", "-id")[:10]
    )
    active = any(run.status in {GroundTruthRun.Status.QUEUED, GroundTruthRun.Status.RUNNING} for run in runs)
    return render(
        request,
        "evaluation/ground_truth.html",
        {"project": project, "snapshots": snapshots, "runs": runs, "active": active},
    )


@login_required
@require_POST
def recompute(request: HttpRequest, project_id: int) -> HttpResponse:
    """Ask for a ground-truth run now (debounced like submissions), then show its progress.

    Security behavior: the project's owner only (anyone else gets 404); POST with CSRF token only.
    """
    project = owned_project(request, project_id)
    outcome = request_ground_truth_run(project.pk)
    if outcome.queued:
        messages.success(request, f"Run {outcome.run.pk} queued: it starts within a few seconds.")
    elif outcome.run is not None:
        messages.info(request, f"Run {outcome.run.pk} is already waiting to start; it will count everything.")
    return redirect("ground-truth", project_id=project.pk)


def _task_names(task_ids: set[int]) -> dict[int, str]:
    rows = Task.objects.filter(pk__in=task_ids).values_list(
        "pk", "topic__external_id", "document__external_id", "document_b__external_id"
    )
    return {pk: " × ".join(part for part in (topic, doc, doc_b) if part) for pk, topic, doc, doc_b in rows}


def _rating_medians(snapshot: GroundTruthSnapshot) -> dict[int, str]:
    """task → its medians ("fluency 4, coherence 3.5"): what a rating snapshot's diff compares."""
    return {
        task: ", ".join(
            f"{dimension} {figures['median']:g}" for dimension, figures in sorted(details.items())
        )
        for task, details in snapshot.labels.values_list("task_id", "details")
    }


@login_required
@require_GET
def snapshot_diff(request: HttpRequest, project_id: int) -> HttpResponse:
    """What changed from snapshot ``?from=`` to ``?to=``: labels changed, items added and removed.

    Rating projects compare each item's median per dimension. Security behavior: owner only.
    """
    project = owned_project(request, project_id)
    snapshots = GroundTruthSnapshot.objects.filter(project=project).defer("assessor_report")
    older, newer = version_from(request, "from"), version_from(request, "to")
    if older is None or newer is None:
        messages.error(request, "Choose two snapshot versions to compare.")
        return redirect("ground-truth", project_id=project.pk)
    old = get_object_or_404(snapshots, version=older)
    new = get_object_or_404(snapshots, version=newer)
    if project.is_rating:
        diff = diff_labels(_rating_medians(old), _rating_medians(new))
    else:
        diff = diff_snapshots(old, new)
    shown = {
        "changed": diff.changed[:DIFF_ROWS_ON_PAGE],
        "added": diff.added[:DIFF_ROWS_ON_PAGE],
        "removed": diff.removed[:DIFF_ROWS_ON_PAGE],
    }
    names = _task_names({row[0] for rows in shown.values() for row in rows})
    return render(
        request,
        "evaluation/snapshot_diff.html",
        {
            "project": project,
            "old": old,
            "new": new,
            "diff": diff,
            "changed": [(names.get(t, t), before, after) for t, before, after in shown["changed"]],
            "added": [(names.get(t, t), label) for t, label in shown["added"]],
            "removed": [(names.get(t, t), label) for t, label in shown["removed"]],
            "rows_shown": DIFF_ROWS_ON_PAGE,
        },
    )


@login_required
@require_GET
def snapshot_download(request: HttpRequest, project_id: int, version: int, kind: str) -> HttpResponse:
    """A snapshot as TREC qrels (label projects) or rating summaries as CSV or JSON (Likert projects).

    Security behavior: the project's owner only (anyone else gets 404).
    """
    project = owned_project(request, project_id)
    snapshot = get_object_or_404(
        GroundTruthSnapshot.objects.defer("assessor_report"), project=project, version=version
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
def agreement(request: HttpRequest, project_id: int) -> HttpResponse:
    """The agreement report of a snapshot (``?version=``, default the newest).

    Security behavior: the project's owner only (anyone else gets 404).
    """
    project = owned_project(request, project_id)
    version = version_from(request, "version")
    snapshot = latest_snapshot(project, version)
    if version is not None and snapshot is None:
        raise Http404("No such snapshot.")
    report = agreement_report(project, snapshot)
    confusion = report["confusion"]
    matrices = []
    if confusion:
        for assessor in confusion["assessors"][:CONFUSION_MATRICES_ON_PAGE]:
            rows = list(zip(confusion["class_names"], assessor["matrix"], strict=True))
            estimated = assessor.get("dawid_skene")
            ds_rows = list(zip(confusion["class_names"], estimated, strict=True)) if estimated else []
            matrices.append({"assessor": assessor, "rows": rows, "ds_rows": ds_rows})
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
            "matrices_total": len(confusion["assessors"]) if confusion else 0,
            "heatmaps": [
                {
                    "panel": panel,
                    "rows": heatmap_rows(panel),
                    "weights_note": WEIGHTS_NOTES.get(panel["weights"], ""),
                }
                for panel in report["pairwise"]
            ],
            "shows_reliability": any(row["reliability"] is not None for row in report["annotators"]),
            "shows_gold_weight": any(row["gold_weight"] is not None for row in report["annotators"]),
        },
    )
