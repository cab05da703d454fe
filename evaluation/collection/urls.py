"""URLs of collection: its pages and API (included from evaluation.urls)."""

from __future__ import annotations

from django.urls import path

from evaluation.collection import api as collection_api
from evaluation.collection import fusion_views, import_api, run_removal_views, runs_api
from evaluation.collection import views as collection_views

urlpatterns = [
    path("projects/<int:project_id>/import/", collection_views.project_import, name="project-import"),
    path("projects/<int:project_id>/runs/fuse/", fusion_views.runs_fuse, name="runs-fuse"),
    path(
        "projects/<int:project_id>/runs/<int:run_id>/withdraw/",
        run_removal_views.run_withdraw,
        name="run-withdraw",
    ),
    path(
        "projects/<int:project_id>/runs/<int:run_id>/reinstate/",
        run_removal_views.run_reinstate,
        name="run-reinstate",
    ),
    path(
        "projects/<int:project_id>/runs/<int:run_id>/delete/", run_removal_views.run_delete, name="run-delete"
    ),
    path(
        "api/projects/<int:project_pk>/import/", import_api.CollectionImportView.as_view(), name="import-api"
    ),
    path("api/projects/<int:project_pk>/topics/", collection_api.TopicList.as_view(), name="topics-api"),
    path(
        "api/projects/<int:project_pk>/documents/",
        collection_api.DocumentList.as_view(),
        name="documents-api",
    ),
    path("api/projects/<int:project_pk>/pool/", collection_api.PoolList.as_view(), name="pool-api"),
    path(
        "api/projects/<int:project_pk>/judgements/list/",
        collection_api.JudgementList.as_view(),
        name="judgement-list-api",
    ),
    path(
        "api/projects/<int:project_pk>/judgements/import/",
        collection_api.JudgementImportView.as_view(),
        name="judgement-import-api",
    ),
    path("api/projects/<int:project_pk>/runs/", runs_api.RunListView.as_view(), name="runs-api"),
    path("api/projects/<int:project_pk>/runs/fuse/", runs_api.RunFuseView.as_view(), name="runs-fuse-api"),
    path("api/projects/<int:project_pk>/runs/<int:pk>/", run_removal_views.RunView.as_view(), name="run-api"),
    path(
        "api/projects/<int:project_pk>/runs/<int:pk>/withdraw/",
        run_removal_views.RunWithdrawView.as_view(),
        name="run-withdraw-api",
    ),
    path(
        "api/projects/<int:project_pk>/runs/<int:pk>/reinstate/",
        run_removal_views.RunReinstateView.as_view(),
        name="run-reinstate-api",
    ),
    path(
        "api/projects/<int:project_pk>/runs/<int:pk>/trec/",
        runs_api.RunTrecView.as_view(),
        name="run-trec-api",
    ),
]
