"""API of prior judgements: list and import a project's prior sets, read and set how the ground
truth merges them (the crowd's agreement with them is the ground truth's: ``ground_truth.api``).

Security behavior, for every endpoint here: researchers only (``IsResearcher``: an annotator is a
403), and only for projects they own (``owned_project``: anyone else's is a 404).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.items.importing import ImportProblem
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.serializers import StrictSerializer
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


class Pages(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000


class PriorQrelsView(generics.ListAPIView):
    """The project's prior sets (GET, paginated); import one (POST ``{"name", "source", "date",
    "assessor", "qrels"}``): 201 with the set, and a ground-truth job is asked for, which merges it;
    400 naming the field (and the line of the qrels) for bad input, nothing stored."""

    permission_classes = [IsResearcher]
    pagination_class = Pages
    serializer_class = PriorQrelsSerializer
    parser_classes = [DepthLimitedJSONParser]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular reading the types
            return PriorQrels.objects.none()
        return owned_project(self.request.user, self.kwargs["project_pk"]).prior_qrels.order_by("pk")

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
