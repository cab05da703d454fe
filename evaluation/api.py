"""Read-only API over ground-truth snapshots (qrels, rating summaries, diffs), ground-truth runs
and the agreement report."""

from __future__ import annotations

from django.db.models import F
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from annotation.models import Project
from annotation.permissions import IsResearcher

from .downloads import qrels_response, rating_summary
from .models import GroundTruthRun, GroundTruthSnapshot
from .reports import agreement_report, latest_snapshot
from .snapshot_diff import diff_snapshots


def owned_project(request: Request, project_pk: int) -> Project:
    """The project if the requesting researcher owns it; 404 otherwise (no hint it exists)."""
    return get_object_or_404(Project, pk=project_pk, owner=request.user)


def version_parameter(request: Request, name: str = "version") -> int | None:
    """An optional snapshot version from the query string; 400 naming the parameter if malformed."""
    value = request.query_params.get(name)
    if value in (None, ""):
        return None
    if not value.isdigit():
        raise serializers.ValidationError({name: "must be a snapshot version number"})
    return int(value)


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
        return owned_project(self.request, self.kwargs["project_pk"])

    def get_queryset(self):
        return (
            GroundTruthSnapshot.objects.filter(project=self.get_project())
            .defer("assessor_report")
            .order_by("-version")
        )

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
        against = version_parameter(request, "against")
        old = get_object_or_404(self.get_queryset(), version=new.version - 1 if against is None else against)
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

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def ratings(self, request, project_pk=None, version=None):
        """A rating (Likert) snapshot: per item and dimension mean, median, std, IQR and n.

        404 for snapshots of label projects, which have qrels instead.
        """
        snapshot = self.get_object()
        if not snapshot.project.is_rating:
            raise Http404("Not a rating project: download the qrels instead.")
        return Response(rating_summary(snapshot))


class GroundTruthRunSerializer(serializers.ModelSerializer):
    """A ground-truth run: status, stage and progress (0 to 1), the snapshot it wrote, its URL."""

    snapshot_version = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = GroundTruthRun
        fields = [
            "id",
            "status",
            "stage",
            "progress",
            "snapshot_version",
            "error",
            "created_at",
            "started_at",
            "finished_at",
            "url",
        ]

    def get_snapshot_version(self, run: GroundTruthRun) -> int | None:
        if hasattr(run, "snapshot_version"):  # annotated by the list query
            return run.snapshot_version
        if run.snapshot_id is None:
            return None
        return (
            GroundTruthSnapshot.objects.filter(pk=run.snapshot_id).values_list("version", flat=True).first()
        )

    def get_url(self, run: GroundTruthRun) -> str:
        return reverse(
            "ground-truth-run-api", args=[run.project_id, run.pk], request=self.context.get("request")
        )


class RecentFirst(PageNumberPagination):
    page_size = 20


class GroundTruthRunViewSet(viewsets.ReadOnlyModelViewSet):
    """Ground-truth runs of one project, newest first (20 a page): what the progress bars poll.

    Security behavior: researchers only, and only for projects they own (others get 404).
    """

    serializer_class = GroundTruthRunSerializer
    permission_classes = [IsResearcher]
    pagination_class = RecentFirst

    def get_queryset(self):
        project = owned_project(self.request, self.kwargs["project_pk"])
        return (
            GroundTruthRun.objects.filter(project=project)
            .annotate(snapshot_version=F("snapshot__version"))
            .order_by("-created_at", "-id")
        )


class AgreementReportView(APIView):
    """The project's agreement report, as the agreement page shows it (see ``evaluation.reports``).

    ``?version=N`` picks a snapshot; the default is the newest. Figures come from the snapshot;
    annotators' volume, time and gold accuracy are live.

    Security behavior: researchers only, and only for projects they own (others get 404).
    """

    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=[OpenApiParameter("version", int, required=False)], responses={200: OpenApiTypes.OBJECT}
    )
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request, project_pk)
        version = version_parameter(request)
        snapshot = latest_snapshot(project, version)
        if version is not None and snapshot is None:
            raise Http404("No such snapshot.")
        return Response(agreement_report(project, snapshot))
