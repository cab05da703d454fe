"""The project page: both sides of a project (progress, annotators, leases, ground truth, the ways to undo
a mistake). Server-rendered; state changes only on POST; every value is escaped by the templates.

Security behavior, for every view here: the project's owner only (``owned_project``: anyone else,
researcher or not, gets 404 with no hint that the project exists)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation.judging.coverage import project_coverage
from annotation.models import Judgement, Membership, Project
from annotation.permissions import AuthenticatedHttpRequest, owned_project
from annotation.progress.live import dashboard_charts, project_progress_figures, task_counts
from annotation.projects.removal import live_leases
from annotation.quality.attention_results import attention_results
from evaluation.ground_truth.report import (
    annotator_table,
)
from evaluation.models import GroundTruthSnapshot
from evaluation.scoring.plots import NothingToPlot, kappa_data

# Leases the project page lists (oldest first); the API lists them all.
LEASES_SHOWN = 20


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
    counts = task_counts(project)
    kinds = {kind: row["total"] for kind, row in counts.items()}
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
            "progress": project_progress_figures(project, counts=counts),
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
