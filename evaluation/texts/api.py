"""The API of text projects' references, text evaluations and meta-evaluation (JSON).

- ``GET/POST /api/projects/{id}/references/``: list (paginated, ``?input=``); add
  ``{"references": [{"input", "text", "writer"}]}`` or, in one step, every text written in a free-text
  project ``{"from_project": id, "replace": false}``.
- ``GET/POST /api/projects/{id}/text-evaluations/``: list; request ``{"rouge_multi_ref", "stem"}`` (202).
- ``GET …/text-evaluations/{e}/``: status, progress, per-system means and signatures;
  ``…/outputs/`` every output's scores (paginated, ``?system=&input=``);
  ``…/meta-evaluation/?level=&method=`` the metric × dimension matrix;
  ``…/scatter/?metric=&dimension=&level=`` one pair's points and correlations with intervals.

Security behavior: researchers only, their own projects only (``owned_project``: 404 otherwise).
"""

from __future__ import annotations

import django_filters
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from annotation.models import Project
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.serializers import StrictSerializer
from evaluation.collection.api import ProjectList
from evaluation.collection.references import import_references
from evaluation.collection.serializers import ReferenceInSerializer
from evaluation.jobs.views import cancel_by_api
from evaluation.metrics.meta_evaluation import LEVELS, METHODS
from evaluation.metrics.text.scores import METRICS, check_metrics
from evaluation.models import OutputScore, Reference, TextEvaluation
from evaluation.texts.imported_scores import (
    ScoreImportError,
    decoded,
    import_metric_scores,
    read_score_rows,
)
from evaluation.texts.jobs import (
    TEXT_EVALUATIONS,
    ReferencesProblem,
    references_from_free_text,
    request_text_evaluation,
)
from evaluation.texts.meta_report import ReportProblem, correlation_matrix, scatter
from evaluation.texts.systems import systems_data


class ReferenceSerializer(serializers.ModelSerializer):
    input = serializers.CharField(source="input_id")

    class Meta:
        model = Reference
        fields = ["id", "input", "text", "writer", "source", "created_at"]


class ReferencesInSerializer(StrictSerializer):
    references = ReferenceInSerializer(many=True, required=False)
    from_project = serializers.IntegerField(
        required=False, min_value=1, max_value=2**31 - 1, help_text="a free-text project of yours"
    )
    replace = serializers.BooleanField(
        default=False, help_text="with from_project: first remove the references taken from it before"
    )

    def validate(self, attrs):
        if bool(attrs.get("references")) == ("from_project" in attrs):
            raise serializers.ValidationError(
                {"references": ["give either references or from_project (a free-text project's id)"]}
            )
        return attrs


class ReferenceFilter(django_filters.FilterSet):
    input = django_filters.CharFilter(field_name="input_id", help_text="the input's id, exactly")
    writer = django_filters.CharFilter()

    class Meta:
        model = Reference
        fields: list[str] = []


