"""URLs of Pyramid projects (included from evaluation.urls)."""

from __future__ import annotations

from django.urls import path

from evaluation.pyramid import api, views, written_views

urlpatterns = [
    path("projects/<int:project_id>/pyramid/written/", written_views.written_page, name="pyramid-written"),
    path(
        "api/projects/<int:project_pk>/pyramid/written/",
        written_views.WrittenUnitsView.as_view(),
        name="pyramid-written-api",
    ),
    path("projects/<int:project_id>/pyramid/", views.pyramid_page, name="pyramid-page"),
    path(
        "api/projects/<int:project_pk>/pyramid/import/",
        api.PyramidImportView.as_view(),
        name="pyramid-import-api",
    ),
    path(
        "api/projects/<int:project_pk>/pyramid/scores/",
        api.PyramidScoresView.as_view(),
        name="pyramid-scores-api",
    ),
]
