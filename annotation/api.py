"""REST API for researchers and import scripts (token or session auth)."""

from __future__ import annotations

from dataclasses import asdict

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from evaluation.api import GroundTruthRunSerializer

from .importing import ImportProblem, import_collection
from .models import Project
from .permissions import IsResearcher
from .serializers import ImportSerializer, ImportSummarySerializer, ProjectSerializer
from .tasks import request_ground_truth_run


class ProjectViewSet(
    mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Projects of the requesting researcher.

    Security behavior: only researchers (group ``researchers`` or superusers) may use these
    endpoints; each sees and changes only the projects they own — anyone else's is a 404.
    """

    serializer_class = ProjectSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular reading the types: no user
            return Project.objects.none()
        return Project.objects.filter(owner=self.request.user).prefetch_related("annotators")

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)

    @extend_schema(request=ImportSerializer, responses={201: ImportSummarySerializer})
    @action(detail=True, methods=["post"], url_path="import")
    def import_collection(self, request, pk=None):
        """Import topics, documents and TREC runs; pool the runs to depth ``pool_depth`` into tasks.

        All or nothing: on any error (400, naming the field and line) nothing is stored.
        """
        project = self.get_object()
        serializer = ImportSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            with transaction.atomic():
                summary = import_collection(project, **serializer.validated_data)
        except ImportProblem as problem:
            return Response({problem.field: [problem.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(asdict(summary), status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={202: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"], url_path="ground-truth")
    def ground_truth(self, request, pk=None):
        """Ask for a recomputation of the project's ground truth (a new snapshot if judgements changed).

        Debounced like submissions: answers 202 with the run that will do it — a new queued run,
        or the one already waiting (``queued`` false). Its progress is at ``run.url``.
        """
        project = self.get_object()
        outcome = request_ground_truth_run(project.pk)
        run = None
        if outcome.run is not None:
            run = GroundTruthRunSerializer(outcome.run, context={"request": request}).data
        return Response({"queued": outcome.queued, "run": run}, status=status.HTTP_202_ACCEPTED)
