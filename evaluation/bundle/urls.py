"""URLs of large imports and bundles (``evaluation.bundle.api``)."""

from django.urls import path

from evaluation.bundle import api as bundle_api

urlpatterns = [
    path(
        "api/projects/<int:project_pk>/import-jobs/",
        bundle_api.ProjectImportJobsView.as_view(),
        name="import-jobs-api",
    ),
    path("api/import-jobs/<int:pk>/", bundle_api.ImportJobView.as_view(), name="import-job-api"),
    path("api/projects/<int:project_pk>/bundle/", bundle_api.BundleExportView.as_view(), name="bundle-api"),
    path("api/bundles/", bundle_api.BundleImportView.as_view(), name="bundle-import-api"),
    path(
        "api/import-jobs/<int:pk>/cancel/",
        bundle_api.ImportJobCancelView.as_view(),
        name="import-job-cancel-api",
    ),
]