class ReferenceListView(ProjectList):
    """The project's references by input (GET); add references, or take a free-text project's texts
    (POST, 201)."""

    model = Reference
    serializer_class = ReferenceSerializer
    filterset_class = ReferenceFilter
    parser_classes = [DepthLimitedJSONParser]

    def rows(self, project: Project):
        return project.references.order_by("input_id", "id")

    @extend_schema(request=ReferencesInSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        body = ReferencesInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if "from_project" in body.validated_data:
            source = owned_project(request.user, body.validated_data["from_project"])
            try:
                created = references_from_free_text(source, project, replace=body.validated_data["replace"])
            except ReferencesProblem as problem:
                return Response({"from_project": [str(problem)]}, status=status.HTTP_400_BAD_REQUEST)
        else:
            created = import_references(project, body.validated_data["references"])
        total = project.references.count()
        return Response(
            {"references_created": created, "references_total": total}, status=status.HTTP_201_CREATED
        )


class TextEvaluationSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = TextEvaluation
        fields = [
            "id",
            "url",
            "status",
            "stage",
            "progress",
            "error",
            "rouge_multi_ref",
            "stem",
            "metrics",
            "output_count",
            "unscored",
            "signatures",
            "lower_is_better",
            "per_system",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_url(self, evaluation: TextEvaluation) -> str:
        return reverse(
            "text-evaluation-api",
            args=[evaluation.project_id, evaluation.pk],
            request=self.context.get("request"),
        )


class TextEvaluationRequestSerializer(StrictSerializer):
    rouge_multi_ref = serializers.ChoiceField(choices=TextEvaluation.MultiReference.choices, default="max")
    stem = serializers.BooleanField(default=True)
    metrics = serializers.MultipleChoiceField(
        choices=list(METRICS),
        default=set(METRICS),  # validate_metrics puts them in the module's order
        allow_empty=False,
        help_text="The metrics to compute (default all). TER takes most of the time on long outputs.",
    )

    def validate_metrics(self, value) -> list[str]:
        return check_metrics(list(value))


class TextEvaluationListView(ProjectList):
    """Text evaluations, newest first (GET); request one (POST): 202 with the job."""

    model = TextEvaluation
    serializer_class = TextEvaluationSerializer
    parser_classes = [DepthLimitedJSONParser]

    def rows(self, project: Project):
        return project.text_evaluations.order_by("-pk")

    @extend_schema(request=TextEvaluationRequestSerializer, responses={202: TextEvaluationSerializer})
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        body = TextEvaluationRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        evaluation = request_text_evaluation(project, **body.validated_data)
        data = TextEvaluationSerializer(evaluation, context={"request": request}).data
        return Response(data, status=status.HTTP_202_ACCEPTED)


def owned_evaluation(request: Request, project_pk: int, pk: int) -> TextEvaluation:
    project = owned_project(request.user, project_pk)
    return get_object_or_404(project.text_evaluations.select_related("project"), pk=pk)


class TextEvaluationDetailView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses={200: TextEvaluationSerializer})
    def get(self, request: Request, project_pk: int, pk: int) -> Response:
        evaluation = owned_evaluation(request, project_pk, pk)
        return Response(TextEvaluationSerializer(evaluation, context={"request": request}).data)


class OutputScoreSerializer(serializers.ModelSerializer):
    system = serializers.CharField(source="system_id")
    input = serializers.CharField(source="input_id")

    class Meta:
        model = OutputScore
        fields = ["system", "input", "task", "scores"]


class OutputScoreFilter(django_filters.FilterSet):
    system = django_filters.CharFilter(field_name="system_id")
    input = django_filters.CharFilter(field_name="input_id")

    class Meta:
        model = OutputScore
        fields: list[str] = []


class OutputScoreListView(ProjectList):
    """Every output's scores in one text evaluation, by system and input."""

    model = OutputScore
    serializer_class = OutputScoreSerializer
    filterset_class = OutputScoreFilter

    def rows(self, project: Project):
        evaluation = get_object_or_404(project.text_evaluations, pk=self.kwargs["pk"])
        return evaluation.outputs.order_by("system_id", "input_id")


LEVEL = OpenApiParameter("level", str, enum=list(LEVELS), description="default system")
METHOD = OpenApiParameter("method", str, enum=list(METHODS), description="default kendall")
NOT_READY = OpenApiResponse(description="the evaluation is not done, or the project has no ratings yet")


class MetaEvaluationView(APIView):
    """Every metric's correlation with every human dimension at one level by one method, and each
    pair's pairwise system-ranking accuracy (409 until the text evaluation is done and ratings exist).
    Below the minimum of points (5 systems, inputs or outputs) a cell's ``value`` is null and its
    ``reason`` says why; likewise ``accuracy`` and ``accuracy_reason`` below 5 systems."""

    permission_classes = [IsResearcher]

    @extend_schema(parameters=[LEVEL, METHOD], responses={200: OpenApiTypes.OBJECT, 409: NOT_READY})
    def get(self, request: Request, project_pk: int, pk: int) -> Response:
        evaluation = owned_evaluation(request, project_pk, pk)
        level = request.query_params.get("level", "system")
        method = request.query_params.get("method", "kendall")
        try:
            return Response(correlation_matrix(evaluation, level, method))
        except ReportProblem as problem:
            return problem_response(problem)


class ScatterView(APIView):
    """One metric against one dimension: the points (per system, or every output), every level ×
    method's correlation with a 95% bootstrap interval over inputs (``reason`` when there is no
    value: too few points; ``interval_reason`` when there is no interval: too few inputs), and
    Williams' test of this metric against each other one at the system level (none below 8
    systems: ``williams_reason`` says why, with ``williams_systems``)."""

    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "metric", str, required=True, description="a metric of the evaluation, computed or imported"
            ),
            OpenApiParameter(
                "dimension", str, required=True, description="a rating dimension of the project"
            ),
            LEVEL,
        ],
        responses={200: OpenApiTypes.OBJECT, 409: NOT_READY},
    )
    def get(self, request: Request, project_pk: int, pk: int) -> Response:
        evaluation = owned_evaluation(request, project_pk, pk)
        metric = request.query_params.get("metric", "")
        level = request.query_params.get("level", "system")
        if metric not in evaluation.metrics:
            return Response({"metric": [f"must be one of {', '.join(evaluation.metrics)}"]}, status=400)
        if level not in LEVELS:
            return Response({"level": [f"must be one of {', '.join(LEVELS)}"]}, status=400)
        try:
            return Response(scatter(evaluation, metric, request.query_params.get("dimension", ""), level))
        except ReportProblem as problem:
            return problem_response(problem)


