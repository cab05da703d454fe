"""Researcher pages of the evaluation app: the project page (both sides of a project), the
collection import, ground truth (snapshots, jobs, diffs, downloads) and the agreement report.
Server-rendered; state changes only on POST; every value is escaped by the templates (nothing
from imports or annotators is marked safe).

Security behavior, for every view here: the project's owner only (``owned_project``: anyone
else, researcher or not, gets 404 with no hint that the project exists).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Hashable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, F
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.items import inputs
from annotation.judging.coverage import project_coverage
from annotation.models import Judgement, Membership, Project, Task
from annotation.permissions import AuthenticatedHttpRequest, owned_project
from annotation.progress.live import dashboard_charts, project_progress_figures
from annotation.projects.removal import live_leases
from annotation.quality.attention_results import attention_results
from evaluation.collection.examples import example_json, other_examples
from evaluation.collection.flow import ImportFailed, describe_import, import_from_body
from evaluation.ground_truth.diff import diff_snapshots
from evaluation.ground_truth.downloads import qrels_response, ratings_csv_response, ratings_json_response
from evaluation.ground_truth.jobs import request_ground_truth_job
from evaluation.ground_truth.report import (
    CONFUSION_MATRICES_ON_PAGE,
    BadVersion,
    agreement_report,
    annotator_table,
    heatmap_rows,
    latest_snapshot,
    requested_version,
)
from evaluation.ground_truth.ties import TIES_ON_PAGE, tie_report
from evaluation.items.browser import adjudication_counts
from evaluation.models import GroundTruthJob, GroundTruthSnapshot
from evaluation.scoring.plots import NothingToPlot, kappa_data

# Leases the project page lists (oldest first); the API lists them all.
LEASES_SHOWN = 20
# Rows of each diff list shown on the page; the API lists them all.
DIFF_ROWS_ON_PAGE = 500
WEIGHTS_NOTES = {"linear": "Linearly weighted kappa.", "quadratic": "Quadratically weighted kappa."}


def annotator_rows(project: Project) -> list[dict]:
    """The project page's annotator table: ``annotator_table`` (volume, gold accuracy, agreement
    with the ground truth, flags) plus membership (for qualification and blocking), for rating
    projects attention-check results, and ``answered``: every task the annotator answered (items,
    gold items, attention checks), the count their judging page shows them ("You have judged 12
    items"), which cannot leave gold items out without telling annotators which those were."""
    members = {member.annotator_id: member for member in Membership.objects.filter(project=project)}
    attention = attention_results(project) if project.is_rating else {}
    answered = dict(
        Judgement.objects.filter(project=project)
        .order_by()
        .values_list("annotator_id")
        .annotate(n=Count("id"))
        .values_list("annotator_id", "n")
    )
    return [
        row
        | {
            "membership": members.get(row["annotator_id"]),
            "attention": attention.get(row["annotator_id"]),
            "answered": answered.get(row["annotator_id"], 0),
        }
        for row in annotator_table(project)
    ]


@login_required
@require_GET
def project_detail(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The researcher's project page: live progress, annotators, the newest snapshot, downloads."""
    project = owned_project(request.user, project_id)
    snapshots = (
        GroundTruthSnapshot.objects.filter(project=project).defer("annotator_report").order_by("-version")[:1]
    )
    kinds = dict(project.tasks.values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))
    leases = list(live_leases(project))  # one per annotator at most
    try:
        kappa_plotted = bool(kappa_data(project))
    except NothingToPlot:
        kappa_plotted = False
    return render(
        request,
        "evaluation/project_detail.html",
        {
            "project": project,
            "progress": project_progress_figures(project),
            "charts": dashboard_charts(project),
            "kappa_plotted": kappa_plotted,
            "annotators": annotator_rows(project),
            "snapshots": snapshots,
            "kinds": kinds,
            "coverage": project_coverage(project),
            "leases": leases[:LEASES_SHOWN],
            "leases_total": len(leases),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def project_import(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Import topics, documents, runs, items, gold and qualification questions from a JSON file,
    and topics and reference qrels from TREC files.

    The JSON has the same shape as the import API's body; a TREC topic file and a qrels file (each
    uploaded or pasted) become its ``trec_topics`` and ``qrels``; the whole goes through the same
    flow (``collection.import_from_body``). All or nothing: on any error the page lists each
    problem with its field and line, and nothing is stored; pasted texts stay in their boxes.
    """
    project = owned_project(request.user, project_id)
    errors: list[str] = []
    pasted: dict[str, str] = {}
    uploaded = False
    if request.method == "POST":
        parts = {}
        for key, file_key in IMPORT_PARTS:
            upload = request.FILES.get(file_key)
            uploaded = uploaded or upload is not None
            parts[key] = (
                upload.read().decode("utf-8", errors="replace") if upload else request.POST.get(key, "")
            )
            if upload is None:
                pasted[key] = parts[key]  # shown again on an error, to be corrected rather than retyped
        try:
            body = page_import_body(parts, request.POST.get("qrels_name", ""))
            summary = import_from_body(project, body)
        except json.JSONDecodeError as error:
            errors = [f"line {error.lineno}, column {error.colno}: not valid JSON ({error.msg})"]
        except inputs.InputError as error:
            errors = [str(error)]
        except ImportFailed as failure:
            errors = failure.as_lines()
        else:
            messages.success(request, f"Imported {describe_import(summary)}.")
            return redirect("project-page", project_id=project.pk)
    return render(
        request,
        "evaluation/project_import.html",
        {
            "project": project,
            "errors": errors,
            "pasted": pasted.get("body", ""),
            "pasted_topics": pasted.get("trec_topics", ""),
            "pasted_qrels": pasted.get("qrels", ""),
            "qrels_name": request.POST.get("qrels_name", "") or "reference",
            "uploaded": bool(errors) and uploaded,
            "example": example_json(project.type, project.config or {}),
            "other_examples": other_examples(project.task_type),
        },
    )


# The Import page's parts: (the body's key, or "body" for the JSON itself; the file input's name).
IMPORT_PARTS = (("body", "file"), ("trec_topics", "topics_file"), ("qrels", "qrels_file"))


def page_import_body(parts: dict[str, str], qrels_name: str) -> dict:
    """The import body the Import page's parts make: the JSON (if any) with the TREC topic file
    and qrels file as its ``trec_topics`` and ``qrels``. A part given both in the JSON and as a
    file is refused rather than one of them dropped."""
    body = inputs.loads(parts["body"]) if parts["body"].strip() else {}
    if not isinstance(body, dict):
        raise ImportFailed([("", "the JSON must be one object with topics, documents, runs, items …")])
    for key in ("trec_topics", "qrels"):
        if parts[key].strip():
            if body.get(key):
                raise ImportFailed([(key, "given both in the JSON and as a file: keep one")])
            body[key] = parts[key]
    if body.get("qrels") and qrels_name.strip() and "qrels_name" not in body:
        body["qrels_name"] = qrels_name.strip()
    return body


class BadRequest(Exception):
    """Answered as a 400 page by ``answers_bad_request``."""


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
    return render(
        request,
        "evaluation/ground_truth.html",
        {
            "project": project,
            "snapshots": snapshots,
            "jobs": jobs,
            "active": active,
            "ties": tie_report(project, newest, TIES_ON_PAGE),
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
