"""The page form that imports prior judgements (beside the external-qrels form on the Evaluations
page) and the one that sets their precedence.

Security behavior: the project's owner only (``owned_project``: anyone else's is a 404, an annotator
a 403); POST only.
"""

from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from annotation.items.importing import ImportProblem
from annotation.permissions import AuthenticatedHttpRequest, owned_project
from evaluation.prior.importing import import_prior_qrels
from evaluation.prior.jobs import prior_changed
from evaluation.prior.settings import set_precedence


@login_required
@require_POST
def prior_qrels(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Import a qrels file as a prior set; its pairs are left out of later pools and merged into
    the ground truth."""
    project = owned_project(request.user, project_id)
    upload = request.FILES.get("file")
    text = upload.read().decode("utf-8", errors="replace") if upload else request.POST.get("qrels", "")
    try:
        judged_on = date.fromisoformat(request.POST["date"]) if request.POST.get("date") else None
    except ValueError:
        messages.error(request, "date: give it as YYYY-MM-DD")
        return redirect("evaluations-page", project_id=project.pk)
    try:
        prior = import_prior_qrels(
            project,
            request.POST.get("name", ""),
            text,
            source=request.POST.get("source", "")[:300],
            judged_on=judged_on,
            assessor=request.POST.get("assessor", "")[:200],
        )
    except ImportProblem as problem:
        messages.error(request, f"{problem.field}: {problem.message}")
        return redirect("evaluations-page", project_id=project.pk)
    prior_changed(project)
    messages.success(
        request,
        f"Prior judgements {prior.name}: {prior.judged_count} judgements, {prior.relevant_count} relevant.",
    )
    return redirect("evaluations-page", project_id=project.pk)


@login_required
@require_POST
def prior_precedence(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Set which label the ground truth keeps where crowd and prior both judged a pair."""
    project = owned_project(request.user, project_id)
    try:
        set_precedence(project, request.POST.get("precedence", ""))
    except ValueError as error:
        messages.error(request, f"precedence: {error}")
        return redirect("evaluations-page", project_id=project.pk)
    prior_changed(project)
    messages.success(request, "Precedence saved: the next ground-truth snapshot follows it.")
    return redirect("evaluations-page", project_id=project.pk)
