"""File downloads shared by the pages and the API."""

from __future__ import annotations

from django.http import HttpResponse

from annotation.ground_truth import snapshot_qrels_lines

from .models import GroundTruthSnapshot


def qrels_response(snapshot: GroundTruthSnapshot) -> HttpResponse:
    """The snapshot as a TREC qrels attachment named after its project and version."""
    body = "".join(line + "\n" for line in snapshot_qrels_lines(snapshot))
    response = HttpResponse(body, content_type="text/plain; charset=utf-8")
    filename = f"project{snapshot.project_id}-v{snapshot.version}.qrels"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
