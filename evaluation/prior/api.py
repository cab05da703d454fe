"""API of prior judgements: list and import a project's prior sets, read and set how the ground
truth merges them, and the crowd's agreement with them.

Security behavior, for every endpoint here: researchers only (``IsResearcher``: an annotator is a
403), and only for projects they own (``owned_project``: anyone else's is a 404).
"""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.items.importing import ImportProblem
from annotation.models import Project
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.serializers import StrictSerializer
from evaluation.collection.api import ProjectList
from evaluation.ground_truth.api import version_parameter
from evaluation.ground_truth.report import latest_snapshot
from evaluation.models import Precedence, PriorQrels
from evaluation.prior.importing import import_prior_qrels
from evaluation.prior.jobs import prior_changed
from evaluation.prior.settings import precedence_of, set_precedence


class PriorQrelsSerializer(serializers.ModelSerializer):
    date = serializers.DateField(source="judged_on", allow_null=True)

    class Meta:
        model = PriorQrels
        fields = ["id", "name", "source", "date", "assessor", "judged_count", "relevant_count", "created_at"]


class PriorQrelsInSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200)
    source = serializers.CharField(max_length=300, required=False, default="", allow_blank=True)  # type: ignore[assignment]  # DRF pops declared fields
    date = serializers.DateField(required=False, allow_null=True, default=None)
    assessor = serializers.CharField(
        max_length=200,
        required=False,
        default="",
        allow_blank=True,
        help_text='Who judged: "NIST assessors", "earlier crowd", "LLM" …',
    )
    qrels = serializers.CharField(
        trim_whitespace=False,
        help_text="TREC qrels text, `topic iter docno rel`, naming only the project's topics and documents.",
    )


class PriorQrelsView(ProjectList):
    """The project's prior sets (GET, paginated); import one (POST ``{"name", "source", "date",
    "assessor", "qrels"}``): 201 with the set, and a ground-truth job is asked for, which merges it;
    400 naming the field (and the line of the qrels) for bad input, nothing stored."""

    model = PriorQrels
    serializer_class = PriorQrelsSerializer
    parser_classes = [DepthLimitedJSONParser]

    def rows(self, project: Project):
        return project.prior_qrels.order_by("pk")

    @extend_schema(request=PriorQrelsInSerializer, responses={201: PriorQrelsSerializer})
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        body = PriorQrelsInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            prior = import_prior_qrels(
                project,
                data["name"],
                data["qrels"],
                source=data["source"],
                judged_on=data["date"],
                assessor=data["assessor"],
            )
        except ImportProblem as problem:
            return Response({problem.field: [problem.message]}, status=status.HTTP_400_BAD_REQUEST)
        prior_changed(project)
        return Response(PriorQrelsSerializer(prior).data, status=status.HTTP_201_CREATED)


class PrecedenceSerializer(StrictSerializer):
    precedence = serializers.ChoiceField(
        choices=Precedence.choices,
        help_text="Where crowd and prior both judged a pair: prior-wins, crowd-wins, or "
        "crowd-where-missing (the crowd's labels only where no prior set judges the pair).",
    )


class PriorSettingsView(APIView):
    """GET: how the project's ground truth merges its prior sets; PUT ``{"precedence"}``: change it
    (the next snapshot follows it; a ground-truth job is asked for when prior sets exist)."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(responses={200: PrecedenceSerializer})
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        return Response({"precedence": precedence_of(project)})

    @extend_schema(request=PrecedenceSerializer, responses={200: PrecedenceSerializer})
    def put(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        body = PrecedenceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        set_precedence(project, body.validated_data["precedence"])
        prior_changed(project)
        return Response({"precedence": precedence_of(project)})


NO_PRIOR = "this snapshot merged no prior judgements: import a prior set, and the next snapshot compares them"


class PriorAgreementView(APIView):
    """GET (``?version=N``, default the newest snapshot): how far the crowd agrees with the prior sets
    on the pairs both judged, as that snapshot computed it: Cohen's kappa with its interval and a
    bootstrap interval, the confusion counts (rows: prior, columns: crowd), overall and per topic
    (no kappa below 10 shared items, no bootstrap interval below 30: the reason instead). 404 when
    there is no such snapshot."""

    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=[OpenApiParameter("version", int, required=False)], responses={200: OpenApiTypes.OBJECT}
    )
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        snapshot = latest_snapshot(project, version_parameter(request))
        if snapshot is None:
            raise Http404("No such snapshot.")
        figures = snapshot.agreement.get("prior")
        if figures is None:
            return Response({"snapshot": snapshot.version, "reason": NO_PRIOR})
        return Response(
            {"snapshot": snapshot.version, "signature": snapshot.signature, "reason": None} | figures
        )
