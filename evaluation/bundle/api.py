"""API of large imports and test-collection bundles: a collection import run as a job (any size up to
``IMPORT_JOB_MAX_BYTES``), a project's bundle downloaded as one ZIP, a bundle imported as a new
project, and the import jobs' state.

Security behavior: researchers only (``IsResearcher``); a project's import jobs and bundle only for its
owner (``owned_project``: anyone else's is a 404); an import job only for the researcher who sent it.
"""

from __future__ import annotations

import tempfile
from typing import Any

from django.http import FileResponse, HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from annotation.models import Project
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import UnreadBodyParser
from annotation.rest.renderers import ZipRenderer, with_downloads
from evaluation.bundle.archive import write_bundle
from evaluation.collection.import_jobs import IMPORT_JOBS, BodyRefused, create_job
from evaluation.collection.serializers import ImportSerializer
from evaluation.jobs.views import cancel_by_api
from evaluation.models import ImportJob

GZIP_HEADER = OpenApiParameter(
    "Content-Encoding",
    str,
    OpenApiParameter.HEADER,
    required=False,
    enum=["gzip", "identity"],
    description="gzip: the body is gzip-compressed (it is decompressed as it arrives)",
)


class ImportJobSerializer(serializers.ModelSerializer):
    """An import job: its state, stage and progress (0 to 1); once done, what it created (``summary``)
    and the project; if refused, the errors as the direct import names them (nothing was imported)."""

    url = serializers.SerializerMethodField()

    class Meta:
        model = ImportJob
        fields = [
            "id",
            "kind",
            "status",
            "stage",
            "progress",
            "project",
            "body_bytes",
            "body_sha256",
            "summary",
            "errors",
            "error",
            "created_at",
            "started_at",
            "finished_at",
            "url",
        ]

    def get_url(self, job: ImportJob) -> str:
        return reverse("import-job-api", args=[job.pk], request=self.context.get("request"))


# What the bundle's usernames become (``archive.Accounts``).
ANNOTATOR_NAMES = ("pseudonyms", "match")


def body_stream(request: HttpRequest) -> Any:
    """The request's body as sent. Django reads ``CONTENT_LENGTH`` bytes of it, so none of a chunked
    upload (``Transfer-Encoding: chunked`` has no length); when the server ends the stream itself
    (gunicorn sets ``wsgi.input_terminated``), such a body is read from the server's stream to its end."""
    if not request.META.get("CONTENT_LENGTH") and request.META.get("wsgi.input_terminated"):
        return request.META["wsgi.input"]
    return request


def receive(
    request: Request, kind: str, project: Project | None, content_type: str, options: dict | None = None
) -> Response:
    """Store the request's body as an import job and answer 202 with it (or 4xx naming the problem)."""
    sent_type = request.content_type.split(";")[0].strip().lower()
    if sent_type != content_type:
        return Response(
            {"detail": f"send the body as {content_type} (Content-Type was {sent_type or 'missing'})"},
            status=status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
        )
    encoding = request.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in {"gzip", "identity"}:
        return Response(
            {"Content-Encoding": [f"{encoding!r} is not supported: send gzip or nothing"]},
            status=status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
        )
    try:
        # Read in chunks from the raw request: never held whole, never parsed in the web process.
        job = create_job(
            kind,
            request.user,
            project,
            body_stream(request._request),
            gzipped=encoding == "gzip",
            options=options,
        )
    except BodyRefused as refused:
        return Response({"detail": str(refused)}, status=refused.status)
    return Response(
        ImportJobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED
    )


class ProjectImportJobsView(generics.ListAPIView):
    """GET: the project's import jobs, newest first. POST: import a collection as a job.

    The body is the direct import's (``POST /api/projects/{id}/import/``: topics, documents, runs,
    items …) of any size up to the server's limit (1 GiB by default), optionally gzip-compressed.
    The answer (202) is the job; poll its ``url`` for the stage and progress. All or nothing: a
    refused import reports its errors on the job (``errors``) and stores nothing.
    """

    parser_classes = [UnreadBodyParser]  # the body is streamed to the job, never parsed here

    serializer_class = ImportJobSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ImportJob.objects.none()
        project = owned_project(self.request.user, self.kwargs["project_pk"])
        return ImportJob.objects.filter(project=project).defer("body")

    @extend_schema(
        request={"application/json": ImportSerializer},
        parameters=[GZIP_HEADER],
        responses={
            202: ImportJobSerializer,
            413: OpenApiResponse(description="over the import job limit"),
            415: OpenApiResponse(description="not JSON, or an unsupported Content-Encoding"),
        },
    )
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        return receive(request, ImportJob.Kind.COLLECTION, project, "application/json")


