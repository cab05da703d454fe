"""Before any task: the project's consent form and its questions about the annotator (answers kept
apart from judgements). State changes only on POST. (The researcher's side, the answers as a file
and the erasure of personal data, is ``annotation.accounts.crowd_views``.)
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from annotation.crowd.questionnaire import PREFER_NOT, AnswerProblem, read_answers
from annotation.judging.views import annotator_project, render_markdown
from annotation.models import DemographicResponse, Membership
from annotation.permissions import AuthenticatedHttpRequest


def member_of(request: AuthenticatedHttpRequest, project_id: int) -> Membership:
    project = annotator_project(request, project_id)  # 404 for anyone else
    return Membership.objects.select_related("project").get(project=project, annotator=request.user)


@login_required
@require_http_methods(["GET", "POST"])
def consent(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The consent form: accepting it (POST ``accept``) opens the tasks; declining says what to do.

    Security behavior: the project's annotators only (anyone else: 404); the text is the
    researcher's Markdown, sanitised.
    """
    member = member_of(request, project_id)
    project = member.project
    if not project.consent_text:
        return redirect("judge", project_id=project.pk)
    if request.method == "POST":
        if request.POST.get("answer") == "accept":
            Membership.objects.filter(pk=member.pk, consented_at__isnull=True).update(
                consented_at=timezone.now()
            )
            messages.success(request, "Thank you: you have given your consent.")
            return redirect("about-you" if project.demographics else "judge", project_id=project.pk)
        return render(request, "annotation/consent.html", {"project": project, "declined": True})
    context = {"project": project, "text": render_markdown(project.consent_text), "member": member}
    return render(request, "annotation/consent.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def about_you(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The project's questions about the annotator, asked once, before any task ("prefer not to say"
    always offered). Security behavior: the project's annotators only; the answers are seen by the
    researcher only in counts, or in a file apart from the judgements, under the pseudonym."""
    member = member_of(request, project_id)
    project = member.project
    if not project.demographics:
        return redirect("judge", project_id=project.pk)
    if project.consent_text and member.consented_at is None:
        return redirect("consent", project_id=project.pk)
    problem = None
    if request.method == "POST":
        try:
            answers = read_answers(project.demographics, request.POST)
        except AnswerProblem as error:
            problem = error
        else:
            with transaction.atomic():
                DemographicResponse.objects.update_or_create(
                    project=project, annotator=request.user, defaults={"answers": answers}
                )
                Membership.objects.filter(pk=member.pk).update(demographics_at=timezone.now())
            messages.success(request, "Thank you for your answers.")
            return redirect("judge", project_id=project.pk)
    questions = [
        {**question, "field": f"q-{question['name']}", "given": request.POST.get(f"q-{question['name']}", "")}
        for question in project.demographics
    ]
    context = {"project": project, "questions": questions, "problem": problem, "prefer_not": PREFER_NOT}
    return render(request, "annotation/about_you.html", context, status=400 if problem else 200)
