"""The researcher's side of crowd workers (on the Annotators page): study links listed, MTurk's
ExternalQuestion, the workers' answers about themselves as a file apart from the judgements, and the
erasure of a worker's personal data. The work is ``annotation.judging.platforms``' and
``annotation.accounts.erasure``'s; the workers' own pages are ``annotation.judging``'s.
"""

from __future__ import annotations

import csv
import io

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation.accounts.erasure import erase_personal_data
from annotation.items.inputs import spreadsheet_safe
from annotation.judging.platforms import external_question_xml, study_url
from annotation.models import DemographicResponse, Membership, PlatformWorker, StudyLink
from annotation.permissions import AuthenticatedHttpRequest, owned_project


def link_rows(request: HttpRequest, project) -> list[dict]:
    rows = []
    for link in project.study_links.all():
        sessions = list(link.sessions.values_list("outcome", flat=True))
        rows.append(
            {
                "link": link,
                "url": study_url(
                    request.build_absolute_uri(reverse("study", args=[link.slug])), link.platform
                ),
                "started": len(sessions),
                "completed": sessions.count("completed"),
                "screened_out": sessions.count("screened_out"),
                "workers": PlatformWorker.objects.filter(sessions__link=link).distinct().count(),
            }
        )
    return rows


@login_required
@require_GET
def external_question(request: AuthenticatedHttpRequest, project_id: int, link_id: int) -> HttpResponse:
    """The link's ExternalQuestion XML for MTurk's CreateHIT. Security behavior: the project's owner only."""
    project = owned_project(request.user, project_id)
    link = get_object_or_404(StudyLink, pk=link_id, project=project, platform=StudyLink.Platform.MTURK)
    url = request.build_absolute_uri(reverse("study", args=[link.slug]))
    response = HttpResponse(external_question_xml(url), content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="external-question-{link.slug}.xml"'
    return response


@login_required
@require_GET
def demographics_file(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Every annotator's answers, by pseudonym (their username), apart from the judgements.
    Security behavior: the project's owner only (anyone else: 404)."""
    project = owned_project(request.user, project_id)
    names = [question["name"] for question in project.demographics]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["annotator", *names])
    for response in DemographicResponse.objects.filter(project=project).select_related("annotator"):
        writer.writerow(
            [response.annotator.username, *(spreadsheet_safe(response.answers.get(n)) for n in names)]
        )
    answer = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    answer["Content-Disposition"] = f'attachment; filename="project-{project.pk}-demographics.csv"'
    return answer


@login_required
@require_POST
def erase(request: AuthenticatedHttpRequest, project_id: int, user_id: int) -> HttpResponse:
    """Erase an annotator's personal data in the project (their platform id, their answers about
    themselves); their judgements stay under the pseudonym, and the erasure is recorded.
    Security behavior: the project's owner only; a user who is not a member is a 404."""
    project = owned_project(request.user, project_id)
    member = get_object_or_404(Membership, project=project, annotator_id=user_id)
    annotator = get_object_or_404(get_user_model(), pk=member.annotator_id)
    erased = erase_personal_data(project, annotator, request.user)
    messages.success(request, erased.summary)
    return redirect("project-annotators", project_id=project.pk)
