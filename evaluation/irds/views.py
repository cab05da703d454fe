"""Pages of ir_datasets in and out: the import form (beside the Import page's others) that queues an
import job, and the export download.

Security behavior: the project's owner only (``owned_project``: anyone else gets 404). State changes
only on POST.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from annotation.permissions import AuthenticatedHttpRequest, owned_project
from evaluation.collection.flow import ImportFailed
from evaluation.irds.api import export_response
from evaluation.irds.importing import choice_from, send_import
from evaluation.models import ImportJob

# The form's fields read as text; the list fields split on commas or whitespace.
LIST_FIELDS = ("doc_fields", "topics")
TEXT_FIELDS = ("dataset", "query_field", "description_field", "title_field", "qrels", "qrels_name", "run_tag")
NUMBER_FIELDS = ("max_documents", "relevant_from", "pool_depth")
JOBS_LISTED = 10  # the newest import jobs the page lists


def form_request(post) -> dict:
    """The form's fields as the API's request: blanks left to the defaults."""
    data: dict = {}
    for name in TEXT_FIELDS:
        if value := post.get(name, "").strip():
            data[name] = value
    for name in LIST_FIELDS:
        if value := post.get(name, "").replace(",", " ").split():
            data[name] = value
    for name in NUMBER_FIELDS:
        if value := post.get(name, "").strip():
            data[name] = value  # the serializer says if it is not a whole number
    data["scoreddocs"] = post.get("scoreddocs") == "on"
    return data


@login_required
@require_http_methods(["GET", "POST"])
def project_import_ir_datasets(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Queue an import of an ir_datasets dataset into the project (the API's request, as a form), and
    list the project's ir_datasets import jobs with their stage and progress, or what they created,
    or why they were refused. A refusal of the form lists each problem by field and keeps what was
    typed; a queued job is followed here."""
    project = owned_project(request.user, project_id)
    errors: list[str] = []
    if request.method == "POST":
        try:
            job = send_import(request.user, project, choice_from(form_request(request.POST)))
        except ImportFailed as failure:
            errors = failure.as_lines()
        else:
            messages.success(request, f"Import job {job.pk} queued: {job.options['dataset']} is being read.")
            return redirect("project-import-ir-datasets", project_id=project.pk)
    jobs = ImportJob.objects.filter(project=project, kind=ImportJob.Kind.IR_DATASETS).defer("body")
    return render(
        request,
        "evaluation/project_import_ir_datasets.html",
        {"project": project, "errors": errors, "typed": request.POST, "jobs": jobs[:JOBS_LISTED]},
        status=400 if errors else 200,
    )


@login_required
@require_GET
def project_export_ir_datasets(request: AuthenticatedHttpRequest, project_id: int) -> FileResponse:
    """The project as files ir_datasets and the TREC tools read (a ZIP)."""
    return export_response(owned_project(request.user, project_id))
