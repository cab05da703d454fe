"""The Import page: a collection (JSON, TREC topic and qrels files) pasted or uploaded, all or nothing,
with an example per task type. Server-rendered; state changes only on POST; what was pasted is kept to
correct after a refusal.

Security behavior: the project's owner only (``owned_project``: anyone else gets 404)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotation.items import inputs
from annotation.permissions import AuthenticatedHttpRequest, owned_project
from evaluation.collection.examples import example_json, other_examples
from evaluation.collection.flow import ImportFailed, describe_import, import_from_body


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