class ImportJobView(generics.RetrieveAPIView):
    """One import job of the requesting researcher: status, stage, progress, summary or errors."""

    serializer_class = ImportJobSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ImportJob.objects.none()
        return ImportJob.objects.filter(requested_by_id=self.request.user.pk).defer("body")


class BundleExportView(APIView):
    """The project as one test-collection bundle (a ZIP): settings, topics, documents, runs, pool,
    annotators, judgements with every revision, snapshots and external qrels, with a manifest of
    every file's SHA-256 and of the snapshots' and evaluations' signatures (``evaluation.bundle.archive``)."""

    permission_classes = [IsResearcher]
    renderer_classes = with_downloads(ZipRenderer)

    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY})
    def get(self, request: Request, project_pk: int) -> FileResponse:
        project = owned_project(request.user, project_pk)
        # Spooled: a small bundle stays in memory, a large one goes to disk, never both whole.
        out = tempfile.SpooledTemporaryFile(max_size=64 << 20)  # noqa: SIM115 (FileResponse closes it)
        write_bundle(project, out)
        out.seek(0)
        name = f"cranfield-{project.pk}-{slugify(project.name) or 'project'}.zip"
        return FileResponse(out, as_attachment=True, filename=name, content_type="application/zip")


class BundleImportView(APIView):
    """Import a bundle (``GET /api/projects/{id}/bundle/``'s ZIP) as a new project of yours, as a job.

    The answer (202) is the job; once done its ``project`` is the new project and ``summary`` counts
    what was restored and lists the evaluations the bundle was scored by (signatures and scores),
    which the new project's evaluations, requested at the end, reproduce.

    The copy says it is one: its name is the bundle's with " (imported)" (" (imported 2)" … when you
    have a project of that name already). The bundle's usernames become new pseudonymous accounts
    (``imported-<project>-<n>``, inactive, no usable password), so nothing is credited to whoever
    has that name here, unless ``?annotators=match`` says they are the same people (a copy made on
    this site): then each name is this site's account of that name (one it lacks is created without a
    usable password; a name Django would refuse is refused). Members come in *inactive* — their
    judgements count, but they get no tasks and do not see the copy — unless
    ``?activate_annotators=true``; a blocked one stays blocked. A bundle whose files do not match the
    manifest's checksums is refused and nothing is stored.
    """

    parser_classes = [UnreadBodyParser]  # the body is streamed to the job, never parsed here

    permission_classes = [IsResearcher]

    @extend_schema(
        request={"application/zip": OpenApiTypes.BINARY},
        parameters=[
            GZIP_HEADER,
            OpenApiParameter(
                "activate_annotators",
                bool,
                required=False,
                description="true: the bundle's annotators may take tasks in the copy at once (default: "
                "inactive members until you activate them on the project page)",
            ),
            OpenApiParameter(
                "annotators",
                str,
                enum=list(ANNOTATOR_NAMES),
                required=False,
                description="pseudonyms (default): each username of the bundle becomes a new account "
                "imported-<project>-<n>; match: the account of that username on this site (the same people)",
            ),
        ],
        responses={
            202: ImportJobSerializer,
            413: OpenApiResponse(description="over the import job limit"),
            415: OpenApiResponse(description="not application/zip"),
        },
    )
    def post(self, request: Request) -> Response:
        activate = request.query_params.get("activate_annotators", "false").strip().lower()
        if activate not in {"true", "false", "1", "0"}:
            return Response(
                {"activate_annotators": ["must be true or false"]}, status=status.HTTP_400_BAD_REQUEST
            )
        names = request.query_params.get("annotators", "pseudonyms").strip().lower()
        if names not in ANNOTATOR_NAMES:
            return Response(
                {"annotators": [f"must be one of {', '.join(ANNOTATOR_NAMES)}"]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        options = {"activate_annotators": activate in {"true", "1"}, "annotators": names}
        return receive(request, ImportJob.Kind.BUNDLE, None, "application/zip", options)


class ImportJobCancelView(APIView):
    """POST: cancel a queued or running import job of the requesting researcher (nothing of it is
    imported: the import is all or nothing); 409 if it has ended."""

    permission_classes = [IsResearcher]

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        job = get_object_or_404(ImportJob.objects.defer("body"), requested_by_id=request.user.pk, pk=pk)
        return cancel_by_api(request, IMPORT_JOBS, job)
