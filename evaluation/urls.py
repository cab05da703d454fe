"""Pages and API of the evaluation app (included from cranfield.urls): each feature keeps its own URLs,
this lists them, and the project page is the app's own."""

from __future__ import annotations

from django.urls import include, path

from evaluation import views

urlpatterns = [
    path("projects/<int:project_id>/", views.project_detail, name="project-page"),
    path("", include("evaluation.collection.urls")),
    path("", include("evaluation.ground_truth.urls")),
    path("", include("evaluation.items.urls")),
    path("", include("evaluation.texts.urls")),
    path("", include("evaluation.scoring.urls")),
    path("", include("evaluation.bundle.urls")),
    path("", include("evaluation.irds.urls")),
    path("", include("evaluation.prior.urls")),
    path("", include("evaluation.sampling.urls")),
    path("", include("evaluation.pyramid.urls")),
]
