"""Server-rendered pages for annotators and researchers. State changes only on POST."""

from __future__ import annotations

import markdown
import nh3
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from evaluation.downloads import qrels_response
from evaluation.models import GroundTruthSnapshot

from .assignment import AssignmentError, claim_next_task, live_assignment, submit_judgement
from .models import Project
from .tasks import request_ground_truth


def render_instructions(text: str) -> str:
    """Markdown from a researcher, rendered and sanitised: imported text never reaches a page raw."""
    return mark_safe(nh3.clean(markdown.markdown(text)))


def annotator_project(request: HttpRequest, project_id: int) -> Project:
    """The project if the user is one of its annotators; 404 otherwise (no hint it exists)."""
    project = get_object_or_404(Project, pk=project_id, active=True)
    if not project.annotators.filter(pk=request.user.pk).exists():
        raise Http404("No such project")
    return project


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The annotator's queue and the researcher's projects.

    Security behavior: lists only projects the user annotates or owns.
    """
    annotating = (
        Project.objects.filter(annotators=request.user, active=True)
        .annotate(
            total_tasks=Count("tasks", distinct=True),
            open_tasks=Count("tasks", filter=Q(tasks__completed=False), distinct=True),
        )
        .order_by("name")
    )
    rows = []
    for project in annotating:
        mine = project.tasks.filter(judgements__annotator=request.user).count()
        rows.append({"project": project, "judged_by_me": mine})
    owned = Project.objects.filter(owner=request.user).order_by("name")
    return render(request, "annotation/home.html", {"annotating": rows, "owned": owned})


@login_required
@require_GET
def judge(request: HttpRequest, project_id: int) -> HttpResponse:
    """Show the annotator's current task, or a button to get the next one.

    Security behavior: project annotators only; shows only the annotator's own lease — never
    other annotators' judgements or any aggregated label.
    """
    project = annotator_project(request, project_id)
    assignment = live_assignment(project, request.user)
    judged = project.tasks.filter(judgements__annotator=request.user).count()
    return render(
        request,
        "annotation/judge.html",
        {
            "project": project,
            "assignment": assignment,
            "judged_by_me": judged,
            "instructions": render_instructions(project.instructions),
        },
    )


def lease_next_task(request: HttpRequest, project: Project) -> None:
    if claim_next_task(project, request.user) is None:
        messages.info(request, "There is nothing left for you to judge in this project. Thank you!")


@login_required
@require_POST
def claim(request: HttpRequest, project_id: int) -> HttpResponse:
    """Lease the next task in pool order to the annotator."""
    project = annotator_project(request, project_id)
    lease_next_task(request, project)
    return redirect("judge", project_id=project.pk)


@login_required
@require_POST
def submit(request: HttpRequest, project_id: int, assignment_id: int) -> HttpResponse:
    """Store the judgement (committed before the response), then lease the next task.

    Security behavior: accepted only against the annotator's own live lease, checked at submit time.
    """
    project = annotator_project(request, project_id)
    try:
        label = int(request.POST.get("label", ""))
    except ValueError:
        messages.error(request, "Choose relevant or not relevant before submitting.")
        return redirect("judge", project_id=project.pk)
    try:
        submit_judgement(assignment_id, request.user, label)
    except AssignmentError as error:
        messages.error(request, str(error))
        return redirect("judge", project_id=project.pk)
    transaction.on_commit(lambda: request_ground_truth(project.pk))
    messages.success(request, "Saved.")
    lease_next_task(request, project)
    return redirect("judge", project_id=project.pk)


def owned_project(request: HttpRequest, project_id: int) -> Project:
    return get_object_or_404(Project, pk=project_id, owner=request.user)


@login_required
@require_GET
def project_detail(request: HttpRequest, project_id: int) -> HttpResponse:
    """The researcher's view of a project: progress and ground-truth snapshots.

    Security behavior: the project's owner only (anyone else gets 404).
    """
    project = owned_project(request, project_id)
    tasks = project.tasks.aggregate(
        total=Count("id"), completed=Count("id", filter=Q(completed=True)), judgements=Count("judgements")
    )
    snapshots = GroundTruthSnapshot.objects.filter(project=project).order_by("-version")[:20]
    return render(
        request,
        "annotation/project_detail.html",
        {"project": project, "tasks": tasks, "snapshots": snapshots},
    )


@login_required
@require_GET
def snapshot_qrels(request: HttpRequest, project_id: int, version: int) -> HttpResponse:
    """Download a snapshot as TREC qrels. Security behavior: the project's owner only."""
    project = owned_project(request, project_id)
    return qrels_response(get_object_or_404(GroundTruthSnapshot, project=project, version=version))
