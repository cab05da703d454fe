"""Read-only API over ground-truth snapshots, with TREC qrels download."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action

from annotation.ground_truth import snapshot_qrels_lines
from annotation.models import Project
from annotation.permissions import IsResearcher

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
        snapshot = self.get_object()
        body = "".join(line + "\n" for line in snapshot_qrels_lines(snapshot))
        response = HttpResponse(body, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="project{snapshot.project_id}-v{snapshot.version}.qrels"'
        )
        return response
