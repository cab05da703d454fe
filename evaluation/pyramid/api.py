"""API of Pyramid projects: import a LitePyramid campaign (POST: 201 with the counts, 200 for a dry
run, which stores nothing; 400 naming the field, nothing stored then) and read the Pyramid scores of a
snapshot (GET ``?version=N``, the newest by default).

Security behavior, for every endpoint here: researchers only (``IsResearcher``: an annotator is a
403), and only for projects they own (``owned_project``: anyone else's is a 404).
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.items.importing import ImportProblem
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from evaluation.pyramid.importing import PyramidIn, import_pyramid
from evaluation.pyramid.scores import snapshot_pyramid


class PyramidImportView(APIView):
    """Import references, SCUs and summaries as presence items (``evaluation.pyramid.importing``)."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(request=PyramidIn, responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT})
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        try:
            counts = import_pyramid(project, request.data)
        except ImportProblem as problem:
            return Response({problem.field: [problem.message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(counts, status=status.HTTP_200_OK if counts["dry_run"] else status.HTTP_201_CREATED)


class PyramidScoresView(APIView):
    """Each system's mean original Pyramid, modified Pyramid and LitePyramid recall over the inputs,
    with bootstrap intervals and the crowd's agreement on its items, and every summary's scores."""

    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=[OpenApiParameter("version", int, description="The snapshot; the newest by default.")],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        snapshots = project.snapshots.order_by("-version")
        version = request.query_params.get("version")
        if version is not None and not version.isdigit():
            return Response({"version": ["a whole number"]}, status=status.HTTP_400_BAD_REQUEST)
        snapshot = get_object_or_404(snapshots, version=version) if version else snapshots.first()
        if snapshot is None or not project.content_units.exists():
            return Response(
                {"detail": "no Pyramid scores: the project needs content units and a ground-truth snapshot"},
                status=status.HTTP_404_NOT_FOUND,
            )
        return Response(snapshot_pyramid(snapshot))
