"""URLs of scoring: its pages and API (included from evaluation.urls)."""

from __future__ import annotations

from django.urls import include, path

from evaluation.scoring import api as scoring_api
from evaluation.scoring import views as scoring_views

urlpatterns = [
    path("projects/<int:project_id>/runs/", scoring_views.runs, name="runs-page"),
    path("projects/<int:project_id>/runs/<int:run_id>/", scoring_views.run_detail, name="run-page"),
    path("projects/<int:project_id>/runs/<int:run_id>/run", scoring_views.run_download, name="run-download"),
    path("projects/<int:project_id>/evaluations/", scoring_views.evaluations, name="evaluations-page"),
    path("projects/<int:project_id>/external-qrels/", scoring_views.external_qrels, name="external-qrels"),
    path("projects/<int:project_id>/leaderboard/", scoring_views.leaderboard_page, name="leaderboard"),
    path(
        "projects/<int:project_id>/evaluations/<int:evaluation_id>/leaderboard.<str:fmt>",
        scoring_views.leaderboard_download,
        name="leaderboard-download",
    ),
    path(
        "projects/<int:project_id>/evaluations/<int:evaluation_id>/runs/<int:run_id>/",
        scoring_views.run_topics,
        name="run-topics",
    ),
    path("", include("evaluation.scoring.plot_urls")),
    path(
        "api/projects/<int:project_pk>/evaluations/",
        scoring_api.EvaluationListView.as_view(),
        name="evaluations-api",
    ),
    path(
        "api/projects/<int:project_pk>/evaluations/<int:pk>/",
        scoring_api.EvaluationDetailView.as_view(),
        name="evaluation-api",
    ),
    path(
        "api/projects/<int:project_pk>/evaluations/<int:pk>/leaderboard/",
        scoring_api.LeaderboardView.as_view(),
        name="leaderboard-api",
    ),
    path(
        "api/projects/<int:project_pk>/evaluations/<int:pk>/external-agreement/",
        scoring_api.ExternalAgreementView.as_view(),
        name="external-agreement-api",
    ),
    path(
        "api/projects/<int:project_pk>/evaluations/<int:pk>/plots/<str:kind>/",
        scoring_api.PlotDataView.as_view(),
        name="plot-data-api",
    ),
    path(
        "api/projects/<int:project_pk>/evaluations/<int:pk>/runs/<int:run_pk>/",
        scoring_api.RunTopicsView.as_view(),
        name="run-topics-api",
    ),
    path(
        "api/projects/<int:project_pk>/inferred/",
        scoring_api.InferredMeasuresView.as_view(),
        name="inferred-api",
    ),
    path(
        "api/projects/<int:project_pk>/external-qrels/",
        scoring_api.ExternalQrelsView.as_view(),
        name="external-qrels-api",
    ),
    path(
        "projects/<int:project_id>/evaluations/<int:evaluation_id>/cancel/",
        scoring_views.evaluation_cancel,
        name="evaluation-cancel",
    ),
    path(
        "api/projects/<int:project_pk>/evaluations/<int:pk>/cancel/",
        scoring_api.EvaluationCancelView.as_view(),
        name="evaluation-cancel-api",
    ),
]
