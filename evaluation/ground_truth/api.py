"""API of ground truth: jobs (request one, watch it, cancel it), snapshots (qrels, rating summaries, diffs)
and the agreement report.

Security behavior, for every endpoint here: researchers only (``IsResearcher``), and only for projects
they own (``owned_project``: anyone else's is a 404 with no hint that it exists)."""

from __future__ import annotations

from django.db.models import F
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from annotation.models import Project
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.renderers import PlainTextRenderer, with_downloads
from evaluation.ground_truth.diff import diff_snapshots
from evaluation.ground_truth.downloads import qrels_response, rating_summary
from evaluation.ground_truth.jobs import GROUND_TRUTH_JOBS, request_ground_truth_job
from evaluation.ground_truth.report import BadVersion, agreement_report, latest_snapshot, requested_version
from evaluation.ground_truth.sampled import sample_qrels, sample_qrels_text
from evaluation.ground_truth.ties import tie_report
from evaluation.jobs.views import cancel_by_api
from evaluation.models import GroundTruthJob, GroundTruthSnapshot


def version_parameter(request: Request, name: str = "version") -> int | None:
    """An optional snapshot version from the query string; 400 naming the parameter if malformed."""
    try:
        return requested_version(request.query_params, name)
    except BadVersion as error:
        raise serializers.ValidationError({name: str(error)}) from error


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
    """Ground-truth snapshots of one project, newest first."""

    serializer_class = SnapshotSerializer
    permission_classes = [IsResearcher]
    lookup_field = "version"

    def get_project(self) -> Project:
        return owned_project(self.request.user, self.kwargs["project_pk"])

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular reading the types: no project
            return GroundTruthSnapshot.objects.none()
        return (
            GroundTruthSnapshot.objects.filter(project=self.get_project())
            .defer("annotator_report")
            .order_by("-version")
        )

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"], renderer_classes=with_downloads(PlainTextRenderer))
    def qrels(self, request, project_pk=None, version=None):
        """The snapshot as TREC qrels (``topic 0 docno label``)."""
        return qrels_response(self.get_object())

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"], renderer_classes=with_downloads(PlainTextRenderer))
    def sample_qrels(self, request, project_pk=None, version=None):
        """The project's sampled pool as the sample qrels NIST's sample_eval.pl reads (``topic 0 docno
        stratum rel``: rel -1 for pooled documents not drawn, or drawn but without a label in this
        snapshot). 404 when the project has no sampled pool (``pool_method`` ``stratified``)."""
        snapshot = self.get_object()
        qrels = sample_qrels(snapshot)
        if not qrels:
            raise Http404("the project has no sampled pool (import runs with pool_method stratified)")
        response = HttpResponse(sample_qrels_text(qrels), content_type="text/plain; charset=utf-8")
        filename = f"project{snapshot.project_id}-v{snapshot.version}.sample-qrels"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

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


class GroundTruthJobSerializer(serializers.ModelSerializer):
    """A ground-truth job: status, stage and progress (0 to 1), the snapshot it wrote, its URL."""

    snapshot_version = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = GroundTruthJob
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

    def get_snapshot_version(self, job: GroundTruthJob) -> int | None:
        if hasattr(job, "snapshot_version"):  # annotated by the list query
            return job.snapshot_version
        if job.snapshot_id is None:
            return None
        return (
            GroundTruthSnapshot.objects.filter(pk=job.snapshot_id).values_list("version", flat=True).first()
        )

    def get_url(self, job: GroundTruthJob) -> str:
        return reverse(
            "ground-truth-job-api", args=[job.project_id, job.pk], request=self.context.get("request")
        )


class RecentFirst(PageNumberPagination):
    page_size = 20


class GroundTruthJobViewSet(viewsets.ReadOnlyModelViewSet):
    """Ground-truth jobs of one project, newest first (20 a page): what the progress bars poll."""

    serializer_class = GroundTruthJobSerializer
    permission_classes = [IsResearcher]
    pagination_class = RecentFirst

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular reading the types: no project
            return GroundTruthJob.objects.none()
        project = owned_project(self.request.user, self.kwargs["project_pk"])
        return (
            GroundTruthJob.objects.filter(project=project)
            .annotate(snapshot_version=F("snapshot__version"))
            .order_by("-created_at", "-id")
        )


class AgreementReportView(APIView):
    """The project's agreement report, as the agreement page shows it (see ``ground_truth.report``).

    ``?version=N`` picks a snapshot; the default is the newest. Figures come from the snapshot;
    annotators' volume, time and gold accuracy are live. ``ties``: the snapshot's tie rule and
    every tied item with how its tie was settled, or that it waits (``ground_truth.ties``).

    """

    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=[OpenApiParameter("version", int, required=False)], responses={200: OpenApiTypes.OBJECT}
    )
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        version = version_parameter(request)
        snapshot = latest_snapshot(project, version)
        if version is not None and snapshot is None:
            raise Http404("No such snapshot.")
        return Response(agreement_report(project, snapshot) | {"ties": tie_report(project, snapshot)})


class GroundTruthRequestView(APIView):
    """Ask for a recomputation of the project's ground truth (a new snapshot if judgements changed).

    Debounced like submissions: answers 202 with the job that will do it — a new queued job, or
    the one already waiting (``queued`` false). Its progress is at ``job.url``.
    """

    permission_classes = [IsResearcher]

    @extend_schema(request=None, responses={202: OpenApiTypes.OBJECT})
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        outcome = request_ground_truth_job(project.pk)
        job = None
        if outcome.job is not None:
            job = GroundTruthJobSerializer(outcome.job, context={"request": request}).data
        return Response({"queued": outcome.queued, "job": job}, status=status.HTTP_202_ACCEPTED)


class GroundTruthJobCancelView(APIView):
    """POST: cancel a queued or running ground-truth job; 409 if it has ended."""

    permission_classes = [IsResearcher]

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT})
    def post(self, request: Request, project_pk: int, pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        return cancel_by_api(
            request, GROUND_TRUTH_JOBS, get_object_or_404(GroundTruthJob, project=project, pk=pk)
        )


NO_PRIOR = "this snapshot merged no prior judgements: import a prior set, and the next snapshot compares them"


class PriorAgreementView(APIView):
    """GET (``?version=N``, default the newest snapshot): how far the crowd agrees with the prior sets
    on the pairs both judged, as that snapshot computed it: Cohen's kappa with its interval and a
    bootstrap interval, the confusion counts (rows: prior, columns: crowd), overall and per topic
    (no kappa below 10 shared items, no bootstrap interval below 30: the reason instead). 404 when
    there is no such snapshot."""

    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=[OpenApiParameter("version", int, required=False)], responses={200: OpenApiTypes.OBJECT}
    )
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        snapshot = latest_snapshot(project, version_parameter(request))
        if snapshot is None:
            raise Http404("No such snapshot.")
        figures = snapshot.agreement.get("prior")
        if figures is None:
            return Response({"snapshot": snapshot.version, "reason": NO_PRIOR})
        return Response(
            {"snapshot": snapshot.version, "signature": snapshot.signature, "reason": None} | figures
        )
