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

from annotation.items.importing import ImportProblem
from annotation.models import Project
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.rest.renderers import PlainTextRenderer, with_downloads
from annotation.serializers import StrictSerializer
from evaluation.collection.api import ProjectList
from evaluation.collection.flow import ImportFailed, flatten_errors, import_from_body
from evaluation.collection.fusion import METHODS, NORMALISATIONS, fuse_project_runs
from evaluation.collection.runs import run_file, with_line_totals
from evaluation.collection.serializers import ImportSummarySerializer
from evaluation.models import Run

RUN_KEYS = {
    "runs",
    "pool_depth",
    "pool_budget",
    "pool_method",
    "pool_strata",
    "pool_seed",
    "run_group",
    "dry_run",
    "judge_prior",
}


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
    "pool_depth", "pool_budget", "run_group", "dry_run", "judge_prior"}``): only new pairs become items,
    and pairs a prior set judges are left out unless ``judge_prior``; a dry run (200) counts them first,
    with the judgements the prior sets save."""

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


class FuseSerializer(StrictSerializer):
    runs = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        min_length=2,
        max_length=1000,
        help_text="The ids of the project's runs to fuse, two or more.",
    )
    method = serializers.ChoiceField(
        choices=list(METHODS),
        default="rrf",
        help_text="rrf: the sum of 1/(k + rank) (Cormack, Clarke & Büttcher 2009); combsum: the sum of "
        "the normalised scores; combmnz: that sum times how many runs retrieved the document (Fox & "
        "Shaw 1994). Equal to ranx.fuse.",
    )
    normalisation = serializers.ChoiceField(
        choices=list(NORMALISATIONS),
        default="min-max",
        help_text="Each run's scores per topic before combsum or combmnz; rrf reads ranks only.",
    )
    tag = serializers.CharField(
        max_length=200, required=False, default="", help_text="The new run's tag (default: the method)."
    )
    rrf_k = serializers.IntegerField(min_value=0, max_value=1_000_000, default=60, help_text="RRF's k.")
    depth = serializers.IntegerField(
        min_value=1,
        max_value=100_000,
        required=False,
        allow_null=True,
        default=None,
        help_text="Keep each topic's first N fused documents (default: all).",
    )
    pool_depth = serializers.IntegerField(
        min_value=0,
        max_value=100_000,
        default=0,
        help_text="Pool the fused run's top N documents per topic as items (0: store it unpooled).",
    )
    pool_method = serializers.ChoiceField(choices=["depth", "rbp"], default="depth")
    judge_prior = serializers.BooleanField(
        default=False, help_text="Pool pairs a prior set already judges too (default: left out)."
    )


class FusedRunSerializer(RunSerializer):
    items_created = serializers.IntegerField(read_only=True, help_text="Items its pooling added.")

    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "items_created"]


class RunFuseView(APIView):
    """Fuse chosen runs of the project into a new run (POST ``{"runs": [id, …], "method",
    "normalisation", "tag", "rrf_k", "depth", "pool_depth", "pool_method"}``): 201 with the new run;
    400 naming the field for bad input (fewer than two runs, a run not of this project, runs with no
    topic in common, a tag the project already has)."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(request=FuseSerializer, responses={201: FusedRunSerializer})
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        body = FuseSerializer(data=request.data)
        if not body.is_valid():
            return Response(ImportFailed(list(flatten_errors(body.errors))).as_dict(), status=400)
        settings = dict(body.validated_data)
        try:
            fused = fuse_project_runs(project, settings.pop("runs"), **settings)
        except ImportProblem as problem:
            return Response({problem.field: [problem.message]}, status=status.HTTP_400_BAD_REQUEST)
        run = with_line_totals(project.runs.all()).get(pk=fused.run.pk)
        answer = {
            **RunSerializer(run, context={"request": request}).data,
            "items_created": fused.items_created,
        }
        return Response(answer, status=status.HTTP_201_CREATED)
