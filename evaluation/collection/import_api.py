"""API of the collection import: topics, documents, runs or items, quality-control items, TREC topic and
qrels files, in one all-or-nothing request (larger bodies go to import jobs).

Security behavior: researchers only (``IsResearcher``), and only for projects they own
(``owned_project``: anyone else's is a 404)."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.pay.costs import cost_of_judgements
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from evaluation.collection.flow import ImportFailed, import_from_body
from evaluation.collection.serializers import ImportSerializer, ImportSummarySerializer


class CollectionImportView(APIView):
    """Import topics, documents and TREC runs; pool the runs to depth ``pool_depth`` into items.

    Runs may be added at any time: only pairs not yet in the pool become new items. With
    ``dry_run`` the answer (200) counts what would be created, e.g. the new items a deeper pool or a
    ``pool_budget`` would add, and nothing is stored.

    Also items given one by one, gold and qualification items. All or nothing: on any error the
    answer is 400 with ``{field: [message]}`` (``runs[0]``, line 12; ``topics[3].id``) and nothing
    is stored. The Import page takes the same body (``collection.import_from_body``).
    """

    permission_classes = [IsResearcher]
    # JSON only: a form-encoded or multipart body is a 415, not an empty import answered 201.
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(
        request=ImportSerializer, responses={201: ImportSummarySerializer, 200: ImportSummarySerializer}
    )
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        try:
            summary = import_from_body(project, request.data)
        except ImportFailed as failure:
            return Response(failure.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        # A dry run created nothing: 200 with what it would have created.
        if not summary.dry_run:
            return Response(asdict(summary), status=status.HTTP_201_CREATED)
        # What the new items' judgements would cost paid workers, with the project's pay settings.
        cost = cost_of_judgements(project, summary.tasks_created * project.assignments_per_task)
        return Response({**asdict(summary), "cost": cost}, status=status.HTTP_200_OK)
