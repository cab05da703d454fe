"""Pages and API of the evaluation app (included from cranfield.urls)."""

from django.urls import include, path, register_converter

from . import api, views


class SnapshotDownload:
    regex = r"qrels|ratings\.csv|ratings\.json"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(SnapshotDownload, "snapshot_download")

job_list = api.GroundTruthJobViewSet.as_view({"get": "list"})
job_detail = api.GroundTruthJobViewSet.as_view({"get": "retrieve"})
snapshot_ratings = api.SnapshotViewSet.as_view({"get": "ratings"})

urlpatterns = [
    # Pages
    path("projects/<int:project_id>/", views.project_detail, name="project-page"),
    path("projects/<int:project_id>/import/", views.project_import, name="project-import"),
    path("projects/<int:project_id>/ground-truth/", views.ground_truth, name="ground-truth"),
    path("projects/<int:project_id>/ground-truth/recompute/", views.recompute, name="ground-truth-recompute"),
    path("projects/<int:project_id>/ground-truth/diff/", views.snapshot_diff, name="ground-truth-diff"),
    path(
        "projects/<int:project_id>/ground-truth/v<int:version>/<snapshot_download:kind>",
        views.snapshot_download,
        name="ground-truth-download",
    ),
    path("projects/<int:project_id>/agreement/", views.agreement, name="agreement-report"),
    path("", include("evaluation.scoring.plot_urls")),
    # API (JSON)
    path("api/projects/<int:project_pk>/import/", api.CollectionImportView.as_view(), name="import-api"),
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
]
