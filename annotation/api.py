"""REST API of projects for researchers and scripts (token or session auth); the collection import
and everything derived from judgements are ``evaluation.api``'s."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.adjudication.rules import RULE_SETTINGS, apply_rule
from annotation.judging.coverage import apply_k_to_items
from annotation.models import Judgement, Project
from annotation.permissions import IsResearcher
from annotation.progress.live import project_progress_figures
from annotation.projects.downloads import judgements_response
from annotation.projects.removal import record_active_setting, set_archived
from annotation.rest.renderers import CsvRenderer, NdjsonRenderer, with_downloads
from annotation.serializers import ProjectSerializer

# Settings that change what a judgement means: fixed once anything is judged (as on the settings page).
FIXED_ONCE_JUDGED = ("task_type", "config")


class ProjectViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Projects of the requesting researcher: create, list, read, change (PATCH), archive (DELETE),
    and a project's judgements and progress.

    Security behavior: only researchers (group ``researchers`` or superusers) may use these
    endpoints; each sees and changes only the projects they own — anyone else's is a 404.
    """

    serializer_class = ProjectSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular reading the types: no user
            return Project.objects.none()
        return Project.objects.filter(owner_id=self.request.user.pk).prefetch_related("annotators")

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)

    def perform_update(self, serializer):
        project = serializer.instance
        changed = [
            name
            for name in FIXED_ONCE_JUDGED
            if name in serializer.validated_data and serializer.validated_data[name] != getattr(project, name)
        ]
        if changed and Judgement.objects.filter(task__project=project).exists():
            raise serializers.ValidationError(
                {changed[0]: ["cannot change once items are judged: it changes what the judgements mean"]}
            )
        old_k = project.assignments_per_task
        was_active = project.active
        rule_changed = any(
            name in serializer.validated_data and serializer.validated_data[name] != getattr(project, name)
            for name in RULE_SETTINGS
        )
        apply_k_to_items(serializer.save(), old_k)
        if rule_changed:  # referred or withdrawn at once, as on the settings page
            apply_rule(serializer.instance)
        record_active_setting(serializer.instance, self.request.user, was_active)  # archived: in the history

    @extend_schema(responses={204: None})
    def destroy(self, request: Request, *args, **kwargs) -> Response:
        """Archive the project: it stops serving tasks and keeps everything (nothing is deleted), as
        ``POST /api/projects/{id}/archive/`` does (which also answers what it did, or a dry run)."""
        project = self.get_object()
        if project.active:
            set_archived(project, request.user, archived=True)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        parameters=[
            OpenApiParameter("as", str, enum=["csv", "jsonl"], description="default jsonl"),
            OpenApiParameter("versions", str, enum=["all"], description="every correction as a row"),
        ],
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR, (200, "text/csv"): OpenApiTypes.STR},
    )
    @action(detail=True, methods=["get"], renderer_classes=with_downloads(NdjsonRenderer, CsvRenderer))
    def judgements(self, request: Request, pk=None, format=None):
        """Every judgement, streamed, as on the project page's download (spreadsheet cells escaped)."""
        # ?as=, else what the client accepts (Accept: text/csv), else JSON lines.
        fmt = request.query_params.get("as") or (
            "csv" if request.accepted_renderer.format == "csv" else "jsonl"
        )
        if fmt not in {"csv", "jsonl"}:
            return Response({"as": ["must be csv or jsonl"]}, status=status.HTTP_400_BAD_REQUEST)
        every_version = request.query_params.get("versions") == "all"
        return judgements_response(self.get_object(), fmt, every_version=every_version)

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"], url_name="progress-api")  # "project-progress" is the page's
    def progress(self, request: Request, pk=None, format=None) -> Response:
        """The project page's live figures: items complete, judgements per hour, time to finish …"""
        return Response(project_progress_figures(self.get_object()))
