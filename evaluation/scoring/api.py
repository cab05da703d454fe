"""API of the evaluation side: runs (list, inspect, download, add), evaluations (request, watch),
leaderboards (JSON, CSV, trec_eval's layout), a run's per-topic values, external qrels.

Security behavior, for every endpoint here: researchers only (``IsResearcher``), and only for
projects they own (``owned_project``: anyone else's is a 404 with no hint that it exists).
"""

from __future__ import annotations

import django_filters
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from annotation.items.importing import ImportProblem
from annotation.models import Project
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.rest.renderers import CsvRenderer, PlainTextRenderer, with_downloads
from annotation.serializers import StrictSerializer
from evaluation.collection.api import ProjectList
from evaluation.collection.external_qrels import import_external_qrels
from evaluation.ground_truth.report import BadVersion, latest_snapshot, requested_version
from evaluation.jobs.views import cancel_by_api
from evaluation.metrics.paper_tables import FORMATS
from evaluation.models import Evaluation, ExternalQrels, RunScore
from evaluation.scoring.board import (
    BoardError,
    BoardOptions,
    available_measures,
    leaderboard,
    leaderboard_csv,
    paper_table_text,
    per_topic_table,
    trec_eval_text,
)
from evaluation.scoring.external import comparisons
from evaluation.scoring.inferred import inferred_measures
from evaluation.scoring.jobs import EVALUATIONS, not_superseded
from evaluation.scoring.plots import (
    EVALUATION_KINDS,
    QQ_AGAINST,
    BadParameter,
    NothingToPlot,
    data_of,
    evaluation_plot,
)
from evaluation.scoring.trust import shown_checks
from evaluation.scoring.views import requested


class EvaluationSerializer(serializers.ModelSerializer):
    ground_truth = serializers.CharField(source="ground_truth_name", read_only=True)
    snapshot_version = serializers.IntegerField(source="snapshot.version", read_only=True, allow_null=True)
    leaderboard = serializers.SerializerMethodField()
    checks = serializers.SerializerMethodField(
        help_text="the trust checks; a stability row below the minimum of runs has null tau and tau_ap "
        "and the reason"
    )

    class Meta:
        model = Evaluation
        fields = [
            "id",
            "ground_truth",
            "snapshot_version",
            "external_qrels",
            "relevance_level",
            "judged_only",
            "f_beta",
            "ndcg_gains",
            "collection_size",
            "signature",
            "status",
            "stage",
            "progress",
            "run_count",
            "error",
            "created_at",
            "started_at",
            "finished_at",
            "checks",
            "leaderboard",
        ]

    def get_checks(self, evaluation: Evaluation) -> dict:
        return shown_checks(evaluation.checks)

    def get_leaderboard(self, evaluation: Evaluation) -> str:
        return reverse(
            "leaderboard-api",
            args=[evaluation.project_id, evaluation.pk],
            request=self.context.get("request"),
        )


class EvaluationRequestSerializer(StrictSerializer):
    ground_truth = serializers.CharField(
        required=False, help_text="snapshot:VERSION or external:ID; default: the newest snapshot"
    )
    relevance_level = serializers.IntegerField(min_value=1, max_value=100, default=1)
    judged_only = serializers.BooleanField(default=False)
    f_beta = serializers.FloatField(
        default=1.0, help_text="F's beta beyond all_trec's F1: adds set_F_<beta²> (trec_eval's set_F.beta²)"
    )
    ndcg_gains = serializers.CharField(
        default="",
        allow_blank=True,
        max_length=100,
        help_text="nDCG's gains, e.g. 0=0,1=1,2=3: adds ndcg_<gains>",
    )
    set_measures = serializers.BooleanField(
        default=False,
        help_text="adds each topic's set_accuracy, set_specificity and set_fallout of what the run "
        "retrieved, in a collection of the project's documents",
    )


class ExternalQrelsSerializer(serializers.ModelSerializer):
    class Meta:
        model = ExternalQrels
        fields = ["id", "name", "judged_count", "relevant_count", "created_at"]


class ExternalQrelsInSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200)
    qrels = serializers.CharField(trim_whitespace=False, help_text="TREC qrels text: topic iter docno rel")


class EvaluationFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=Evaluation.Status.choices)
    snapshot = django_filters.NumberFilter(
        field_name="snapshot__version", min_value=1, max_value=2**31 - 1, help_text="the snapshot's version"
    )
    external_qrels = django_filters.CharFilter(
        field_name="external_qrels__name", help_text="the external qrels' name"
    )
    current = django_filters.BooleanFilter(
        method="filter_current",
        help_text="true: only the newest done evaluation per ground truth and settings (and any started "
        "or failed since), as the Evaluations page lists them; false: only those it replaced",
    )

    def filter_current(self, queryset, name, value):
        current = not_superseded(queryset)
        return current if value else queryset.exclude(pk__in=current.values("pk"))

    class Meta:
        model = Evaluation
        fields: list[str] = []


class EvaluationListView(ProjectList):
    """Evaluations, newest first (GET, paginated, filtered); request one (POST): 202 with the job, a
    new one or the one of the same ground truth and settings still waiting. Follow its ``progress`` at
    its URL."""

    model = Evaluation
    serializer_class = EvaluationSerializer
    filterset_class = EvaluationFilter
    parser_classes = [DepthLimitedJSONParser]

    def rows(self, project: Project):
        return (
            project.evaluations.select_related("snapshot", "external_qrels")
            .defer("variant_qrels")
            .order_by("-pk")
        )

    @extend_schema(request=EvaluationRequestSerializer, responses={202: EvaluationSerializer})
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        body = EvaluationRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            evaluation = requested(project, body.validated_data)
        except BoardError as error:
            return Response({error.field: [error.message]}, status=status.HTTP_400_BAD_REQUEST)
        data = EvaluationSerializer(evaluation, context={"request": request}).data
        return Response(data, status=status.HTTP_202_ACCEPTED)


