"""The Pyramid page of a ``scu_presence`` project: the systems' scores from the newest snapshot (with
their intervals and the crowd's agreement), and the form that imports a campaign (a JSON file, the
API's body).

Security behavior: the project's owner only (``owned_project``: anyone else's is a 404); GET shows,
POST imports.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from rest_framework.exceptions import ValidationError

from annotation.items.importing import ImportProblem
from annotation.pay.costs import cost_in_words
from annotation.permissions import AuthenticatedHttpRequest, owned_project
from evaluation.pyramid.importing import import_pyramid
from evaluation.pyramid.scores import snapshot_pyramid


def flat_errors(detail, where: str = "") -> list[str]:
    """DRF's nested errors (a list's keyed by position) as ``units[2].statement: message`` lines."""
    if isinstance(detail, dict):
        return [
            line
            for key, value in detail.items()
            for line in flat_errors(
                value, f"{where}[{key}]" if str(key).isdigit() else f"{where}.{key}".lstrip(".")
            )
        ]
    return [f"{where}: {message}" for message in (detail if isinstance(detail, list) else [detail])]


@login_required
@require_http_methods(["GET", "POST"])
def pyramid_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    project = owned_project(request.user, project_id)
    if request.method == "POST":
        upload = request.FILES.get("file")
        try:
            body = json.loads(upload.read().decode("utf-8")) if upload else None
            if not isinstance(body, dict):
                raise ImportProblem("file", "choose the JSON file to import (a JSON object)")
            counts = import_pyramid(project, body | {"dry_run": "preview" in request.POST})
        except (ValueError, UnicodeDecodeError) as error:  # ImportProblem is a ValueError too
            text = (
                f"{error.field}: {error.message}"
                if isinstance(error, ImportProblem)
                else f"file: not JSON ({error})"
            )
            messages.error(request, f"Nothing was imported. {text}")
        except ValidationError as error:
            messages.error(request, "Nothing was imported. " + "; ".join(flat_errors(error.detail)[:20]))
        else:
            if counts["dry_run"]:
                messages.info(
                    request,
                    f"Preview, nothing stored: {counts['units_created']} content units and "
                    f"{counts['summaries_created']} summaries make {counts['tasks_created']} presence items, "
                    f"{counts['judgements_needed']} judgements at {project.assignments_per_task} per item"
                    f"{cost_in_words(counts['cost'])}.",
                )
                return redirect("pyramid-page", project_id=project.pk)
            messages.success(
                request,
                f"Imported {counts['units_created']} content units, {counts['summaries_created']} summaries, "
                f"{counts['references_created']} references: {counts['tasks_created']} presence items.",
            )
        return redirect("pyramid-page", project_id=project.pk)
    snapshot = project.snapshots.order_by("-version").first()
    scores = snapshot_pyramid(snapshot) if snapshot and project.content_units.exists() else None
    return render(
        request,
        "evaluation/pyramid.html",
        {
            "project": project,
            "scores": scores,
            "units": project.content_units.count(),
            "summaries": project.tasks.filter(kind="item").values("system_id", "input_id").distinct().count(),
        },
    )
