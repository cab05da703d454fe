"""URLs of Pyramid projects (included from evaluation.urls)."""

from __future__ import annotations

from django.urls import path

from evaluation.pyramid import api, views

urlpatterns = [
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
