"""Server-rendered pages for researchers on the collecting side: create and configure projects,
watch progress, manage annotators and download what was judged. State changes only on POST.
(The project page, which shows ground truth too, and the collection import are ``evaluation``'s.)

Security behavior, for every view here: researchers only (group ``researchers`` or superusers;
others get 403 on creation pages), and a project's pages answer only its owner — anyone else,
researcher or not, gets 404 with no hint that the project exists.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.adjudication.rules import RULE_SETTINGS, apply_rule, describe_rule_change
from annotation.forms import ProjectForm
from annotation.judging.assignment import block_annotator, unblock_annotator
from annotation.judging.coverage import (
    HOW_TO_BRING_IN,
    apply_k_to_items,
    k_problem_of,
    lower_k_of_stranded_items,
)
from annotation.models import Judgement, Membership
from annotation.permissions import AuthenticatedHttpRequest, is_researcher, owned_project
from annotation.progress.live import project_progress_figures
from annotation.projects.downloads import judgements_response
from annotation.projects.removal import record_active_setting


def researcher_only(request: AuthenticatedHttpRequest) -> None:
    if not is_researcher(request.user):
        raise PermissionDenied("Only researchers may manage projects.")


@login_required
@require_http_methods(["GET", "POST"])
def project_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Create a project; the creator owns it."""
    researcher_only(request)
    form = ProjectForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        form.instance.owner = request.user
        project = form.save()
        messages.success(request, f"Project “{project.name}” created. Now import what is to be judged.")
        warn_about_coverage(request, project)
        warn_about_ties(request, project)
        return redirect("project-import", project_id=project.pk)
    return render(request, "annotation/project_form.html", {"form": form, "project": None})


@login_required
@require_http_methods(["GET", "POST"])
def project_settings(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Change a project's settings (task type and config only before anything is judged)."""
    project = owned_project(request.user, project_id)
    judged = Judgement.objects.filter(task__project=project).exists()
    form = ProjectForm(request.POST or None, instance=project)
    if judged:
        for name in ProjectForm.FIXED_ONCE_JUDGED:
            form.fields[name].disabled = True
    old_k = project.assignments_per_task
    was_active = project.active
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Settings saved.")
        if record_active_setting(project, request.user, was_active):
            messages.info(request, "The project is now " + ("open again." if project.active else "archived."))
        changed = apply_k_to_items(project, old_k)
        if changed:
            messages.info(
                request,
                f"k is now {project.assignments_per_task} for {changed} item{pluralize(changed)} that had "
                f"k = {old_k} (items whose k was set on their own keep it).",
            )
        warn_about_coverage(request, project)
        warn_about_ties(request, project)
        if set(RULE_SETTINGS) & set(form.changed_data):
            messages.info(request, describe_rule_change(apply_rule(project)))
        return redirect("project-page", project_id=project.pk)
    return render(
        request, "annotation/project_form.html", {"form": form, "project": project, "judged": judged}
    )


@login_required
@require_GET
def project_progress(request: AuthenticatedHttpRequest, project_id: int) -> JsonResponse:
    """The dashboard's numbers as JSON, polled by the page to update itself."""
    project = owned_project(request.user, project_id)
    return JsonResponse(project_progress_figures(project))


@login_required
@require_POST
def member_block(request: AuthenticatedHttpRequest, project_id: int, user_id: int) -> HttpResponse:
    """Block an annotator: they get no more tasks; their live leases return to the pool."""
    project = owned_project(request.user, project_id)
    member = get_object_or_404(Membership, project=project, annotator_id=user_id)
    released = block_annotator(project, member.annotator, request.POST.get("reason", ""))
    returned = f"{released} lease{pluralize(released)} returned to the pool" if released else "no lease held"
    messages.success(request, f"{member.annotator.username} is blocked ({returned}).")
    warn_about_coverage(request, project)
    return redirect("project-page", project_id=project.pk)


@login_required
@require_POST
def member_unblock(request: AuthenticatedHttpRequest, project_id: int, user_id: int) -> HttpResponse:
    project = owned_project(request.user, project_id)
    member = get_object_or_404(Membership, project=project, annotator_id=user_id)
    was = member.status
    unblock_annotator(project, member.annotator)
    again = "" if was == Membership.Status.INACTIVE else " again"
    messages.success(request, f"{member.annotator.username} may take tasks{again}.")
    return redirect("project-page", project_id=project.pk)


@login_required
@require_POST
def member_add(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    project = owned_project(request.user, project_id)
    username = request.POST.get("username", "").strip()
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        messages.error(request, f"No user named “{username}”.")
    else:
        Membership.objects.get_or_create(project=project, annotator=user)
        messages.success(request, f"{username} now annotates this project.")
    return redirect("project-page", project_id=project.pk)


@login_required
@require_POST
def lower_k(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Lower the k of the items that can never reach it to the judgements they can still get, so they
    complete instead of staying open for ever (the project page offers it beside the list).

    Security behavior: the project's owner only (anyone else gets 404).
    """
    project = owned_project(request.user, project_id)
    changed = lower_k_of_stranded_items(project)
    if changed:
        messages.success(
            request, f"k lowered for {changed} item{pluralize(changed)} to what each can still reach."
        )
    else:
        messages.info(request, "No item's k could be lowered: bring in more annotators instead.")
    return redirect("project-page", project_id=project.pk)


def warn_about_ties(request: AuthenticatedHttpRequest, project) -> None:
    """Say what becomes of ties when k is even under majority vote (the API answers it as a warning)."""
    if project.even_k_warning:
        messages.warning(request, project.even_k_warning)


def warn_about_coverage(request: AuthenticatedHttpRequest, project) -> None:
    """Say so when k exceeds the eligible annotators (the project page says it too, and how to fix it)."""
    problem = k_problem_of(project)
    if problem:
        messages.warning(request, f"{problem} {HOW_TO_BRING_IN}")


@login_required
@require_GET
def judgements_download(
    request: AuthenticatedHttpRequest, project_id: int, fmt: str
) -> StreamingHttpResponse:
    """All judgements as CSV (answer as JSON text) or JSONL, streamed; ``?versions=all`` adds every
    correction as a row of its own."""
    project = owned_project(request.user, project_id)
    return judgements_response(project, fmt, every_version=request.GET.get("versions") == "all")
