"""The written content units of a ``scu_writing`` project: the page that merges them (and undoes a
merge), their JSON Lines download for the Pyramid import, and the same over the API.

Security behavior: the project's owner only (``owned_project``: anyone else's is a 404; an annotator
is a 403 on the API); the page takes GET and POST, the API GET and POST.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import Project
from annotation.permissions import AuthenticatedHttpRequest, IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.serializers import StrictSerializer
from evaluation.models import UnitMerge
from evaluation.pyramid.written import MergeProblem, import_units, merge_units, written_units


def writing_project(user, project_id: int) -> Project:
    project = owned_project(user, project_id)
    if project.task_type != Project.TaskType.SCU_WRITING:
        raise Http404("not a content-unit writing project")
    return project


def as_rows(groups) -> list[dict]:
    return [
        {
            "statement": g.statement,
            "references": g.references,
            "weight": g.weight,
            "writers": g.writers,
            "keys": g.keys,
            "merge": g.merge,
        }
        for g in groups
    ]


@login_required
@require_http_methods(["GET", "POST"])
def written_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    project = owned_project(request.user, project_id)
    if project.task_type != Project.TaskType.SCU_WRITING:  # the page says what it is for
        return render(
            request, "evaluation/pyramid_written.html", {"project": project, "inputs": [], "other": True}
        )
    if request.method == "POST":
        if request.POST.get("undo"):
            deleted, _ = UnitMerge.objects.filter(project=project, pk=request.POST["undo"]).delete()
            messages.success(request, "Merge undone." if deleted else "That merge was undone already.")
        else:
            try:
                merge = merge_units(
                    project,
                    request.user,
                    request.POST.get("input", ""),
                    request.POST.getlist("keys"),
                    request.POST.get("statement", ""),
                )
            except MergeProblem as problem:
                messages.error(request, f"{problem.field}: {problem.message}")
            else:
                messages.success(request, f"Merged {len(merge.keys)} content units as “{merge.statement}”.")
        return redirect("pyramid-written", project_id=project.pk)
    if request.GET.get("as") == "jsonl":
        text = "".join(json.dumps(unit, ensure_ascii=False) + "\n" for unit in import_units(project))
        response = HttpResponse(text, content_type="application/x-ndjson; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="project{project.pk}-units.jsonl"'
        return response
    inputs = [(input_id, as_rows(groups)) for input_id, groups in written_units(project).items()]
    return render(request, "evaluation/pyramid_written.html", {"project": project, "inputs": inputs})


class MergeIn(StrictSerializer):
    input = serializers.CharField(max_length=200)
    keys = serializers.ListField(child=serializers.CharField(max_length=300), min_length=2, max_length=200)
    statement = serializers.CharField(max_length=300)


class WrittenUnitsView(APIView):
    """The written content units per input, grouped (GET); merge some of one input into one (POST
    ``{"input", "keys", "statement"}``: 201 with the merge; 400 naming the field)."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, project_pk: int) -> Response:
        project = writing_project(request.user, project_pk)
        groups = written_units(project)
        return Response(
            {
                "inputs": {input_id: as_rows(found) for input_id, found in groups.items()},
                "units": import_units(project),
            }
        )

    @extend_schema(request=MergeIn, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, project_pk: int) -> Response:
        project = writing_project(request.user, project_pk)
        asked = MergeIn(data=request.data)
        asked.is_valid(raise_exception=True)
        try:
            data = asked.validated_data
            merge = merge_units(project, request.user, data["input"], data["keys"], data["statement"])
        except MergeProblem as problem:
            return Response({problem.field: [problem.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {"id": merge.pk, "input": merge.input_id, "keys": merge.keys, "statement": merge.statement},
            status=status.HTTP_201_CREATED,
        )
