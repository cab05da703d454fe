"""API of a project's runs: list (filtered by tag or group), inspect, download as a TREC run file,
and add more (only new pairs become items; a dry run counts them first).

Security behavior, for every endpoint here: researchers only (``IsResearcher``), and only for
projects they own (``owned_project``: anyone else's is a 404 with no hint that it exists).
"""

from __future__ import annotations

from dataclasses import asdict

import django_filters
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from annotation.models import Project
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.rest.renderers import PlainTextRenderer, with_downloads
from evaluation.collection.api import ProjectList
from evaluation.collection.flow import ImportFailed, import_from_body
from evaluation.collection.runs import run_file, with_line_totals
from evaluation.collection.serializers import ImportSummarySerializer
from evaluation.models import Run

RUN_KEYS = {"runs", "pool_depth", "pool_budget", "pool_method", "run_group", "dry_run"}


class RunSerializer(serializers.ModelSerializer):
    lines = serializers.IntegerField(source="line_total", read_only=True)
    download = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = [
            "id",
            "tag",
            "group",
            "description",
            "pool_depth",
            "lines",
            "created_at",
            "withdrawn_at",
            "download",
        ]
        extra_kwargs = {
            "withdrawn_at": {
                "help_text": "when it was withdrawn (kept, off the leaderboard); null if it is not"
            }
        }

    def get_download(self, run: Run) -> str:
        return reverse("run-trec-api", args=[run.project_id, run.pk], request=self.context.get("request"))


class RunFilter(django_filters.FilterSet):
    tag = django_filters.CharFilter(help_text="the run's tag, exactly")
    group = django_filters.CharFilter(help_text="the team's group name, exactly")

    class Meta:
        model = Run
        fields: list[str] = []


class RunListView(ProjectList):
    """The project's runs by tag (GET, paginated, filtered); add runs (POST ``{"runs": [text, …],
    "pool_depth", "pool_budget", "run_group", "dry_run"}``): only new pairs become items; a dry run
    (200) counts them first."""

    model = Run
    serializer_class = RunSerializer
    filterset_class = RunFilter
    parser_classes = [DepthLimitedJSONParser]

    def rows(self, project: Project):
        return with_line_totals(project.runs.all()).order_by("tag")

    @extend_schema(
        request=OpenApiTypes.OBJECT, responses={201: ImportSummarySerializer, 200: ImportSummarySerializer}
    )
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        body = request.data
        if isinstance(body, dict):
            extra = sorted(set(body) - RUN_KEYS)
            if extra:
                return Response({extra[0]: ["not a field of a runs body (use the import API)"]}, status=400)
            if not body.get("runs"):
                return Response({"runs": ["give at least one run file's text"]}, status=400)
        try:
            summary = import_from_body(project, body)
        except ImportFailed as failure:
            return Response(failure.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        return Response(
            asdict(summary), status=status.HTTP_200_OK if summary.dry_run else status.HTTP_201_CREATED
        )


class RunDetailView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses={200: RunSerializer})
    def get(self, request: Request, project_pk: int, pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        run = get_object_or_404(with_line_totals(project.runs.all()), pk=pk)
        return Response(RunSerializer(run, context={"request": request}).data)


class RunTrecView(APIView):
    """The run as a TREC run file (``qid Q0 docno rank score tag``, in trec_eval's order)."""

    permission_classes = [IsResearcher]
    renderer_classes = with_downloads(PlainTextRenderer)

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR})
    def get(self, request: Request, project_pk: int, pk: int) -> HttpResponse:
        project = owned_project(request.user, project_pk)
        run = get_object_or_404(project.runs, pk=pk)
        return HttpResponse(run_file(run), content_type="text/plain; charset=utf-8")
