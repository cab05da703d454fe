"""Read-only API over ground-truth snapshots, with TREC qrels download."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action

from annotation.models import Project
from annotation.permissions import IsResearcher

from .downloads import qrels_response
from .models import GroundTruthSnapshot


class SnapshotSerializer(serializers.ModelSerializer):
    class Meta:
        model = GroundTruthSnapshot
        fields = [
            "version",
            "method",
            "parameters",
            "input_judgement_count",
            "agreement",
            "signature",
            "created_at",
        ]


class SnapshotViewSet(viewsets.ReadOnlyModelViewSet):
    """Ground-truth snapshots of one project, newest first.

    Security behavior: researchers only, and only for projects they own (others get 404).
    """

    serializer_class = SnapshotSerializer
    permission_classes = [IsResearcher]
    lookup_field = "version"

    def get_project(self) -> Project:
        return get_object_or_404(Project, pk=self.kwargs["project_pk"], owner=self.request.user)

    def get_queryset(self):
        return GroundTruthSnapshot.objects.filter(project=self.get_project()).order_by("-version")

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"])
    def qrels(self, request, project_pk=None, version=None):
        """The snapshot as TREC qrels (``topic 0 docno label``)."""
        return qrels_response(self.get_object())
