"""API of sampling simulations: ask for one (POST: 202 with the job) and list them (GET); one
simulation (GET) with its progress and, once done, every sample's figures.

Security behavior, for every endpoint here: researchers only (``IsResearcher``: an annotator is a
403), and only for projects they own (``owned_project``: anyone else's is a 404).
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.serializers import StrictSerializer
from evaluation.models import SamplingSimulation
from evaluation.sampling.jobs import MAX_DEPTH, MAX_SAMPLES, MAX_SHARES, SettingsProblem, request_simulation


class SimulationInSerializer(StrictSerializer):
    truth = serializers.CharField(
        required=False,
        default="snapshot",
        help_text="The ground truth taken as full judgement: snapshot (the newest), snapshot:VERSION, "
        "external:NAME or prior:NAME.",
    )
    shares = serializers.ListField(
        child=serializers.FloatField(min_value=0, max_value=1),
        required=False,
        default=[0.1, 0.2, 0.3],
        min_length=1,
        max_length=MAX_SHARES,
        help_text="Shares of the pool judged, each in (0, 1].",
    )
    samples = serializers.IntegerField(required=False, default=100, min_value=1, max_value=MAX_SAMPLES)
    depth = serializers.IntegerField(required=False, default=100, min_value=2, max_value=MAX_DEPTH)
    top_depth = serializers.IntegerField(required=False, default=10, min_value=1)
    seed = serializers.IntegerField(required=False, default=0, min_value=0)


class SimulationSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    plot = serializers.SerializerMethodField()

    class Meta:
        model = SamplingSimulation
        fields = [
            "id", "url", "status", "stage", "progress", "error", "truth_name", "shares", "samples", "depth",
            "top_depth", "seed", "created_at", "started_at", "finished_at", "plot", "result",
        ]  # fmt: skip

    def get_url(self, job: SamplingSimulation) -> str:
        return reverse("sampling-simulation-api", args=[job.project_id, job.pk])

    def get_plot(self, job: SamplingSimulation) -> str | None:
        if job.status != SamplingSimulation.Status.DONE:
            return None
        return reverse("sampling-simulation-plot", args=[job.project_id, job.pk, "svg"])


class SimulationsView(APIView):
    """The project's sampling simulations, newest first, without their figures (GET); ask for one
    (POST): 202 with the job, which a worker runs; 400 naming the field for bad settings."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(responses=SimulationSerializer(many=True))
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        jobs = project.sampling_simulations.defer("result")[:100]
        data = SimulationSerializer(jobs, many=True).data
        for row in data:
            row.pop("result", None)
        return Response(data)

    @extend_schema(request=SimulationInSerializer, responses={202: SimulationSerializer})
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        asked = SimulationInSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        try:
            job = request_simulation(project, request.user, **asked.validated_data)
        except SettingsProblem as problem:
            return Response({problem.field: [problem.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(SimulationSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class SimulationView(APIView):
    """One sampling simulation: its state and progress, and once done its ``result``: the truth's MAP
    per run, the pool's size, and per share its strata, the means over the samples and every sample's
    figures (``judged``, ``bias``, ``mae``, ``rmse``, ``tau``; ``stat_`` for statAP)."""

    permission_classes = [IsResearcher]

    @extend_schema(responses=SimulationSerializer)
    def get(self, request: Request, project_pk: int, simulation_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        job = get_object_or_404(SamplingSimulation, project=project, pk=simulation_pk)
        return Response(SimulationSerializer(job).data)
