"""Read-only API over ground-truth snapshots, with TREC qrels download."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from annotation.models import Project
from annotation.permissions import IsResearcher

from .downloads import qrels_response
from .models import GroundTruthSnapshot
from .snapshot_diff import diff_snapshots


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

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def diff(self, request, project_pk=None, version=None):
        """Labels changed, added and removed from snapshot ``?against=<version>`` to this one.

        ``against`` defaults to the previous version; 404 if either snapshot does not exist.
        """
        new = self.get_object()
        against = request.query_params.get("against", str(new.version - 1))
        if not against.isdigit():
            raise serializers.ValidationError({"against": "must be a snapshot version number"})
        old = get_object_or_404(self.get_queryset(), version=int(against))
        diff = diff_snapshots(old, new)
        return Response(
            {
                "from_version": old.version,
                "to_version": new.version,
                "changed": [{"task": t, "old_label": a, "new_label": b} for t, a, b in diff.changed],
                "added": [{"task": t, "label": label} for t, label in diff.added],
                "removed": [{"task": t, "label": label} for t, label in diff.removed],
                "unchanged_count": diff.unchanged_count,
            }
        )
