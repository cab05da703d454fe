"""API of ir_datasets in and out: import a dataset into a project as a job, export a project as
files ir_datasets and the TREC tools read.

Security behavior: researchers only (``IsResearcher``), and only for projects they own
(``owned_project``: anyone else's is a 404; an annotator is a 403).
"""

from __future__ import annotations

import tempfile

from django.http import FileResponse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.rest.renderers import ZipRenderer, with_downloads
from evaluation.bundle.api import ImportJobSerializer
from evaluation.collection.flow import ImportFailed
from evaluation.irds.export import write_export
from evaluation.irds.importing import ImportChoiceSerializer, choice_from, send_import


class IrDatasetsImportView(APIView):
    """Fill the project from an ir_datasets dataset, as an import job.

    The request names the dataset id and what to take: the queries' field that becomes each topic
    (``query_field``), the documents' fields joined into each text (``doc_fields``), a subset
    (``topics``, ``max_documents``), the qrels as the project's external reference qrels or not
    (``qrels``: reference or none), the scoreddocs as a run (``scoreddocs``, pooled to
    ``pool_depth``). It is checked against the dataset at once: an unknown id, a field the dataset
    lacks or a topic it does not have is a 400 naming the field, and nothing is queued. The answer
    (202) is the job; poll its ``url`` for the stage and progress. All or nothing: a refusal found
    by the worker is on the job (``errors``) and nothing is stored. The dataset must be readable by
    the server's ir_datasets (downloaded, or its files under ``IR_DATASETS_HOME``).
    """

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(request=ImportChoiceSerializer, responses={202: ImportJobSerializer})
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        try:
            job = send_import(request.user, project, choice_from(request.data))
        except ImportFailed as failure:
            return Response(failure.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        return Response(
            ImportJobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED
        )


class IrDatasetsExportView(APIView):
    """The project's topics, documents, runs and every snapshot's qrels (and its external qrels) as a
    ZIP of files ir_datasets and the TREC tools read, with ``metadata.json`` (``evaluation.irds.export``)."""

    permission_classes = [IsResearcher]
    renderer_classes = with_downloads(ZipRenderer)

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    def get(self, request: Request, project_pk: int) -> FileResponse:
        project = owned_project(request.user, project_pk)
        return export_response(project)


def export_response(project) -> FileResponse:
    """The project's export as a ZIP attachment (the API and the page)."""
    out = tempfile.SpooledTemporaryFile(max_size=64 << 20)  # noqa: SIM115 (FileResponse closes it)
    write_export(project, out)
    out.seek(0)
    name = f"cranfield-{project.pk}-{slugify(project.name) or 'project'}-ir-datasets.zip"
    return FileResponse(out, as_attachment=True, filename=name, content_type="application/zip")
