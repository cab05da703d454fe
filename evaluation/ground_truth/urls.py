"""URLs of ground truth: its pages and API (included from evaluation.urls)."""

from __future__ import annotations

from django.urls import path, register_converter

from evaluation.ground_truth import api
from evaluation.ground_truth import views as ground_truth_views


class SnapshotDownload:
    regex = r"qrels|ratings\.csv|ratings\.json"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(SnapshotDownload, "snapshot_download")

job_detail = api.GroundTruthJobViewSet.as_view({"get": "retrieve"})
job_list = api.GroundTruthJobViewSet.as_view({"get": "list"})
snapshot_ratings = api.SnapshotViewSet.as_view({"get": "ratings"})
snapshot_list = api.SnapshotViewSet.as_view({"get": "list"})
snapshot_detail = api.SnapshotViewSet.as_view({"get": "retrieve"})
# An action's own settings (its download renderer) are passed as a router would pass them.
snapshot_qrels = api.SnapshotViewSet.as_view({"get": "qrels"}, **api.SnapshotViewSet.qrels.kwargs)
snapshot_diff = api.SnapshotViewSet.as_view({"get": "diff"})
snapshot_sample_qrels = api.SnapshotViewSet.as_view(
    {"get": "sample_qrels"}, **api.SnapshotViewSet.sample_qrels.kwargs
)

urlpatterns = [
    path("projects/<int:project_id>/ground-truth/", ground_truth_views.ground_truth, name="ground-truth"),
    path(
        "projects/<int:project_id>/ground-truth/recompute/",
        ground_truth_views.recompute,
        name="ground-truth-recompute",
    ),
    path(
        "projects/<int:project_id>/ground-truth/diff/",
        ground_truth_views.snapshot_diff,
        name="ground-truth-diff",
    ),
    path(
        "projects/<int:project_id>/ground-truth/v<int:version>/<snapshot_download:kind>",
        ground_truth_views.snapshot_download,
        name="ground-truth-download",
    ),
    path("projects/<int:project_id>/agreement/", ground_truth_views.agreement, name="agreement-report"),
    path(
        "api/projects/<int:project_pk>/ground-truth/",
        api.GroundTruthRequestView.as_view(),
        name="ground-truth-api",
    ),
    path("api/projects/<int:project_pk>/ground-truth/jobs/", job_list, name="ground-truth-jobs-api"),
    path(
        "api/projects/<int:project_pk>/ground-truth/jobs/<int:pk>/", job_detail, name="ground-truth-job-api"
    ),
    path("api/projects/<int:project_pk>/agreement/", api.AgreementReportView.as_view(), name="agreement-api"),
    path(
        "api/projects/<int:project_pk>/snapshots/<int:version>/ratings/",
        snapshot_ratings,
        name="snapshot-ratings-api",
    ),
    path(
        "projects/<int:project_id>/ground-truth/jobs/<int:job_id>/cancel/",
        ground_truth_views.job_cancel,
        name="ground-truth-job-cancel",
    ),
    path(
        "api/projects/<int:project_pk>/ground-truth/jobs/<int:pk>/cancel/",
        api.GroundTruthJobCancelView.as_view(),
        name="ground-truth-job-cancel-api",
    ),
    path("api/projects/<int:project_pk>/snapshots/", snapshot_list, name="snapshot-list"),
    path("api/projects/<int:project_pk>/snapshots/<int:version>/", snapshot_detail, name="snapshot-detail"),
    path(
        "api/projects/<int:project_pk>/snapshots/<int:version>/sample-qrels/",
        snapshot_sample_qrels,
        name="snapshot-sample-qrels-api",
    ),
    path(
        "api/projects/<int:project_pk>/snapshots/<int:version>/qrels/",
        snapshot_qrels,
        name="snapshot-qrels-api",
    ),
    path("api/projects/<int:project_pk>/snapshots/<int:version>/diff/", snapshot_diff, name="snapshot-diff"),
    path(
        "api/projects/<int:project_pk>/prior-qrels/agreement/",
        api.PriorAgreementView.as_view(),
        name="prior-agreement-api",
    ),
]
