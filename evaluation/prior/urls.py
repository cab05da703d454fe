"""URLs of prior judgements (included from evaluation.urls)."""

from __future__ import annotations

from django.urls import path

from evaluation.prior import api, views

urlpatterns = [
    path("projects/<int:project_id>/prior-qrels/", views.prior_qrels, name="prior-qrels"),
    path(
        "projects/<int:project_id>/prior-qrels/precedence/", views.prior_precedence, name="prior-precedence"
    ),
    path("api/projects/<int:project_pk>/prior-qrels/", api.PriorQrelsView.as_view(), name="prior-qrels-api"),
    path(
        "api/projects/<int:project_pk>/prior-qrels/settings/",
        api.PriorSettingsView.as_view(),
        name="prior-settings-api",
    ),
]
