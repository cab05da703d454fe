"""URLs of texts: its pages and API (included from evaluation.urls)."""

from __future__ import annotations

from django.urls import path

from evaluation.texts import api as text_api
from evaluation.texts import meta_views, systems

urlpatterns = [
    path("projects/<int:project_id>/systems/", systems.systems_page, name="systems-page"),
    path(
        "projects/<int:project_id>/meta-evaluation/", meta_views.meta_evaluation_page, name="meta-evaluation"
    ),
    path(
        "projects/<int:project_id>/meta-evaluation/scatter.<str:fmt>",
        meta_views.scatter_image,
        name="meta-evaluation-scatter",
    ),
    path("api/projects/<int:project_pk>/systems/", text_api.SystemsView.as_view(), name="systems-api"),
    path(
        "api/projects/<int:project_pk>/references/",
        text_api.ReferenceListView.as_view(),
        name="references-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/",
        text_api.TextEvaluationListView.as_view(),
        name="text-evaluations-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/<int:pk>/",
        text_api.TextEvaluationDetailView.as_view(),
        name="text-evaluation-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/<int:pk>/outputs/",
        text_api.OutputScoreListView.as_view(),
        name="text-evaluation-outputs-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/<int:pk>/meta-evaluation/",
        text_api.MetaEvaluationView.as_view(),
        name="meta-evaluation-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/<int:pk>/scatter/",
        text_api.ScatterView.as_view(),
        name="scatter-api",
    ),
    path(
        "projects/<int:project_id>/text-evaluations/<int:evaluation_id>/cancel/",
        meta_views.text_evaluation_cancel,
        name="text-evaluation-cancel",
    ),
    path(
        "projects/<int:project_id>/text-evaluations/<int:evaluation_id>/scores/",
        meta_views.import_scores,
        name="text-evaluation-scores",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/<int:pk>/scores/",
        text_api.MetricScoresView.as_view(),
        name="text-evaluation-scores-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/<int:pk>/cancel/",
        text_api.TextEvaluationCancelView.as_view(),
        name="text-evaluation-cancel-api",
    ),
]