def problem_response(problem: ReportProblem) -> Response:
    """A parameter at fault is a 400 naming it; data not there yet (no ratings, job running) a 409."""
    if problem.field:
        return Response({problem.field: [str(problem)]}, status=status.HTTP_400_BAD_REQUEST)
    return Response({"detail": str(problem)}, status=status.HTTP_409_CONFLICT)


class TextEvaluationCancelView(APIView):
    """POST: cancel a queued or running text evaluation; 409 if it has ended."""

    permission_classes = [IsResearcher]

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT})
    def post(self, request: Request, project_pk: int, pk: int) -> Response:
        return cancel_by_api(request, TEXT_EVALUATIONS, owned_evaluation(request, project_pk, pk))


class SystemsView(APIView):
    """Per-system human scores from the newest snapshot (the Systems page's data): a rating project's
    systems × dimensions table with intervals over inputs and the agreement per dimension, or a
    pairwise project's Bradley-Terry ranking; ``reason`` says why there is neither."""

    permission_classes = [IsResearcher]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, project_pk: int) -> Response:
        return Response(systems_data(owned_project(request.user, project_pk)))


class MetricScoresInSerializer(StrictSerializer):
    metric = serializers.CharField(max_length=40, help_text="the metric's name, e.g. bertscore_f1 or comet22")
    higher_is_better = serializers.BooleanField(default=True, help_text="false for an error rate")
    signature = serializers.CharField(
        max_length=500, required=False, default="", allow_blank=True, help_text="the model, version, settings"
    )
    replace = serializers.BooleanField(default=False, help_text="replace a metric imported before")
    scores = serializers.CharField(
        required=False,
        trim_whitespace=False,
        help_text="CSV with a header naming system, input and value, or JSON Lines of the same",
    )
    file = serializers.FileField(required=False, help_text="the same, as a file (multipart)")

    def validate(self, attrs):
        if ("scores" in attrs) == ("file" in attrs):
            raise serializers.ValidationError({"scores": ["give the scores as scores (text) or file, once"]})
        return attrs


def scores_text(data: dict) -> str:
    """The scores' text from ``scores`` or the uploaded ``file``; ScoreImportError if not UTF-8."""
    return data["scores"] if "scores" in data else decoded(data["file"].read())


class MetricScoresView(APIView):
    """POST: a model-based metric's score of every output (BERTScore, COMET, an LLM judge's rating, …)
    joins this done text evaluation: its per-system means, the meta-evaluation's heat map and scatter,
    the ranking accuracy and Williams' test. All or nothing; a 400 names the field and the line."""

    permission_classes = [IsResearcher]

    @extend_schema(request=MetricScoresInSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, project_pk: int, pk: int) -> Response:
        evaluation = owned_evaluation(request, project_pk, pk)
        body = MetricScoresInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            stored = import_metric_scores(
                evaluation,
                name=data["metric"],
                rows=read_score_rows(scores_text(data)),
                higher_is_better=data["higher_is_better"],
                signature=data["signature"],
                replace=data["replace"],
            )
        except ScoreImportError as problem:
            field = "scores" if problem.field == "file" and "scores" in data else problem.field
            if problem.field == "evaluation":
                return Response({"detail": str(problem)}, status=status.HTTP_409_CONFLICT)
            return Response({field: [str(problem)]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(stored, status=status.HTTP_201_CREATED)