class EvaluationDetailView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses={200: EvaluationSerializer})
    def get(self, request: Request, project_pk: int, pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        evaluation = get_object_or_404(
            project.evaluations.select_related("snapshot", "external_qrels"), pk=pk
        )
        return Response(EvaluationSerializer(evaluation, context={"request": request}).data)


BOARD_PARAMETERS = [
    OpenApiParameter("measures", str, description="comma-separated, e.g. map,P_10,ndcg_cut_10"),
    OpenApiParameter("test", str, enum=["t", "wilcoxon", "bootstrap", "randomisation"]),
    OpenApiParameter("correction", str, description="statsmodels multipletests method, or none"),
    OpenApiParameter("alpha", float),
    OpenApiParameter(
        "as",
        str,
        enum=["json", "csv", "trec", "latex", "markdown"],
        description="trec: trec_eval's layout; latex, markdown: a paper's table (every pair tested on "
        "every measure, the letters of the runs each is significantly better than, the best in bold)",
    ),
]


class LeaderboardView(APIView):
    """Runs × measures with 95% bootstrap intervals over topics (``interval`` says how; below its
    minimum of topics ``low`` and ``high`` are null and ``reason`` says why), and every pair
    compared on the first measure (paired test over topics, corrected for the number of pairs;
    below the minimum of topics ``p_value``, ``corrected_p`` and ``significant`` are null and
    ``significance.reason`` says why). ``signature`` names all of it. 409 while the job runs."""

    permission_classes = [IsResearcher]
    renderer_classes = with_downloads(CsvRenderer, PlainTextRenderer)

    @extend_schema(
        parameters=BOARD_PARAMETERS,
        responses={
            (200, "application/json"): OpenApiTypes.OBJECT,
            (200, "text/csv"): OpenApiTypes.STR,
            (200, "text/plain"): OpenApiTypes.STR,  # ?as=trec: trec_eval's layout
            (409, "application/json"): OpenApiResponse(description="the evaluation is not done yet"),
        },
    )
    def get(self, request: Request, project_pk: int, pk: int):
        project = owned_project(request.user, project_pk)
        evaluation = get_object_or_404(
            project.evaluations.select_related("snapshot", "external_qrels"), pk=pk
        )
        if evaluation.status != Evaluation.Status.DONE:
            return Response(
                {
                    "status": [
                        f"the evaluation is {evaluation.status}; the leaderboard exists once it is done"
                    ]
                },
                status=status.HTTP_409_CONFLICT,
            )
        if not evaluation.run_count:
            return Response(
                {"runs": ["the evaluation scored no run: every run was withdrawn or deleted"]},
                status=status.HTTP_409_CONFLICT,
            )
        # ?as=, else what the client accepts (text/csv: csv, text/plain: trec_eval's layout), else JSON.
        accepted = {"csv": "csv", "txt": "trec"}.get(request.accepted_renderer.format, "json")
        layout = request.query_params.get("as") or accepted
        if layout == "trec":
            return HttpResponse(trec_eval_text(evaluation), content_type="text/plain; charset=utf-8")
        if layout not in {"json", "csv", *FORMATS}:
            return Response(
                {"as": ["must be json, csv, trec, latex or markdown"]}, status=status.HTTP_400_BAD_REQUEST
            )
        try:
            options = BoardOptions.from_query(request.query_params, available_measures(evaluation))
        except BoardError as error:
            return Response({error.field: [error.message]}, status=status.HTTP_400_BAD_REQUEST)
        if layout in FORMATS:
            # A paper's table: every pair tested on every chosen measure (``metrics.paper_tables``).
            return HttpResponse(
                paper_table_text(evaluation, options, layout), content_type="text/plain; charset=utf-8"
            )
        data = leaderboard(evaluation, options)
        if layout == "csv":
            return HttpResponse(leaderboard_csv(data), content_type="text/csv; charset=utf-8")
        return Response(data)


class RunTopicsView(APIView):
    """One run's per-topic values of the chosen measures in one evaluation."""

    permission_classes = [IsResearcher]

    @extend_schema(parameters=BOARD_PARAMETERS[:1], responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, project_pk: int, pk: int, run_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        evaluation = get_object_or_404(project.evaluations, pk=pk, status=Evaluation.Status.DONE)
        score = get_object_or_404(
            RunScore.objects.select_related("run"), evaluation=evaluation, run_id=run_pk
        )
        try:
            options = BoardOptions.from_query(request.query_params, set(score.overall))
        except BoardError as error:
            return Response({error.field: [error.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {
                "run": score.run.tag,
                "measures": list(options.measures),
                "overall": {m: score.overall[m] for m in options.measures},
                "topics": per_topic_table(evaluation, score, options.measures),
            }
        )


class PlotDataView(APIView):
    """The data of one of an evaluation's plots (``kind``: pr, per-topic, qq, roc, det), the API's
    twin of the figure at ``/projects/<id>/evaluations/<e>/plots/<kind>.svg``, with the same query:
    ``measure`` (per-topic, qq), ``a``, ``b`` and ``against`` (qq), ``run`` (roc, det). A bad
    parameter is a 400 naming it; 409 while the evaluation runs or when the data make no such plot."""

    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=[
            OpenApiParameter("measure", str),
            OpenApiParameter("a", int, description="qq: a run id"),
            OpenApiParameter("b", int, description="qq: another run id (not with against=normal)"),
            OpenApiParameter("against", str, enum=list(QQ_AGAINST)),
            OpenApiParameter("run", int, description="roc, det: one run (default every run)"),
        ],
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, project_pk: int, pk: int, kind: str) -> Response:
        project = owned_project(request.user, project_pk)
        evaluation = get_object_or_404(project.evaluations.defer("variant_qrels", "checks"), pk=pk)
        if evaluation.status != Evaluation.Status.DONE:
            message = f"the evaluation is {evaluation.status}; its plots come when it is done"
            return Response({"status": [message]}, status=status.HTTP_409_CONFLICT)
        if kind not in EVALUATION_KINDS:
            message = f"unknown plot {kind!r}; known: {', '.join(EVALUATION_KINDS)}"
            return Response({"kind": [message]}, status=status.HTTP_400_BAD_REQUEST)
        try:
            plotted = evaluation_plot(evaluation, kind, request.query_params)
        except BadParameter as error:
            return Response({error.name: [str(error).split(": ", 1)[1]]}, status=status.HTTP_400_BAD_REQUEST)
        except NothingToPlot as error:
            return Response({"plot": [str(error)]}, status=status.HTTP_409_CONFLICT)
        return Response(data_of(plotted))


class ExternalAgreementView(APIView):
    """The crowd's labels against each of the project's external qrels, as the leaderboard shows them
    for this evaluation's snapshot: per topic, Cohen's kappa on the documents both judge (null with the
    reason below the minimum), how many of the reference's relevant documents the pool judged, the
    topics' weighted mean kappa and the kappa over all topics together."""

    permission_classes = [IsResearcher]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT})
    def get(self, request: Request, project_pk: int, pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        evaluation = get_object_or_404(
            project.evaluations.select_related("snapshot").defer("variant_qrels", "checks"), pk=pk
        )
        if evaluation.status != Evaluation.Status.DONE:
            message = f"the evaluation is {evaluation.status}; the comparison comes when it is done"
            return Response({"status": [message]}, status=status.HTTP_409_CONFLICT)
        return Response({"evaluation": evaluation.pk, "external_qrels": comparisons(evaluation)})


class ExternalQrelsView(ProjectList):
    """External qrels of the project (GET, paginated); import one (POST ``{"name", "qrels"}``): 201,
    and the runs are scored against it."""

    model = ExternalQrels
    serializer_class = ExternalQrelsSerializer
    parser_classes = [DepthLimitedJSONParser]

    def rows(self, project: Project):
        return project.external_qrels.order_by("pk")

    @extend_schema(request=ExternalQrelsInSerializer, responses={201: ExternalQrelsSerializer})
    def post(self, request: Request, project_pk: int) -> Response:
        from evaluation.scoring.jobs import request_evaluation

        project = owned_project(request.user, project_pk)
        body = ExternalQrelsInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            external = import_external_qrels(
                project, body.validated_data["name"], body.validated_data["qrels"]
            )
        except ImportProblem as problem:
            return Response({problem.field: [problem.message]}, status=status.HTTP_400_BAD_REQUEST)
        if project.runs.exists():
            request_evaluation(project, external_qrels=external)
        return Response(ExternalQrelsSerializer(external).data, status=status.HTTP_201_CREATED)


class EvaluationCancelView(APIView):
    """POST: cancel a queued or running evaluation; 409 if it has ended."""

    permission_classes = [IsResearcher]

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT})
    def post(self, request: Request, project_pk: int, pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        return cancel_by_api(request, EVALUATIONS, get_object_or_404(project.evaluations, pk=pk))


class InferredMeasuresView(APIView):
    """The runs' inferred measures from the project's stratified sampled pool (xinfAP, infNDCG, iP@k,
    inferred numbers relevant as sample_eval.pl; statAP as statAP_MQ_eval_v3.pl), against snapshot
    ``?version=`` (default: the newest). 404 without a snapshot or without a sampled pool.

    Security behavior: the project's owner only; anyone else's project is a 404."""

    permission_classes = [IsResearcher]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        try:
            version = requested_version(request.query_params)
        except BadVersion as error:
            return Response({"version": [str(error)]}, status=400)
        snapshot = latest_snapshot(project, version)
        if snapshot is None:
            raise Http404("no ground-truth snapshot yet")
        measures = inferred_measures(snapshot)
        if measures is None:
            raise Http404("the project has no sampled pool (import runs with pool_method stratified)")
        return Response(measures)
